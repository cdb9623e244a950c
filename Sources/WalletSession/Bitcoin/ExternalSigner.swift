import CardProtocol
import CardSimulator
import Foundation
import WalletCore
import WalletCrypto

// Bitcoin Core's external signer (`bitcoind -signer="kcs hwi"`, docs/bitcoin.md, "Bitcoin
// Core"): which keys serve is configured once, in `$KCS_HOME/hwi.json` — a stored key, or a card
// with a PIN file — because the PSBT comes on standard input and no PIN or passphrase ever does.
// These are the typed operations; `kcs hwi` (Sources/kcs/HWICommand.swift) speaks HWI's JSON.

/// `$KCS_HOME/hwi.json`: `{"key": "NAME"}`, or `{"card": "sim:NAME" | "reader" | "reader:QUERY",
/// "pin-file": PATH, "pairing-file": PATH}` (the pairing password of a 3.1 card not yet paired
/// with this home; a 4.0 card has none).
public struct ExternalSignerConfiguration: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case key(String)
        case card(medium: String, pinFile: String, pairingFile: String?)
    }

    public let source: Source

    public static let fileName = "hwi.json"

    public init(json: [UInt8], file: String) throws {
        guard let map = (try? JSONText.parse(json)) as? [String: Any] else {
            throw ExternalSignerError.configuration(file: file, reason: "not a JSON object")
        }
        if let name = map["key"] as? String, !name.isEmpty {
            source = .key(name)
        } else if let medium = map["card"] as? String {
            guard let pin = map["pin-file"] as? String else {
                throw ExternalSignerError.configuration(
                    file: file, reason: "\"card\" needs \"pin-file\": the PIN never comes from standard input")
            }
            source = .card(medium: medium, pinFile: pin, pairingFile: map["pairing-file"] as? String)
        } else {
            throw ExternalSignerError.configuration(
                file: file, reason: "expected {\"key\": NAME} or {\"card\": …, \"pin-file\": PATH}")
        }
    }
}

public enum ExternalSignerError: WalletError, Equatable {
    case notConfigured(file: String)
    case configuration(file: String, reason: String)
    case unreadableSecret(file: String)
    case otherFingerprint(given: String, ours: String)
    case notOurs(String)

    public var id: String {
        switch self {
        case .notConfigured: "hwi.notConfigured"
        case .configuration: "hwi.configuration"
        case .unreadableSecret: "hwi.unreadableSecret"
        case .otherFingerprint: "hwi.otherFingerprint"
        case .notOurs: "hwi.notOurs"
        }
    }

    public var description: String {
        switch self {
        case .notConfigured(let file):
            "no signer is configured: write \(file) with {\"key\": \"NAME\"} or {\"card\": \"reader\", \"pin-file\": \"PATH\"}"
        case .configuration(let file, let reason): "\(file): \(reason)"
        case .unreadableSecret(let file): "cannot read \(file) (the PIN or pairing password, its first line)"
        case .otherFingerprint(let given, let ours): "no signer with fingerprint \(given) (this one is \(ours))"
        case .notOurs(let what): what
        }
    }
}

extension Session {
    /// The configured signer's keys (the card connected and logged in with the PIN file).
    public func externalSignerKeys() throws -> BitcoinKeyChoice {
        let file = ((home ?? ".") as NSString).appendingPathComponent(ExternalSignerConfiguration.fileName)
        guard case .bytes(let json) = BoundedFile.read(file, maximumBytes: 64 << 10) else {
            throw ExternalSignerError.notConfigured(file: file)
        }
        switch try ExternalSignerConfiguration(json: json, file: file).source {
        case .key(let name): return .stored(name)
        case .card(let medium, let pinFile, let pairingFile):
            return .stored(try loginCard(medium: medium, pinFile: pinFile, pairingFile: pairingFile, configuredIn: file))
        }
    }

    /// Connects the card `medium` names (`sim:NAME`, `reader`, `reader:QUERY`), logs in with the
    /// PIN in `pinFile` (and a 3.1 card's pairing password in `pairingFile`), and answers the name
    /// of its current key's record: the signers that run without a person typing a PIN — `kcs
    /// hwi` and `kcs signer serve --card`. `configuredIn` names where the medium was given.
    public func loginCard(medium: String, pinFile: String, pairingFile: String?, configuredIn file: String) throws
        -> String
    {
        let choice: CardMediumChoice
        if medium.hasPrefix("sim:") {
            choice = .simulator(name: String(medium.dropFirst(4)))
        } else if medium == "reader" || medium.hasPrefix("reader:") {
            choice = .reader(query: medium.hasPrefix("reader:") ? String(medium.dropFirst(7)) : nil, timeout: 5)
        } else {
            throw ExternalSignerError.configuration(file: file, reason: "\"card\" is sim:NAME, reader or reader:QUERY")
        }
        _ = try connectCard(choice)
        let pin = try Self.firstLine(of: pinFile)
        let pairing = try pairingFile.map { try Self.firstLine(of: $0) }
        _ = try login(
            pin: pin,
            CardLoginRequest {
                PairingSecret(
                    password: pairing.map { String(decoding: $0.withUnsafeBytes { Array($0) }, as: UTF8.self) }
                        ?? PairingSecret.defaultPassword)
            })
        guard let record = try cardKeys(of: requireLoggedIn()).last else {
            throw ExternalSignerError.notOurs(
                "the card's key is not recorded in this home (card.load or card.login at the console first)")
        }
        return record.name
    }

    static func firstLine(of file: String) throws -> Secret {
        guard case .bytes(var bytes) = BoundedFile.read(file, maximumBytes: 4096) else {
            throw ExternalSignerError.unreadableSecret(file: file)
        }
        if let end = bytes.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) { bytes.removeSubrange(end...) }
        return Secret(consuming: &bytes)
    }

    /// The configured signer: its wallet, fingerprint (8 lower-case hex digits) and a model name.
    public func externalSigner(
        fingerprint expected: String?
    ) throws -> (keys: BitcoinKeyChoice, fingerprint: String, model: String) {
        let keys = try externalSignerKeys()
        let wallet = try bitcoinWallet(keys)
        guard let fp = wallet.fingerprint else {
            throw ExternalSignerError.notOurs("the configured key \(wallet.keyName) is a single key, not an HD wallet")
        }
        let text = String(format: "%08x", fp)
        if let expected, expected.lowercased() != text {
            throw ExternalSignerError.otherFingerprint(given: expected, ours: text)
        }
        let model = wallet.device.hasPrefix("the Keycard") ? "keycard" : "kcs software key"
        return (keys, text, model)
    }

    /// `displayaddress --desc D`: the descriptor's first address, once every key in it with this
    /// wallet's fingerprint is checked to be this wallet's (and at least one is).
    public func externalSignerAddress(
        _ descriptor: String, keys: BitcoinKeyChoice, chain: BitcoinChain
    ) throws -> String {
        let d = try Descriptor(descriptor)
        guard try checkDescriptor(d, keys: keys) > 0 else {
            throw ExternalSignerError.notOurs("no key of the descriptor carries this signer's fingerprint")
        }
        guard let address = chain.network.address(of: try d.script(index: 0)) else {
            throw ExternalSignerError.notOurs("the descriptor's script has no address")
        }
        return address
    }
}
