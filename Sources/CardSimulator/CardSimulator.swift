/// CardSimulator: an in-process Keycard (applet 3.1) that answers raw APDU bytes exactly as the
/// Java Card applet does (docs/keycard-protocol.md §4–§13, checklist §17), behind the same
/// `CardTransport` seam as a real reader (docs/habits.md §7).
///
/// The pieces, bottom up:
/// - `AppletProfile`: which released applet build is simulated (version bytes, slot count, quirks).
/// - `KeycardApplet`: the state machine: SELECT routing for the package's instances (Keycard, Ident),
///   the pre-initialized and initialized command sets, Secure Channel V1 with its quirks.
/// - `SimulatedCard`: a `VirtualCard` around one applet: ATR, power and reset events, the state file
///   (`<directory>/<name>.json`, mode 0600, replaced atomically after every state-changing command) and
///   an optional `APDULog` of the raw bytes exchanged.
/// - `ReplayRandom`: a `RandomSource` that plays back given bytes, for byte-exact transcripts.
///
/// Typical use:
/// ```swift
/// let card = try SimulatedCard.open(named: "work", in: home + "/cards")          // created on first use
/// let test = SimulatedCard(profile: .v3_1_2, random: SeededRandom(seed: 7))      // in memory, deterministic
/// let response = try card.transmit([0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.keycardInstance)
/// ```
///
/// Deliberate choices where the sources leave room (docs/keycard-protocol.md §17, §18):
/// - EXPORT KEY P2=02 of the master key returns the chain-code half of the transient derivation buffer,
///   as the 3.1 applet does (zeros after power-up); `AppletProfile.with(masterXpubChainCode:
///   .masterChainCode)` returns the real master chain code instead.
/// - SIGN's DER reproduces `fixS`: when the card's raw S was high, S is written as a fixed 32-byte INTEGER
///   (non-minimal about once in 512 signatures); IDENTIFY's signature is not low-S normalised.
/// - A wrapped command whose data is shorter than the 16-byte MAC gets a wrapped `6F00` and the channel
///   stays open (applet 3.1.0, §9.5); unaligned data is a MAC failure (plain `6982`, channel closed), as
///   §9.8 says of plain commands sent while a channel is open.
/// - Only the Keycard and Ident instances are installed; the Cash and NDEF instances answer SELECT with
///   `6A82`. With nothing selected (after power-up, reset or an unknown AID) every command but SELECT
///   answers `6D00`.
/// - The applet creates its channel key lazily after FACTORY RESET; the simulator draws the new instance
///   UID and channel key during FACTORY RESET itself (same values, simpler draw order).
public enum KeycardAID {
    /// The Keycard applet instance (`A0 00 00 08 04 00 01 01 01`), docs/keycard-protocol.md §3.
    public static let keycardInstance: [UInt8] = [0xA0, 0x00, 0x00, 0x08, 0x04, 0x00, 0x01, 0x01, 0x01]
    /// The Ident applet instance (`A0 00 00 08 04 00 01 04 01`), docs/keycard-protocol.md §11.
    public static let identInstance: [UInt8] = [0xA0, 0x00, 0x00, 0x08, 0x04, 0x00, 0x01, 0x04, 0x01]
}
