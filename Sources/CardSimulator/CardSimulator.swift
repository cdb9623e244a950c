/// CardSimulator: an in-process Keycard applet 3.1 that answers raw APDU bytes exactly as
/// the Java Card applet does (../shared/spec/keycard-protocol.md §17), behind the same
/// `CardTransport` seam as a real reader.
public enum CardSimulatorInfo {
    /// APPLICATION_VERSION reported by SELECT (major, minor).
    public static let appletVersion: (major: UInt8, minor: UInt8) = (3, 1)
}
