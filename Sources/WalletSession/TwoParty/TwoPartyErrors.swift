// Two-party keys (docs/two-party.md): what the co-signer may do, and the errors above the protocol.
import Foundation
import KCSErrors
import MPCLink
import WalletCore
import WalletCrypto
import WalletMPC
import WalletStore

/// What the co-signer does with a request to sign.
public enum TwoPartyApproval: String, Sendable, CaseIterable {
    /// Shows what it is asked to sign and asks (a person at the co-signer's terminal).
    case ask
    /// Signs unattended (tests, scripts): every request is still shown and recorded.
    case all
}

/// Errors of two-party keys above the protocol.
public enum TwoPartyError: WalletError, Equatable {
    case noCosigner
    case unknownCosigner(name: String, known: [String])
    case notTwoParty(name: String)
    case locked(name: String, reason: String)
    /// The co-signer failed a check of the protocol before; a batch run cannot ask whether to sign with it.
    case peerMisbehaved(name: String, check: String)
    case unpairedPeer(fingerprint: String)
    case fingerprintsRejected
    case nameTaken(name: String, fingerprint: String)
    case noWholeKey(name: String)

    public var id: String {
        switch self {
        case .noCosigner: "mpc.noCosigner"
        case .unknownCosigner: "mpc.unknownCosigner"
        case .notTwoParty: "mpc.notTwoParty"
        case .locked: "mpc.keyLocked"
        case .peerMisbehaved: "mpc.peerMisbehaved"
        case .unpairedPeer: "mpc.unpairedPeer"
        case .fingerprintsRejected: "mpc.fingerprintsRejected"
        case .nameTaken: "mpc.nameTaken"
        case .noWholeKey: "mpc.noWholeKey"
        }
    }

    public var description: String {
        switch self {
        case .noCosigner: "no co-signer is paired: run mpc.pair HOST:PORT --name NAME first"
        case .unknownCosigner(let name, let known):
            "no co-signer is called \(name)"
                + (known.isEmpty ? "; run mpc.pair first" : " (paired: \(known.joined(separator: ", ")))")
        case .notTwoParty(let name): "\(name) is not a two-party key"
        case .locked(let name, let reason) where reason == "made-in-interrupted-session":
            "\(name) is locked (\(reason)): this co-signer stored its share in a session its process did not finish, so the "
                + "console may never have received the key; mpc.unlock \(name) once the console's owner has it"
        case .locked(let name, let reason):
            "\(name) is locked (\(reason)): a signature failed its check after the co-signer's proof passed; see mpc.status"
        case .peerMisbehaved(let name, let check):
            "the co-signer \(name) failed a check of the protocol (\(check)) and a batch run does not sign with it: "
                + "confirm at the console's prompt, or pair with it again (mpc.pair) once you trust it; nothing was sent"
        case .unpairedPeer(let fingerprint): "a peer with identity \(fingerprint) is not paired with this home"
        case .fingerprintsRejected: "the fingerprints were not confirmed; nothing was stored"
        case .nameTaken(let name, let fingerprint):
            "the name \(name) is already the co-signer \(fingerprint), and its keys are bound to it: pair this one under another --name"
        case .noWholeKey(let name):
            "\(name) is a two-party key: no machine holds its private key, so there is none to show or export; it signs with its co-signer"
        }
    }
}
