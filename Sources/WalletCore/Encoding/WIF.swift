// Wallet Import Format private keys and legacy (Base58Check) addresses. Neither has a BIP;
// the reference is Bitcoin Core (`src/key_io.cpp`, `src/kernel/chainparams.cpp`) and the
// Bitcoin wiki pages "Wallet import format" and "Technical background of version 1 Bitcoin
// addresses". Version bytes of Litecoin and Dogecoin come from their `chainparams.cpp`.

// MARK: - Errors

/// Every way WIF text can be rejected. No case carries key bytes (docs/habits.md §4); the
/// version and flag bytes it names are public framing, not key material.
public enum WIFError: WalletError, Equatable {
    /// The text is not valid Base58Check; `id` and `description` are those of the cause.
    case encoding(Base58Error)
    /// A payload that is neither 33 bytes (version, key) nor 34 (version, key, flag).
    case invalidLength(got: Int)
    /// A version byte other than 0x80 (mainnet) or 0xef (testnet).
    case unknownVersion(UInt8)
    /// A 34-byte payload whose last byte is not the compression flag 0x01.
    case invalidCompressionFlag(UInt8)
    /// Key bytes equal to 0 or ≥ the secp256k1 group order n.
    case keyOutOfRange

    /// Stable identifier of the case, for tests and for callers that branch on the kind.
    public var id: String {
        switch self {
        case .encoding(let cause): cause.id
        case .invalidLength: "wif.invalidLength"
        case .unknownVersion: "wif.unknownVersion"
        case .invalidCompressionFlag: "wif.invalidCompressionFlag"
        case .keyOutOfRange: "wif.keyOutOfRange"
        }
    }

    /// One sentence naming what was expected and what was given; never key bytes.
    public var description: String {
        switch self {
        case .encoding(let cause):
            cause.description
        case .invalidLength(let got):
            "WIF payload must be 33 bytes (version and key) or 34 bytes (version, key and flag 0x01),"
                + " got \(got)"
        case .unknownVersion(let byte):
            "WIF version byte must be 0x80 (mainnet) or 0xef (testnet), got \(LegacyAddress.hex(byte))"
        case .invalidCompressionFlag(let byte):
            "WIF compression flag must be 0x01, got \(LegacyAddress.hex(byte))"
        case .keyOutOfRange:
            "WIF private key must be between 1 and n-1 (the secp256k1 group order)"
        }
    }
}

/// Every way a legacy address can be rejected or fail to build.
public enum LegacyAddressError: WalletError, Equatable {
    /// The text is not valid Base58Check; `id` and `description` are those of the cause.
    case encoding(Base58Error)
    /// A decoded payload that is not 21 bytes (version byte and 20-byte hash).
    case invalidPayloadLength(got: Int)
    /// A version byte not in `LegacyAddress.knownVersions`.
    case unknownVersion(UInt8)
    /// A hash that is not 20 bytes, given to `LegacyAddress(version:hash:)`.
    case invalidHashLength(got: Int)

    /// Stable identifier of the case, for tests and for callers that branch on the kind.
    public var id: String {
        switch self {
        case .encoding(let cause): cause.id
        case .invalidPayloadLength: "legacyAddress.invalidPayloadLength"
        case .unknownVersion: "legacyAddress.unknownVersion"
        case .invalidHashLength: "legacyAddress.invalidHashLength"
        }
    }

    /// One sentence naming what was expected and what was given.
    public var description: String {
        switch self {
        case .encoding(let cause):
            return cause.description
        case .invalidPayloadLength(let got):
            return "legacy address payload must be 21 bytes (version byte and 20-byte hash), got \(got)"
        case .unknownVersion(let byte):
            let known = LegacyAddress.knownVersions.map { LegacyAddress.hex($0.byte) }.joined(separator: ", ")
            return "legacy address version byte must be one of \(known); got \(LegacyAddress.hex(byte))"
        case .invalidHashLength(let got):
            return "legacy address hash must be 20 bytes (HASH160), got \(got)"
        }
    }
}

// MARK: - WIF

/// A private key in Wallet Import Format: Base58Check of `version ‖ key ‖ [0x01]`.
///
/// The version byte names the network (0x80 mainnet, 0xef testnet, signet and regtest); the
/// optional trailing 0x01 says the key's addresses use the compressed public key. The key is
/// held as a `PrivateKey`, and the encoded text comes back as a `Secret`, because WIF text is
/// the key itself (docs/habits.md §4).
public struct WIF: Sendable, CustomStringConvertible {
    /// The network a WIF version byte stands for.
    public enum Network: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Version 0x80.
        case mainnet
        /// Version 0xef (testnet, signet and regtest share it).
        case testnet

        /// The version byte that starts the payload.
        public var version: UInt8 { self == .mainnet ? 0x80 : 0xef }

        /// `mainnet` or `testnet`.
        public var description: String { self == .mainnet ? "mainnet" : "testnet" }
    }

    /// The key.
    public let privateKey: PrivateKey
    /// Whether the key is meant to be used with its compressed (33-byte) public key.
    public let isCompressed: Bool
    /// The network named by the version byte.
    public let network: Network

    /// Wraps a key for export. Compressed is the default, as in every wallet since 2012.
    public init(privateKey: PrivateKey, compressed: Bool = true, network: Network = .mainnet) {
        self.privateKey = privateKey
        self.isCompressed = compressed
        self.network = network
    }

    /// Parses WIF text. Checked in this order: Base58Check (`.encoding`), payload length 33 or
    /// 34 (`.invalidLength`), version byte (`.unknownVersion`), flag 0x01 when 34 bytes
    /// (`.invalidCompressionFlag`), key in 1…n-1 (`.keyOutOfRange`). Intermediate copies of the
    /// key are wiped.
    public init(_ text: String) throws(WIFError) {
        var payload: [UInt8]
        do {
            payload = try Base58Check.decode(text)
        } catch {
            throw .encoding(error)
        }
        defer { Secret.wipe(&payload) }
        guard payload.count == 33 || payload.count == 34 else { throw .invalidLength(got: payload.count) }
        guard let network = Network.allCases.first(where: { $0.version == payload[0] }) else {
            throw .unknownVersion(payload[0])
        }
        if payload.count == 34, payload[33] != 0x01 { throw .invalidCompressionFlag(payload[33]) }
        var keyBytes = Array(payload[1...32])
        defer { Secret.wipe(&keyBytes) }
        do {
            privateKey = try PrivateKey(bytes: keyBytes)
        } catch {
            throw .keyOutOfRange
        }
        self.network = network
        self.isCompressed = payload.count == 34
    }

    /// The WIF text, as UTF-8 bytes inside a `Secret`.
    public func encoded() -> Secret {
        var payload = [network.version]
        privateKey.secret.withUnsafeBytes { payload.append(contentsOf: $0) }
        if isCompressed { payload.append(0x01) }
        defer { Secret.wipe(&payload) }
        var ascii = Base58Check.encodeASCII(payload)
        return Secret(consuming: &ascii)
    }

    /// Names the network and compression only; the key never prints.
    public var description: String {
        "<WIF private key: \(network), \(isCompressed ? "compressed" : "uncompressed")>"
    }
}

// MARK: - Legacy addresses

/// A legacy Base58Check address: one version byte and a 20-byte hash, HASH160 of a public
/// key (P2PKH) or of a redeem script (P2SH, BIP-13/BIP-16).
///
/// Only versions in `knownVersions` are accepted, so a value of this type always names its
/// network and kind (docs/habits.md §8).
public struct LegacyAddress: Sendable, Hashable, CustomStringConvertible {
    /// What the hash commits to.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// Pay to public-key hash.
        case p2pkh
        /// Pay to script hash (BIP-16).
        case p2sh

        /// `P2PKH` or `P2SH`.
        public var description: String { self == .p2pkh ? "P2PKH" : "P2SH" }
    }

    /// The chains whose version bytes are known.
    public enum Network: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Bitcoin mainnet.
        case bitcoin
        /// Bitcoin testnet (also signet and regtest).
        case bitcoinTestnet
        /// Litecoin mainnet.
        case litecoin
        /// Dogecoin mainnet.
        case dogecoin

        /// Whether this is a test network (Bitcoin Core's `isTestnet` in its vectors).
        public var isTestnet: Bool { self == .bitcoinTestnet }

        /// The network's name, e.g. `Bitcoin mainnet`.
        public var description: String {
            switch self {
            case .bitcoin: "Bitcoin mainnet"
            case .bitcoinTestnet: "Bitcoin testnet"
            case .litecoin: "Litecoin mainnet"
            case .dogecoin: "Dogecoin mainnet"
            }
        }
    }

    /// One known version byte and what it means.
    public struct Version: Sendable, Hashable, CustomStringConvertible {
        /// The byte that starts the payload.
        public let byte: UInt8
        /// The network the byte is registered for.
        public let network: Network
        /// P2PKH or P2SH.
        public let kind: Kind
        /// Other networks that use the same byte for the same kind (it cannot tell them apart).
        public let alsoUsedBy: [Network]

        /// Network and kind, e.g. `Dogecoin mainnet P2PKH`.
        public var description: String {
            let others = alsoUsedBy.map { " (also \($0) legacy \(kind))" }.joined()
            return "\(network) \(kind)\(others)"
        }
    }

    /// The accepted versions: Bitcoin 0x00/0x05, Bitcoin testnet 0x6f/0xc4, Litecoin 0x30/0x32
    /// (Litecoin's older P2SH addresses use Bitcoin's 0x05), Dogecoin 0x1e/0x16.
    public static let knownVersions: [Version] = [
        Version(byte: 0x00, network: .bitcoin, kind: .p2pkh, alsoUsedBy: []),
        Version(byte: 0x05, network: .bitcoin, kind: .p2sh, alsoUsedBy: [.litecoin]),
        Version(byte: 0x6f, network: .bitcoinTestnet, kind: .p2pkh, alsoUsedBy: []),
        Version(byte: 0xc4, network: .bitcoinTestnet, kind: .p2sh, alsoUsedBy: []),
        Version(byte: 0x30, network: .litecoin, kind: .p2pkh, alsoUsedBy: []),
        Version(byte: 0x32, network: .litecoin, kind: .p2sh, alsoUsedBy: []),
        Version(byte: 0x1e, network: .dogecoin, kind: .p2pkh, alsoUsedBy: []),
        Version(byte: 0x16, network: .dogecoin, kind: .p2sh, alsoUsedBy: []),
    ]

    /// The version byte and its meaning.
    public let version: Version
    /// The 20-byte HASH160.
    public let hash: [UInt8]

    /// Builds the address for `hash` under the version byte `version`. Throws
    /// `.unknownVersion` or `.invalidHashLength`.
    public init(version: UInt8, hash: [UInt8]) throws(LegacyAddressError) {
        guard let known = Self.knownVersions.first(where: { $0.byte == version }) else {
            throw .unknownVersion(version)
        }
        guard hash.count == 20 else { throw .invalidHashLength(got: hash.count) }
        self.version = known
        self.hash = hash
    }

    /// Parses address text. Checked in this order: Base58Check (`.encoding`), payload length
    /// 21 (`.invalidPayloadLength`), version byte (`.unknownVersion`).
    public init(_ text: String) throws(LegacyAddressError) {
        let payload: [UInt8]
        do {
            payload = try Base58Check.decode(text)
        } catch {
            throw .encoding(error)
        }
        guard payload.count == 21 else { throw .invalidPayloadLength(got: payload.count) }
        try self.init(version: payload[0], hash: Array(payload[1...]))
    }

    /// The network the version byte is registered for.
    public var network: Network { version.network }
    /// P2PKH or P2SH.
    public var kind: Kind { version.kind }

    /// The address text.
    public var string: String { Base58Check.encode([version.byte] + hash) }

    /// The address text (same as `string`).
    public var description: String { string }

    /// The output script that pays to this address: P2PKH `OP_DUP OP_HASH160 <hash>
    /// OP_EQUALVERIFY OP_CHECKSIG`, P2SH `OP_HASH160 <hash> OP_EQUAL` (BIP-16).
    public var scriptPubKey: [UInt8] {
        switch kind {
        case .p2pkh: [0x76, 0xa9, 0x14] + hash + [0x88, 0xac]
        case .p2sh: [0xa9, 0x14] + hash + [0x87]
        }
    }

    static func hex(_ byte: UInt8) -> String { "0x" + Hex.encode([byte]) }
}
