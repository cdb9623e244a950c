/// A short command APDU as the Java Card runtime hands it to the applet (ISO 7816-4 cases 1–4;
/// extended length is not supported, docs/keycard-protocol.md §2).
struct CommandAPDU {
    let cla: UInt8
    let ins: UInt8
    let p1: UInt8
    let p2: UInt8
    /// The command data field (Lc bytes).
    let data: [UInt8]

    /// A command from its fields (a 4.0 inner APDU, already decrypted).
    init(cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8]) {
        (self.cla, self.ins, self.p1, self.p2, self.data) = (cla, ins, p1, p2, data)
    }

    /// Parses `bytes`; nil when they are not a well-formed short APDU (the runtime answers `6700`).
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 4 else { return nil }
        cla = bytes[0]
        ins = bytes[1]
        p1 = bytes[2]
        p2 = bytes[3]
        switch bytes.count {
        case 4, 5:
            data = []  // case 1, or case 2 (the fifth byte is Le)
        default:
            let lc = Int(bytes[4])
            guard lc > 0 else { return nil }  // 00 followed by more bytes would be extended length
            guard bytes.count == 5 + lc || bytes.count == 6 + lc else { return nil }
            data = Array(bytes[5..<5 + lc])
        }
    }

    /// The five header bytes `CLA INS P1 P2 Lc` as they enter the secure-channel MAC.
    var header: [UInt8] { [cla, ins, p1, p2, UInt8(data.count)] }

    /// SELECT by DF name (AID): `00 A4 04 xx`.
    var isSelectByAID: Bool { cla == 0x00 && ins == 0xA4 && p1 == 0x04 }
}
