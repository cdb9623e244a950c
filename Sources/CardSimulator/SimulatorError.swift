import KCSErrors
import WalletCore

/// Everything that can go wrong around a simulated card (never an APDU-level answer: those are status
/// words). Cases carry facts; the text is written once, in `description`; `id` is stable (docs/habits.md §2).
public enum SimulatorError: WalletError, Equatable {
    /// A card name that cannot be a file name: 1–64 characters from `A–Z a–z 0–9 . _ -`, not starting
    /// with `.` or `-`.
    case invalidCardName(name: String)
    /// `create` was asked for a name whose state file already exists.
    case cardExists(name: String, path: String)
    /// `open(creating: false)` found no state file.
    case cardNotFound(name: String, path: String)
    /// The cards directory cannot be created or is not a directory.
    case directoryUnusable(path: String, reason: String)
    /// The state file cannot be read or does not hold a card (`reason` says which).
    case stateUnreadable(path: String, reason: String)
    /// The state file could not be replaced (the old file is intact, except for `.syncDirectoryFailed`).
    case stateWriteFailed(path: String, reason: String)
    /// The identity is provisioned once, like on a real card.
    case identityAlreadyProvisioned
    /// A certificate that is not 98 bytes, or an identity key that is not a secp256k1 scalar.
    case invalidIdentity

    /// Stable identifier, e.g. `simulator.cardNotFound`.
    public var id: String {
        switch self {
        case .invalidCardName: "simulator.invalidCardName"
        case .cardExists: "simulator.cardExists"
        case .cardNotFound: "simulator.cardNotFound"
        case .directoryUnusable: "simulator.directoryUnusable"
        case .stateUnreadable: "simulator.stateUnreadable"
        case .stateWriteFailed: "simulator.stateWriteFailed"
        case .identityAlreadyProvisioned: "simulator.identityAlreadyProvisioned"
        case .invalidIdentity: "simulator.invalidIdentity"
        }
    }

    public var description: String {
        switch self {
        case .invalidCardName(let name):
            "simulated card name \"\(name)\" is not valid: use 1 to 64 letters, digits, '.', '_' or '-', "
                + "not starting with '.' or '-'"
        case .cardExists(let name, let path):
            "a simulated card named \"\(name)\" already exists (\(path))"
        case .cardNotFound(let name, let path):
            "no simulated card named \"\(name)\" (\(path) does not exist)"
        case .directoryUnusable(let path, let reason):
            "cannot use \(path) for simulated cards: \(reason)"
        case .stateUnreadable(let path, let reason):
            "cannot read the simulated card state \(path): \(reason)"
        case .stateWriteFailed(let path, let reason):
            "cannot save the simulated card state \(path): \(reason)"
        case .identityAlreadyProvisioned:
            "the simulated card already has an identity certificate"
        case .invalidIdentity:
            "an identity needs a 98-byte certificate and a valid 32-byte secp256k1 private key"
        }
    }
}

extension SimulatorError {
    /// A simulated card that cannot be found, made or kept fails as a card does.
    public var exitClass: ExitClass { .cardError }
}
