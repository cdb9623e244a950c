import WalletCrypto

// MARK: - Command APDU

/// One ISO 7816-4 command APDU, short form only (docs/keycard-protocol.md §2: Lc ≤ 255, no
/// extended length, no command chaining).
///
/// The value is not checked when built; `encoded()` refuses data that cannot travel as a
/// short APDU. Secrets (a PIN, a private key) may sit in `data` while the command is being
/// sent; `description` therefore prints only the header and the data length.
public struct CommandAPDU: Sendable, Equatable, CustomStringConvertible {
    /// Class byte: `80` for every Keycard command, `00` for SELECT and the ISO commands (§2).
    public var cla: UInt8
    /// Instruction byte.
    public var ins: UInt8
    /// First parameter byte.
    public var p1: UInt8
    /// Second parameter byte.
    public var p2: UInt8
    /// Command data (Lc is derived from its length; 0 … 255 bytes).
    public var data: [UInt8]
    /// Expected response length; `nil` = no Le byte, `0` = up to 256 bytes.
    public var le: UInt8?

    /// Builds a command. `cla` defaults to the Keycard class `80`.
    public init(cla: UInt8 = 0x80, ins: UInt8, p1: UInt8 = 0, p2: UInt8 = 0, data: [UInt8] = [], le: UInt8? = nil) {
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.data = data
        self.le = le
    }

    /// The wire bytes: `CLA INS P1 P2 [Lc data] [Le]` (ISO 7816-4 §5.1, cases 1–4 short).
    ///
    /// - Throws: `TransportError.invalidCommand` when the data is longer than 255 bytes.
    public func encoded() throws(TransportError) -> [UInt8] {
        guard data.count <= 255 else {
            throw .invalidCommand(detail: "command data is \(data.count) bytes; a short APDU carries at most 255")
        }
        var out: [UInt8] = [cla, ins, p1, p2]
        if !data.isEmpty {
            out.append(UInt8(data.count))
            out += data
        }
        if let le { out.append(le) }
        return out
    }

    /// The four header bytes.
    public var header: [UInt8] { [cla, ins, p1, p2] }

    /// `80 20 00 00 (6 bytes)`: header and data length, never the data.
    public var description: String {
        let head = header.map(hexByte).joined(separator: " ")
        return data.isEmpty ? head : "\(head) (\(data.count) bytes)"
    }
}

// MARK: - Response APDU

/// One response APDU: data followed by the two status bytes.
public struct ResponseAPDU: Sendable, Equatable, CustomStringConvertible {
    /// Response data without the status word.
    public var data: [UInt8]
    /// First status byte.
    public var sw1: UInt8
    /// Second status byte.
    public var sw2: UInt8

    /// Builds a response from its parts.
    public init(data: [UInt8] = [], sw1: UInt8, sw2: UInt8) {
        self.data = data
        self.sw1 = sw1
        self.sw2 = sw2
    }

    /// Builds a response from data and a 16-bit status word.
    public init(data: [UInt8] = [], sw: UInt16) {
        self.init(data: data, sw1: UInt8(sw >> 8), sw2: UInt8(sw & 0xff))
    }

    /// Parses raw response bytes (data ‖ SW1 SW2).
    ///
    /// - Throws: `TransportError.malformedResponse` when fewer than two bytes arrived.
    public init(bytes: [UInt8]) throws(TransportError) {
        guard bytes.count >= 2 else {
            throw .malformedResponse(
                detail: "\(bytes.count) byte\(bytes.count == 1 ? "" : "s") received, "
                    + "a response needs at least the 2-byte status word")
        }
        data = Array(bytes[..<(bytes.count - 2)])
        sw1 = bytes[bytes.count - 2]
        sw2 = bytes[bytes.count - 1]
    }

    /// The status word `SW1 SW2` as one number, e.g. `0x9000`.
    public var sw: UInt16 { UInt16(sw1) << 8 | UInt16(sw2) }

    /// True for `90 00`.
    public var isOK: Bool { sw == StatusWord.ok }

    /// data ‖ SW1 SW2.
    public var bytes: [UInt8] { data + [sw1, sw2] }

    /// `SW 9000 (32 bytes)`: the status word and the data length, never the data.
    public var description: String {
        let s = "SW \(hexByte(sw1))\(hexByte(sw2))"
        return data.isEmpty ? s : "\(s) (\(data.count) bytes)"
    }
}

// MARK: - Status words

/// The status words of docs/keycard-protocol.md §13 (and the T=0 procedure bytes of §2).
public enum StatusWord {
    /// `90 00` success.
    public static let ok: UInt16 = 0x9000
    /// `67 00` wrong length (reader/runtime, not the applet).
    public static let wrongLength: UInt16 = 0x6700
    /// `69 82` security status not satisfied (V1: MAC failure, channel closed).
    public static let securityStatusNotSatisfied: UInt16 = 0x6982
    /// `69 84` data invalid (BIP32 child invalid).
    public static let invalidKey: UInt16 = 0x6984
    /// `69 85` conditions of use not satisfied.
    public static let conditionsNotSatisfied: UInt16 = 0x6985
    /// `6A 80` wrong data.
    public static let wrongData: UInt16 = 0x6A80
    /// `6A 81` function not supported.
    public static let functionNotSupported: UInt16 = 0x6A81
    /// `6A 82` file or application not found.
    public static let notFound: UInt16 = 0x6A82
    /// `6A 84` not enough memory (no free pairing slot).
    public static let noFreePairingSlot: UInt16 = 0x6A84
    /// `6A 86` incorrect P1/P2.
    public static let incorrectP1P2: UInt16 = 0x6A86
    /// `6A 88` referenced data not found.
    public static let referencedDataNotFound: UInt16 = 0x6A88
    /// `6B 00` wrong P1/P2.
    public static let wrongP1P2: UInt16 = 0x6B00
    /// `6D 00` INS not supported.
    public static let insNotSupported: UInt16 = 0x6D00
    /// `6F 00` unknown internal error.
    public static let unknown: UInt16 = 0x6F00
}

/// Two upper-case hex digits.
func hexByte(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 0x0f)]])
}

/// Upper-case hex of a status word, e.g. `6A84`.
func hexSW(_ sw: UInt16) -> String { hexByte(UInt8(sw >> 8)) + hexByte(UInt8(sw & 0xff)) }
