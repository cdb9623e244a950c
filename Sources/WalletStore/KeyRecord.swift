// The key records of the store: what a key is (kind), where its secret lives (storage),
// how it came to be (source), and the row a caller gets back. Secrets never live in
// these types; they travel separately as `KeySecret`. Schema: docs/store.md.
import Foundation
import WalletCore
import WalletCrypto

// MARK: - Kinds, sources, storage

/// The five kinds of key the dashboard shows (docs/store.md).
public enum KeyKind: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// A single secp256k1 private key (imported raw, from WIF or from a keystore file).
    case ecdsa = "ECDSA"
    /// A BIP-39 mnemonic or a raw BIP-32 seed: the root of derived keys.
    case hdMaster = "HD-MASTER"
    /// A key derived under an `HD-MASTER`; stores the path and the parent, never a secret.
    case hdChild = "HD-CHILD"
    /// A key held by a Keycard; the store keeps only public data.
    case card = "CARD"
    /// A watch-only key: an address or an extended public key, no secret at all.
    case watch = "WATCH"

    /// The tag shown in listings, e.g. `HD-MASTER`.
    public var description: String { rawValue }

    /// The tag with its article, for messages: `an ECDSA`, `a WATCH`.
    public var withArticle: String {
        switch self {
        case .ecdsa, .hdMaster, .hdChild: "an \(rawValue)"
        case .card, .watch: "a \(rawValue)"
        }
    }

    /// The word that starts a default key name (see `KeyNaming`).
    var namePrefix: String {
        switch self {
        case .ecdsa: "ecdsa"
        case .hdMaster: "hd"
        case .hdChild: "hd"
        case .card: "card"
        case .watch: "watch"
        }
    }
}

/// How a key entered the store (one of the five ways of docs/store.md, "Keys", plus the card).
public enum KeySource: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Generated here from the CSPRNG (`key.generate`).
    case generated
    /// Imported from a mnemonic the user typed (`import mnemonic`).
    case mnemonic
    /// Imported from a raw private key or WIF (`import privkey`).
    case privkey
    /// Loaded from a keystore V3 file (`keystore load`).
    case keystore
    /// Watch-only from an extended public key (`import xpub`).
    case xpub
    /// Watch-only from an address (`import address`).
    case address
    /// Read from a Keycard.
    case card
    /// Made by a two-party key generation with a co-signer (`key.generate --two-party`).
    case dkg

    public var description: String { rawValue }

    /// Sources whose secret has existed outside kcs in raw form: a rotation policy reason.
    public var isRawImport: Bool { self == .privkey || self == .keystore }
}

/// Where a key's secret lives. Stored as text: `software`, `card:<instance UID hex>`, `watch`.
public enum KeyStorage: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The secret is sealed in this store (or, for `HD-CHILD`, derivable from its parent).
    case software
    /// The secret stays on the Keycard with this instance UID (lower-case hex).
    case card(instanceUID: String)
    /// There is no secret (watch-only, or a retired key whose secret was wiped).
    case watch
    /// A two-party key: this home holds one share (sealed as `mpc-share`), the paired
    /// co-signer (or console) named here the other; neither ever holds the key.
    case twoParty(peer: String)

    /// The text stored in the `storage` column.
    public var rawValue: String {
        switch self {
        case .software: "software"
        case .card(let uid): "card:" + uid
        case .watch: "watch"
        case .twoParty(let peer): "2p:" + peer
        }
    }

    /// Parses the `storage` column; nil for anything else.
    public init?(rawValue: String) {
        switch rawValue {
        case "software": self = .software
        case "watch": self = .watch
        case _ where rawValue.hasPrefix("2p:"):
            let peer = String(rawValue.dropFirst(3))
            guard !peer.isEmpty, peer.count <= 64 else { return nil }
            self = .twoParty(peer: peer)
        default:
            guard rawValue.hasPrefix("card:") else { return nil }
            let uid = String(rawValue.dropFirst(5))
            guard !uid.isEmpty, uid.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
            self = .card(instanceUID: uid)
        }
    }

    /// Card storage for the given instance UID bytes.
    public static func card(instanceUID bytes: [UInt8]) -> KeyStorage { .card(instanceUID: Hex.encode(bytes)) }

    public var description: String { rawValue }

    /// Decodes the text form (`software`, `card:<uid>`, `watch`).
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = KeyStorage(rawValue: text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "not a key storage: \(text)"))
        }
        self = value
    }

    /// Encodes the text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// Why a user flagged a key for rotation.
public enum RotationFlag: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// The user asked for a rotation.
    case user
    /// The secret is known (or feared) to be exposed.
    case exposed

    public var description: String { rawValue }
}

// MARK: - Secrets

/// What a sealed secret is: the payload kind decides how it is used after unsealing.
public enum SecretKind: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// The UTF-8 text of a BIP-39 mnemonic phrase (with an optional BIP-39 passphrase beside it).
    case mnemonic
    /// A raw BIP-32 seed (16–64 bytes).
    case seed
    /// A 32-byte secp256k1 private key.
    case privkey
    /// One party's share of a two-party key (docs/two-party.md, "Storage").
    case mpcShare = "mpc-share"

    public var description: String { rawValue }
}

/// A key's secret on its way into or out of the vault. Never printed, never `Codable`.
public struct KeySecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What `payload` holds.
    public let kind: SecretKind
    /// The secret bytes: mnemonic text (UTF-8), seed, or private key.
    public let payload: Secret
    /// The BIP-39 passphrase (the "25th word") for a mnemonic, sealed separately; nil when none.
    public let passphrase: Secret?

    /// A secret of `kind`. A passphrase is only meaningful for a mnemonic.
    public init(kind: SecretKind, payload: Secret, passphrase: Secret? = nil) {
        self.kind = kind
        self.payload = payload
        self.passphrase = passphrase
    }

    /// A mnemonic: its phrase as UTF-8 and the optional BIP-39 passphrase.
    public static func mnemonic(_ phrase: Secret, passphrase: Secret? = nil) -> KeySecret {
        KeySecret(kind: .mnemonic, payload: phrase, passphrase: passphrase)
    }

    /// A raw BIP-32 seed.
    public static func seed(_ seed: Secret) -> KeySecret { KeySecret(kind: .seed, payload: seed) }

    /// A 32-byte private key.
    public static func privateKey(_ key: Secret) -> KeySecret { KeySecret(kind: .privkey, payload: key) }

    /// `<key secret: mnemonic>`; the bytes never print.
    public var description: String { "<key secret: \(kind)\(passphrase == nil ? "" : " + passphrase")>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

// MARK: - New keys and stored keys

/// Everything needed to add a key, except the secret (passed beside it).
///
/// The store validates the combination (see `WalletStore.addKey`): `kind` decides which
/// `storage` is allowed, `HD-CHILD` needs `parentID` and `path`, and only `ECDSA` and
/// `HD-MASTER` keys may carry a secret.
public struct NewKey: Sendable, Hashable {
    /// The unique name; nil picks a default from kind and address (see `KeyNaming`).
    public var name: String?
    /// The kind of key.
    public var kind: KeyKind
    /// How the key was created or imported.
    public var source: KeySource
    /// Where the secret lives; nil means the usual storage for `kind`
    /// (`software` for ECDSA and HD keys, `watch` for WATCH; CARD must say which card).
    public var storage: KeyStorage?
    /// The public key, 33 bytes compressed (65-byte uncompressed input is compressed on insert).
    public var publicKey: PublicKey?
    /// The address shown in listings (EIP-55 for Ethereum, or a Bitcoin address for BIP-49/84/86 presets).
    public var address: String?
    /// The derivation path (HD-CHILD, or a card key's current path).
    public var path: DerivationPath?
    /// The HD-MASTER this HD-CHILD derives from.
    public var parentID: Int64?
    /// The path preset the key was created under (`metamask`, `ledger-live`, …, `custom`).
    public var preset: String?
    /// A serialised extended public key (xpub/ypub/zpub…), for watch-only HD keys and masters.
    public var extendedPublicKey: String?
    /// The creation time; nil means the transaction's clock.
    public var createdAt: Date?

    /// A key description; every field except `kind` and `source` is optional.
    public init(
        name: String? = nil, kind: KeyKind, source: KeySource, storage: KeyStorage? = nil,
        publicKey: PublicKey? = nil, address: String? = nil, path: DerivationPath? = nil,
        parentID: Int64? = nil, preset: String? = nil, extendedPublicKey: String? = nil,
        createdAt: Date? = nil
    ) {
        self.name = name
        self.kind = kind
        self.source = source
        self.storage = storage
        self.publicKey = publicKey
        self.address = address
        self.path = path
        self.parentID = parentID
        self.preset = preset
        self.extendedPublicKey = extendedPublicKey
        self.createdAt = createdAt
    }
}

/// One row of the `keys` table, as the dashboard shows it. Contains no secret.
public struct KeyRecord: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The row id; stable for the life of the key, and the associated data of its sealed secret.
    public let id: Int64
    /// The unique name (case-insensitively unique).
    public let name: String
    /// The kind tag.
    public let kind: KeyKind
    /// The 1-based position in the list; positions are always 1…n without gaps.
    public let position: Int
    /// When the key was added.
    public let createdAt: Date
    /// The compressed public key (33 bytes), if known.
    public let publicKey: [UInt8]?
    /// The address, if known.
    public let address: String?
    /// The derivation path, if any.
    public let path: DerivationPath?
    /// The parent HD-MASTER of an HD-CHILD.
    public let parentID: Int64?
    /// Where the secret lives.
    public let storage: KeyStorage
    /// The path preset name, if any.
    public let preset: String?
    /// How the key entered the store.
    public let source: KeySource
    /// A serialised extended public key, if any.
    public let extendedPublicKey: String?
    /// When the secret was last shown to the user (nil: never revealed).
    public let revealedAt: Date?
    /// Set when the user flagged the key for rotation.
    public let rotationFlag: RotationFlag?
    /// True once the key was retired (its secret wiped; kept as a watch-only entry).
    public let retired: Bool
    /// The key that replaced this one in a completed rotation.
    public let successorID: Int64?
    /// True when a sealed secret row exists for this key.
    public let hasSecret: Bool

    /// `#3 alice (ECDSA, software)`.
    public var description: String { "#\(position) \(name) (\(kind), \(storage))" }

    /// The public key as lower-case hex, without `0x`.
    public var publicKeyHex: String? { publicKey.map { Hex.encode($0) } }
}

// MARK: - Rotation policy

/// Why a key should be rotated (docs/store.md).
public enum RotationReason: Sendable, Hashable, CustomStringConvertible {
    /// The user flagged it.
    case flagged(RotationFlag)
    /// It is older than the policy's maximum age.
    case olderThan(days: Int)
    /// It was imported from a raw private key or a keystore file: the secret existed outside kcs.
    case importedFrom(KeySource)
    /// Its secret was shown at this time.
    case revealed(at: Date)

    public var description: String {
        switch self {
        case .flagged(.user): "flagged by the user"
        case .flagged(.exposed): "flagged as exposed"
        case .olderThan(let days): "older than \(days) day\(days == 1 ? "" : "s")"
        case .importedFrom(let source): "imported from a \(source == .privkey ? "raw private key" : "keystore file")"
        case .revealed(let date): "secret revealed on \(Timestamp.iso8601(date))"
        }
    }
}

/// A key that needs rotation and every reason that applies, in the order of `RotationReason`.
public struct RotationCandidate: Sendable, Hashable {
    /// The key.
    public let key: KeyRecord
    /// At least one reason.
    public let reasons: [RotationReason]
}
