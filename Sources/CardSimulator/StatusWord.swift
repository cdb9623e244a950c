/// The ISO 7816 status words the applet produces (docs/keycard-protocol.md §13), and the error a command
/// handler throws to answer with one of them (the applet's `ISOException.throwIt`).
struct CardStatus: Error, Equatable {
    let sw: UInt16

    init(_ sw: UInt16) { self.sw = sw }

    static let ok: UInt16 = 0x9000
    /// Secure channel MAC failure, bad MUTUALLY AUTHENTICATE, wrong PAIR cryptogram.
    static let securityStatusNotSatisfied = CardStatus(0x6982)
    /// BIP32 child derivation produced an invalid key.
    static let dataInvalid = CardStatus(0x6984)
    /// Channel not open, PIN not verified, no key, export policy, …
    static let conditionsNotSatisfied = CardStatus(0x6985)
    static let wrongData = CardStatus(0x6A80)
    /// 4.0 SIGN: an algorithm (P2) the card does not have.
    static let functionNotSupported = CardStatus(0x6A81)
    static let fileNotFound = CardStatus(0x6A82)
    static let fileFull = CardStatus(0x6A84)
    static let incorrectP1P2 = CardStatus(0x6A86)
    static let referencedDataNotFound = CardStatus(0x6A88)
    static let wrongP1P2 = CardStatus(0x6B00)
    static let insNotSupported = CardStatus(0x6D00)
    static let wrongLength = CardStatus(0x6700)
    /// Any exception the applet does not catch itself (the runtime's `SW_UNKNOWN`).
    static let unknown = CardStatus(0x6F00)
    /// A `CryptoException.ILLEGAL_USE` caught by the applet's generic handler (`6F00 | 5`).
    static let cryptoIllegalUse = CardStatus(0x6F05)

    /// `63 CX`: verification failed, X tries left.
    static func triesLeft(_ n: UInt8) -> CardStatus { CardStatus(0x63C0 | UInt16(n & 0x0F)) }

    /// SW1 SW2.
    var bytes: [UInt8] { [UInt8(sw >> 8), UInt8(sw & 0xFF)] }
}
