/// Which Keycard command an APDU is, recognised from its header (docs/keycard-protocol.md §10.0).
/// Errors carry it so that every message can name the command the user asked for.
public enum CardCommand: Sendable, Hashable, CustomStringConvertible {
    /// SELECT (`00 A4`, §5).
    case select
    /// INIT (`FE`, §7.2).
    case initialize
    /// PAIR (`12`, §8.1).
    case pair
    /// UNPAIR (`13`, §8.2).
    case unpair
    /// OPEN SECURE CHANNEL (`10`, §9.1).
    case openSecureChannel
    /// MUTUALLY AUTHENTICATE (`11`, §9.3).
    case mutuallyAuthenticate
    /// IDENTIFY (`14`, §11).
    case identify
    /// GET STATUS (`F2`, §10.1).
    case getStatus
    /// VERIFY PIN (`20`, §10.2).
    case verifyPIN
    /// CHANGE PIN P1 `00` (`21`, §10.3).
    case changePIN
    /// CHANGE PIN P1 `01`: the PUK (§10.3).
    case changePUK
    /// CHANGE PIN P1 `02`: the pairing secret (§10.3).
    case changePairingSecret
    /// UNBLOCK PIN (`22`, §10.4).
    case unblockPIN
    /// LOAD KEY (`D0`, §10.5).
    case loadKey
    /// DERIVE KEY (`D1`, §10.6).
    case deriveKey
    /// GENERATE MNEMONIC (`D2`, §10.7).
    case generateMnemonic
    /// REMOVE KEY (`D3`, §10.8).
    case removeKey
    /// GENERATE KEY (`D4`, §10.8).
    case generateKey
    /// SIGN (`C0`, §10.9).
    case sign
    /// SET PINLESS PATH (`C1`, §10.10).
    case setPinlessPath
    /// EXPORT KEY (`C2`, §10.11).
    case exportKey
    /// EXPORT LEE (`C3`, 4.0, §14.9).
    case exportLEE
    /// EXPORT BIP85 (`C4`, 4.0, §14.8).
    case exportBIP85
    /// ECDH (`C5`, 4.0, §14.8).
    case ecdh
    /// GET DATA (`CA`, §10.12).
    case getData
    /// STORE DATA (`E2`, §10.12).
    case storeData
    /// FACTORY RESET (`FD`, §10.13).
    case factoryReset
    /// GET CHALLENGE (`84`, §14.8): random bytes from a 4.0 card.
    case getChallenge
    /// ISO GET RESPONSE (`00 C0`), sent by the channel for `61 XX`.
    case getResponse
    /// Any other instruction (raw APDUs sent by the user, newer applets' commands).
    case other(cla: UInt8, ins: UInt8)

    /// Recognises a command from its CLA, INS and P1.
    public init(_ apdu: CommandAPDU) {
        if apdu.cla == 0x00 {
            switch apdu.ins {
            case 0xA4: self = .select
            case 0xC0: self = .getResponse
            default: self = .other(cla: apdu.cla, ins: apdu.ins)
            }
            return
        }
        switch apdu.ins {
        case 0xA4: self = .select
        case 0xFE: self = .initialize
        case 0x12: self = .pair
        case 0x13: self = .unpair
        case 0x10: self = .openSecureChannel
        case 0x11: self = .mutuallyAuthenticate
        case 0x14: self = .identify
        case 0xF2: self = .getStatus
        case 0x20: self = .verifyPIN
        case 0x21:
            switch apdu.p1 {
            case 0x01: self = .changePUK
            case 0x02: self = .changePairingSecret
            default: self = .changePIN
            }
        case 0x22: self = .unblockPIN
        case 0xD0: self = .loadKey
        case 0xD1: self = .deriveKey
        case 0xD2: self = .generateMnemonic
        case 0xD3: self = .removeKey
        case 0xD4: self = .generateKey
        case 0xC0: self = .sign
        case 0xC1: self = .setPinlessPath
        case 0xC2: self = .exportKey
        case 0xC3: self = .exportLEE
        case 0xC4: self = .exportBIP85
        case 0xC5: self = .ecdh
        case 0xCA: self = .getData
        case 0xE2: self = .storeData
        case 0xFD: self = .factoryReset
        case 0x84: self = .getChallenge
        default: self = .other(cla: apdu.cla, ins: apdu.ins)
        }
    }

    /// The command's name as the Keycard documentation writes it, e.g. `VERIFY PIN`.
    public var name: String {
        switch self {
        case .select: "SELECT"
        case .initialize: "INIT"
        case .pair: "PAIR"
        case .unpair: "UNPAIR"
        case .openSecureChannel: "OPEN SECURE CHANNEL"
        case .mutuallyAuthenticate: "MUTUALLY AUTHENTICATE"
        case .identify: "IDENTIFY"
        case .getStatus: "GET STATUS"
        case .verifyPIN: "VERIFY PIN"
        case .changePIN: "CHANGE PIN"
        case .changePUK: "CHANGE PUK"
        case .changePairingSecret: "CHANGE PAIRING SECRET"
        case .unblockPIN: "UNBLOCK PIN"
        case .loadKey: "LOAD KEY"
        case .deriveKey: "DERIVE KEY"
        case .generateMnemonic: "GENERATE MNEMONIC"
        case .removeKey: "REMOVE KEY"
        case .generateKey: "GENERATE KEY"
        case .sign: "SIGN"
        case .setPinlessPath: "SET PINLESS PATH"
        case .exportKey: "EXPORT KEY"
        case .exportLEE: "EXPORT LEE"
        case .exportBIP85: "EXPORT BIP85"
        case .ecdh: "ECDH"
        case .getData: "GET DATA"
        case .storeData: "STORE DATA"
        case .factoryReset: "FACTORY RESET"
        case .getChallenge: "GET CHALLENGE"
        case .getResponse: "GET RESPONSE"
        case .other(let cla, let ins): "command \(hexByte(cla)) \(hexByte(ins))"
        }
    }

    /// True for commands the applet only runs after VERIFY PIN (§10.0, column "PIN").
    public var needsPIN: Bool {
        switch self {
        case .unpair, .changePIN, .changePUK, .changePairingSecret, .loadKey, .deriveKey, .removeKey,
            .generateKey, .sign, .setPinlessPath, .exportKey, .storeData, .exportBIP85, .ecdh, .exportLEE:
            true
        default:
            false
        }
    }

    public var description: String { name }
}
