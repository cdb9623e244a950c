/// The NDEF message a Keycard serves to phones (docs/keycard-protocol.md §12.2, §14.11): the
/// card keeps NLEN (2 bytes, big-endian) ‖ message; this is the message and the one record kind
/// kcs writes and reads back by name, a URI (NFC Forum URI record type, a short well-known record
/// `D1 01 LEN 'U' <prefix code> <rest>`). Anything else is kept and shown as bytes.
public enum NDEFMessage {
    /// The URI abbreviations of the URI record type kcs reads and writes (code → prefix).
    static let uriPrefixes: [(code: UInt8, prefix: String)] = [
        (0x01, "http://www."), (0x02, "https://www."), (0x03, "http://"), (0x04, "https://"),
        (0x05, "tel:"), (0x06, "mailto:"),
    ]

    /// The largest URI payload of a short record (one length byte).
    static let shortRecordPayload = 255

    /// A message of one URI record for `uri`, abbreviated with the longest known prefix.
    ///
    /// - Throws: `invalidInput` when the URI is empty or too long for a short record.
    public static func uri(_ uri: String) throws(CardError) -> [UInt8] {
        let prefix = uriPrefixes.filter { uri.hasPrefix($0.prefix) }.max { $0.prefix.count < $1.prefix.count }
        let rest = Array(uri.utf8.dropFirst(prefix?.prefix.utf8.count ?? 0))
        let payload = [prefix?.code ?? 0x00] + rest
        guard !uri.isEmpty, payload.count <= shortRecordPayload else {
            throw .invalidInput(
                command: .storeData,
                reason:
                    "an NDEF URI is 1 to \(shortRecordPayload - 1) bytes after its abbreviated prefix, got \(rest.count)"
            )
        }
        return [0xD1, 0x01, UInt8(payload.count), 0x55] + payload
    }

    /// The URI of a message that is one short URI record, nil for any other message.
    public static func uri(in message: [UInt8]) -> String? {
        guard message.count >= 5, message[0] == 0xD1, message[1] == 0x01, message[3] == 0x55,
            Int(message[2]) == message.count - 4
        else { return nil }
        let code = message[4]
        let prefix = code == 0 ? "" : uriPrefixes.first { $0.code == code }?.prefix
        guard let prefix, let rest = String(validating: message[5...], as: UTF8.self) else { return nil }
        return prefix + rest
    }

    /// The card's NDEF file for `message`: NLEN ‖ message.
    public static func file(_ message: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: message.count >> 8), UInt8(truncatingIfNeeded: message.count)] + message
    }
}
