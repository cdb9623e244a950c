import KCSErrors
import WalletCore
import WalletCrypto

/// The reason a `6F 01` … `6F 05` status word gives: a Java Card `CryptoException`
/// caught by the applet (docs/keycard-protocol.md §13).
public enum CardCryptoReason: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// `6F 01`: illegal value.
    case illegalValue = 1
    /// `6F 02`: uninitialised key.
    case uninitializedKey = 2
    /// `6F 03`: no such algorithm.
    case noSuchAlgorithm = 3
    /// `6F 04`: invalid initialisation.
    case invalidInit = 4
    /// `6F 05`: illegal use.
    case illegalUse = 5

    public var description: String {
        switch self {
        case .illegalValue: "illegal value"
        case .uninitializedKey: "uninitialised key"
        case .noSuchAlgorithm: "no such algorithm"
        case .invalidInit: "invalid initialisation"
        case .illegalUse: "illegal use"
        }
    }
}

/// Every way talking to a Keycard can fail, one enum for the card layer (docs/habits.md §2).
///
/// Status words of docs/keycard-protocol.md §13 become typed cases that carry their facts (the
/// command, the tries left); failures below the APDU level stay `transport(_:)` and are
/// never mistaken for a wrong PIN; the secure channel and the response parsers add their
/// own cases. `description` renders one sentence that names the command and says what it
/// means for the user; `id` is stable for tests and callers. No case carries a secret.
public enum CardError: WalletError, Equatable {
    // MARK: status words (§13)

    /// `63 CX` from VERIFY PIN: X tries left; 0 means the PIN is now blocked.
    case wrongPIN(triesLeft: Int)
    /// `63 CX` from UNBLOCK PIN: X PUK tries left; 0 means the PUK is blocked.
    case wrongPUK(triesLeft: Int)
    /// `69 82`: MAC failure (the card closed the channel) or, for PAIR, a wrong client cryptogram.
    case securityStatusNotSatisfied(command: CardCommand)
    /// `69 85`: channel not open, PIN not verified, no key, export policy, …
    case conditionsNotSatisfied(command: CardCommand)
    /// `6A 80`: bad length or format, invalid point, path too deep, …
    case wrongData(command: CardCommand)
    /// `6A 81`: function not supported (e.g. a SIGN algorithm).
    case functionNotSupported(command: CardCommand)
    /// `6A 82`: the application (or file) is not on the card.
    case notFound(command: CardCommand)
    /// `6A 84` from PAIR: every pairing slot is taken.
    case noFreePairingSlot
    /// `6A 86`: undefined P1/P2, pairing index out of range or empty, …
    case incorrectP1P2(command: CardCommand)
    /// `6A 88`: referenced data not found (SIGN PIN-less without a PIN-less path).
    case referencedDataNotFound(command: CardCommand)
    /// `6B 00`: wrong P1/P2 (undefined SIGN option, derive from the parent of the master).
    case wrongP1P2(command: CardCommand)
    /// `6D 00`: the instruction is not supported in this state or version.
    case insNotSupported(command: CardCommand)
    /// `6F 00`: an internal card error.
    case unknown(command: CardCommand)
    /// `6F 01` … `6F 05`: a crypto exception on the card.
    case crypto(command: CardCommand, reason: CardCryptoReason)
    /// `69 84`: derivation produced an invalid key.
    case invalidKey(command: CardCommand)
    /// `67 00`: the reader or runtime refused the APDU length.
    case wrongLength(command: CardCommand)
    /// Any status word the protocol does not define for this command.
    case unexpected(command: CardCommand, sw: UInt16)

    // MARK: below the APDU

    /// The bytes never made it to the card or back (reader, connection, card removed).
    case transport(TransportError)

    // MARK: secure channel (§9)

    /// The card's response MAC did not verify; the channel is closed.
    case responseMACMismatch(command: CardCommand)
    /// The card answered a protected command with plain `69 82`: it closed its channel.
    case channelClosed(command: CardCommand)
    /// The command needs the secure channel, which is not open on this side.
    case secureChannelNotOpen(command: CardCommand)
    /// Secure Channel V2: the card answered a protected command with a status word other than
    /// `69 82`, or with too few bytes to be sealed (docs/keycard-protocol.md §14.3): the answer is
    /// not protected, so this side closed the channel. `dataCount` is the bytes before the SW.
    case unprotectedAnswer(command: CardCommand, sw: UInt16, dataCount: Int)

    // MARK: responses and handshakes

    /// The response does not have the documented layout.
    case malformedResponse(command: CardCommand, detail: String)
    /// A TLV structure could not be parsed (`offset` into the parsed bytes).
    case malformedTLV(offset: Int, reason: String)
    /// PAIR step 1: the card's cryptogram does not prove it knows the pairing secret.
    case cardCryptogramMismatch
    /// IDENTIFY: the card's identity proof does not verify.
    case identityNotVerified(reason: String)
    /// A 4.0 card's certificate comes from a CA this client does not trust (docs/keycard-protocol.md §14.2).
    case untrustedCertificate(identity: String, ca: String)
    /// A command needing the card's secure-channel key was sent before SELECT.
    case notSelected(command: CardCommand)
    /// The card is blank (pre-initialized) and no INIT parameters were given.
    case notInitialized
    /// No pairing and no pairing secret were given for a card that needs one.
    case pairingRequired
    /// The applet version speaks a protocol this client does not (4.0 = Secure Channel V2).
    case unsupportedVersion(major: UInt8, minor: UInt8)

    // MARK: arguments checked before sending

    /// An argument the client refuses before sending (the reason never quotes a secret).
    case invalidInput(command: CardCommand, reason: String)
    /// Key path text that does not parse.
    case invalidKeyPath(text: String, reason: HDError)
    /// A key path deeper than the 10 levels the card accepts (§2.1).
    case keyPathTooDeep(depth: Int)
    /// Key path bytes whose length is not a multiple of 4.
    case keyPathLength(byteCount: Int)
    /// A client-side cryptographic operation failed.
    case cryptoFailure(WalletCryptoError)
    /// `card.step` was answered `abort` (or Ctrl-C) before `command` left: nothing was sent.
    case stopped(command: CardCommand, interrupted: Bool)

    // MARK: - Status word mapping

    /// The error for status word `sw` answered to `command`, or nil for `90 00`.
    /// `63 CX` means wrong PUK for UNBLOCK PIN and wrong PIN otherwise.
    public static func from(sw: UInt16, command: CardCommand) -> CardError? {
        switch sw {
        case StatusWord.ok: return nil
        case 0x63C0...0x63CF:
            let tries = Int(sw & 0x0f)
            return command == .unblockPIN ? .wrongPUK(triesLeft: tries) : .wrongPIN(triesLeft: tries)
        case StatusWord.wrongLength: return .wrongLength(command: command)
        case StatusWord.securityStatusNotSatisfied: return .securityStatusNotSatisfied(command: command)
        case StatusWord.invalidKey: return .invalidKey(command: command)
        case StatusWord.conditionsNotSatisfied: return .conditionsNotSatisfied(command: command)
        case StatusWord.wrongData: return .wrongData(command: command)
        case StatusWord.functionNotSupported: return .functionNotSupported(command: command)
        case StatusWord.notFound: return .notFound(command: command)
        case StatusWord.noFreePairingSlot:
            return command == .pair ? .noFreePairingSlot : .unexpected(command: command, sw: sw)
        case StatusWord.incorrectP1P2: return .incorrectP1P2(command: command)
        case StatusWord.referencedDataNotFound: return .referencedDataNotFound(command: command)
        case StatusWord.wrongP1P2: return .wrongP1P2(command: command)
        case StatusWord.insNotSupported: return .insNotSupported(command: command)
        case StatusWord.unknown: return .unknown(command: command)
        case 0x6F01...0x6F05:
            return .crypto(command: command, reason: CardCryptoReason(rawValue: UInt8(sw & 0xff))!)
        default: return .unexpected(command: command, sw: sw)
        }
    }

    /// Throws the error for `response`'s status word unless it is `90 00`.
    public static func check(_ response: ResponseAPDU, command: CardCommand) throws(CardError) {
        if let error = from(sw: response.sw, command: command) { throw error }
    }

    /// The status word behind the error, when it came from one.
    public var statusWord: UInt16? {
        switch self {
        case .wrongPIN(let n), .wrongPUK(let n): 0x63C0 | UInt16(n)
        case .securityStatusNotSatisfied, .channelClosed: StatusWord.securityStatusNotSatisfied
        case .conditionsNotSatisfied: StatusWord.conditionsNotSatisfied
        case .wrongData: StatusWord.wrongData
        case .functionNotSupported: StatusWord.functionNotSupported
        case .notFound: StatusWord.notFound
        case .noFreePairingSlot: StatusWord.noFreePairingSlot
        case .incorrectP1P2: StatusWord.incorrectP1P2
        case .referencedDataNotFound: StatusWord.referencedDataNotFound
        case .wrongP1P2: StatusWord.wrongP1P2
        case .insNotSupported: StatusWord.insNotSupported
        case .unknown: StatusWord.unknown
        case .crypto(_, let reason): 0x6F00 | UInt16(reason.rawValue)
        case .invalidKey: StatusWord.invalidKey
        case .wrongLength: StatusWord.wrongLength
        case .unexpected(_, let sw), .unprotectedAnswer(_, let sw, _): sw
        default: nil
        }
    }

    // MARK: - Identity

    /// Stable identifier of the case, e.g. `card.wrongPIN`.
    public var id: String {
        switch self {
        case .wrongPIN: "card.wrongPIN"
        case .wrongPUK: "card.wrongPUK"
        case .securityStatusNotSatisfied: "card.securityStatusNotSatisfied"
        case .conditionsNotSatisfied: "card.conditionsNotSatisfied"
        case .wrongData: "card.wrongData"
        case .functionNotSupported: "card.functionNotSupported"
        case .notFound: "card.notFound"
        case .noFreePairingSlot: "card.noFreePairingSlot"
        case .incorrectP1P2: "card.incorrectP1P2"
        case .referencedDataNotFound: "card.referencedDataNotFound"
        case .wrongP1P2: "card.wrongP1P2"
        case .insNotSupported: "card.insNotSupported"
        case .unknown: "card.unknown"
        case .crypto: "card.crypto"
        case .invalidKey: "card.invalidKey"
        case .wrongLength: "card.wrongLength"
        case .unexpected: "card.unexpectedStatus"
        case .transport(let t): "card.\(t.id)"
        case .responseMACMismatch: "card.responseMACMismatch"
        case .channelClosed: "card.channelClosed"
        case .secureChannelNotOpen: "card.secureChannelNotOpen"
        case .unprotectedAnswer: "card.unprotectedAnswer"
        case .malformedResponse: "card.malformedResponse"
        case .malformedTLV: "card.malformedTLV"
        case .cardCryptogramMismatch: "card.cardCryptogramMismatch"
        case .identityNotVerified: "card.identityNotVerified"
        case .untrustedCertificate: "card.untrustedCertificate"
        case .notSelected: "card.notSelected"
        case .notInitialized: "card.notInitialized"
        case .pairingRequired: "card.pairingRequired"
        case .unsupportedVersion: "card.unsupportedVersion"
        case .invalidInput: "card.invalidInput"
        case .invalidKeyPath: "card.invalidKeyPath"
        case .keyPathTooDeep: "card.keyPathTooDeep"
        case .keyPathLength: "card.keyPathLength"
        case .cryptoFailure: "card.cryptoFailure"
        case .stopped: "card.stopped"
        }
    }

    // MARK: - Rendering

    private static let reopen = "select the card again, open the secure channel and verify the PIN"

    /// One sentence: the command, what the card said, and what it means for the user.
    public var description: String {
        switch self {
        case .wrongPIN(let n):
            n == 0
                ? "wrong PIN: no tries left, the PIN is blocked; unblock it with the PUK"
                : "wrong PIN: \(tries(n)) left"
        case .wrongPUK(let n):
            n == 0
                ? "wrong PUK: no tries left, the PUK is blocked; only a factory reset makes the card usable again"
                : "wrong PUK: \(tries(n)) left"
        case .noFreePairingSlot:
            "no free pairing slot: unpair a slot from a paired client or factory-reset the card"
        case .securityStatusNotSatisfied(let c), .conditionsNotSatisfied(let c), .wrongData(let c),
            .functionNotSupported(let c), .notFound(let c), .incorrectP1P2(let c), .referencedDataNotFound(let c),
            .wrongP1P2(let c), .insNotSupported(let c), .unknown(let c), .invalidKey(let c), .wrongLength(let c),
            .crypto(let c, _), .unexpected(let c, _):
            "\(c.name) failed (SW \(hexSW(statusWord ?? 0))): \(meaning(for: c))"
        case .transport(let t):
            t.description
        case .responseMACMismatch(let c):
            "\(c.name): the card's response failed the secure-channel MAC check, so it was not accepted and the "
                + "channel is closed; \(Self.reopen)"
        case .channelClosed(let c):
            c == .mutuallyAuthenticate
                ? "MUTUALLY AUTHENTICATE: the card refused the handshake (SW 6982): this pairing's key no longer "
                    + "matches the card's slot (it was unpaired or re-used); pair again"
                : "\(c.name): the card closed the secure channel (SW 6982, its MAC check failed); \(Self.reopen)"
        case .secureChannelNotOpen(let c):
            "\(c.name) needs the secure channel, which is not open; open it (and verify the PIN) first"
        case .unprotectedAnswer(let c, let sw, let count):
            "\(c.name): the card answered SW \(hexSW(sw)) (\(Self.plainMeaning(sw, command: c, dataCount: count))) "
                + "outside the secure channel\(count == 0 ? "" : " with \(count == 1 ? "1 byte" : "\(count) bytes") and no tag"); "
                + "nothing of it was accepted and the channel is closed; \(Self.reopen)"
        case .malformedResponse(let c, let detail):
            "\(c.name): the card's response is malformed: \(detail)"
        case .malformedTLV(let offset, let reason):
            "malformed TLV at byte \(offset): \(reason)"
        case .cardCryptogramMismatch:
            "PAIR: the card's cryptogram does not match the pairing secret; the pairing password is wrong "
                + "(or this is not the card you think)"
        case .identityNotVerified(let reason):
            "the card's identity could not be verified: \(reason)"
        case .untrustedCertificate(let identity, let ca):
            "the card's certificate (identity \(identity)) was issued by CA \(ca), which is neither the Keycard production "
                + "nor the test CA: kcs cannot tell this card from an impostor, so it opens no channel to it. "
                + "Trust its identity key only if you know where the card comes from (card.trust)"
        case .notSelected(let c):
            "\(c.name) needs the card's secure-channel key from SELECT; select the applet first"
        case .notInitialized:
            "the card is not initialized: give a PIN, a PUK and a pairing password to initialize it"
        case .pairingRequired:
            "the card is not paired with this client: give the pairing password (or a stored pairing)"
        case .unsupportedVersion(let major, let minor):
            "applet version \(major).\(minor) is not one this client speaks"
        case .invalidInput(let c, let reason):
            "\(c.name): \(reason)"
        case .invalidKeyPath(let text, let reason):
            "key path \"\(text)\" is invalid: \(reason)"
        case .keyPathTooDeep(let depth):
            "key path must have at most 10 levels, got \(depth)"
        case .keyPathLength(let count):
            "key path bytes must be a multiple of 4, got \(count) byte\(count == 1 ? "" : "s")"
        case .cryptoFailure(let e):
            "client-side cryptography failed: \(e.description)"
        case .stopped(let c, _):
            "stopped before \(c.name) was sent (card.step): nothing reached the card"
        }
    }

    /// What a status word answered outside a Secure Channel V2 session means (§14.3): `69 85`
    /// there is the card's "no session"; `90 00` with fewer bytes than a tag cannot be a sealed
    /// answer; any other word means what it means for the command (§13).
    private static func plainMeaning(_ sw: UInt16, command c: CardCommand, dataCount: Int) -> String {
        switch sw {
        case StatusWord.conditionsNotSatisfied:
            return "conditions not satisfied: the card has no secure-channel session, as after a reset or a SELECT"
        case StatusWord.ok:
            return
                "success, but a sealed answer is at least its 8-byte tag and a status word, 10 bytes, and this has \(dataCount)"
        default:
            return from(sw: sw, command: c)?.meaning(for: c) ?? ""
        }
    }

    private func tries(_ n: Int) -> String { n == 1 ? "1 try" : "\(n) tries" }

    /// What a status word means for the command it answered (§10 check orders, §13).
    private func meaning(for c: CardCommand) -> String {
        switch self {
        case .securityStatusNotSatisfied:
            switch c {
            case .pair: return "the card refused our cryptogram: the pairing secret does not match"
            case .mutuallyAuthenticate:
                return "the card refused the handshake and closed the secure channel; open it again"
            default: return "the card's MAC check failed and it closed the secure channel; \(Self.reopen)"
            }
        case .conditionsNotSatisfied:
            switch c {
            case .pair: return "a secure channel is open; PAIR works only without one"
            case .mutuallyAuthenticate: return "no OPEN SECURE CHANNEL came before it, or the channel is already open"
            case .unblockPIN: return "the PIN is not blocked, so there is nothing to unblock"
            case .identify: return "the card has no identity certificate"
            case .exportKey:
                return "the PIN is not verified, no key is loaded, or the path may not be exported "
                    + "(private keys only under m/43'/60'/1581', extended public keys only outside it)"
            case .deriveKey: return "the PIN is not verified, or the loaded key is not an extended key"
            case .sign: return "the PIN is not verified, or no key is loaded"
            case .getStatus, .verifyPIN, .generateMnemonic, .getData:
                return "the secure channel is not open on the card; \(Self.reopen)"
            default:
                return c.needsPIN
                    ? "the PIN is not verified (or the secure channel is not open); verify the PIN first"
                    : "the card is not in a state that allows it"
            }
        case .wrongData:
            switch c {
            case .verifyPIN, .changePIN: return "the PIN must be 6 digits"
            case .changePUK: return "the PUK must be 12 digits"
            case .unblockPIN: return "the PUK must be 12 digits and the new PIN 6 digits"
            case .initialize:
                return "the card refused the PIN, PUK or retry limits (PIN tries 2–10, PUK tries 3–12), or our key"
            case .pair, .identify, .mutuallyAuthenticate: return "the challenge must be 32 bytes"
            case .openSecureChannel: return "the card refused our public key"
            case .loadKey: return "the card refused the key (bad TLV, wrong length, or an invalid key)"
            case .deriveKey, .sign, .exportKey, .setPinlessPath:
                return "the data or key path is invalid (not a multiple of 4 bytes, or deeper than 10 levels)"
            case .storeData: return "the data is too long for this slot"
            default: return "the card refused the data (wrong length or format)"
            }
        case .functionNotSupported:
            return "this applet does not support the requested function (for SIGN: the algorithm)"
        case .notFound:
            return c == .select
                ? "the Keycard applet is not installed on this card"
                : "the file or application is not on the card"
        case .incorrectP1P2:
            switch c {
            case .openSecureChannel, .unpair:
                return "the pairing slot is empty or out of range: this pairing was removed; pair again"
            case .pair: return "PAIR step 2 came without a pending step 1"
            case .factoryReset: return "the reset magic AA 55 is missing"
            case .generateMnemonic: return "the checksum size must be 4 to 8 bits (12 to 24 words)"
            default: return "the card does not accept these parameters (P1/P2)"
            }
        case .referencedDataNotFound:
            return c == .sign ? "no PIN-less path is set on the card" : "the referenced data is not on the card"
        case .wrongP1P2:
            switch c {
            case .sign: return "the signing option is not defined"
            case .deriveKey, .exportKey: return "cannot derive from the parent of the master key"
            default: return "the card does not accept these parameters (P1/P2)"
            }
        case .insNotSupported:
            switch c {
            case .initialize: return "the card is already initialized"
            case .factoryReset: return "the card is blank (pre-initialized) or older than applet 3.1"
            default:
                return "the applet does not support this command now: the card may be blank (not initialized) "
                    + "or its applet version too old"
            }
        case .unknown:
            switch c {
            case .openSecureChannel, .unpair: return "an internal card error (a pairing index of 0x80 or more?)"
            case .initialize: return "an internal card error (the INIT payload did not decrypt)"
            default: return "an internal card error"
            }
        case .crypto(_, let reason):
            return "a cryptographic error on the card (\(reason))"
        case .invalidKey:
            return "key derivation produced an invalid key; use another index"
        case .wrongLength:
            return "the reader or card refused the APDU length"
        case .unexpected:
            return "the card answered with a status word this command does not define"
        default:
            return ""
        }
    }
}

extension CardError {
    /// A wrong PIN or PUK is its own exit; a failure below the APDU is the transport's; every
    /// other card error is a card error.
    public var exitClass: ExitClass {
        switch self {
        case .wrongPIN, .wrongPUK: .wrongPIN
        case .transport(let t): t.exitClass
        case .stopped(_, let interrupted): interrupted ? .interrupted : .cancelled
        default: .cardError
        }
    }
}
