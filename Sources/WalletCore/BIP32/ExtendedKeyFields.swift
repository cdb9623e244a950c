import WalletCrypto

// An extended key taken apart field by field (BIP-32 "Serialization format"), for
// `xkey.explain`. Unlike `ExtendedKey.init(_:)` this keeps going past a bad checksum or an
// unknown version so the fields can still be shown; `problem` says what the strict parser
// would refuse.

extension ExtendedKeyVersion {
    /// The network the version bytes belong to: `mainnet` or `testnet`.
    public var network: String {
        switch self {
        case .tprv, .tpub, .uprv, .upub, .vprv, .vpub: "testnet"
        default: "mainnet"
        }
    }

    /// The scripts a wallet derives from keys of this version (SLIP-132).
    public var scriptMeaning: String {
        switch self {
        case .xprv, .xpub, .tprv, .tpub: "BIP-32 / BIP-44: P2PKH, or any script (Ethereum uses these)"
        case .yprv, .ypub, .uprv, .upub: "BIP-49: P2WPKH nested in P2SH (3… / 2… addresses)"
        case .zprv, .zpub, .vprv, .vpub: "BIP-84: native segwit P2WPKH (bc1q… / tb1q… addresses)"
        case .Yprv, .Ypub: "multisig P2WSH nested in P2SH"
        case .Zprv, .Zpub: "multisig native segwit P2WSH"
        }
    }

    /// One line: `xpub: mainnet public key, BIP-32 / BIP-44: …`.
    public var meaning: String {
        "\(rawValue): \(network) \(isPrivate ? "private" : "public") key, \(scriptMeaning)"
    }
}

/// The fields of a serialised extended key: version ‖ depth ‖ parent fingerprint ‖ child
/// number ‖ chain code ‖ key data (78 bytes), then a 4-byte checksum.
public struct ExtendedKeyFields: Sendable {
    /// The four version bytes as a big-endian integer.
    public let versionValue: UInt32
    /// The version those bytes name, if known (BIP-32 or SLIP-132).
    public let version: ExtendedKeyVersion?
    /// 0 for a master key.
    public let depth: UInt8
    /// The first 4 bytes of HASH160 of the parent's public key (0 for a master key).
    public let parentFingerprint: UInt32
    /// The raw child number (≥ 2³¹: hardened).
    public let childNumber: UInt32
    /// 32 bytes.
    public let chainCode: [UInt8]
    /// The 33 key bytes: 0x00 ‖ private key, or a compressed public key (02/03 ‖ X). Secret,
    /// since for a private version it is the private key.
    public let keyData: Secret
    /// The 4 checksum bytes as written.
    public let checksum: [UInt8]
    /// The first 4 bytes of SHA-256(SHA-256(the 78-byte payload)).
    public let expectedChecksum: [UInt8]
    /// Why `ExtendedKey(text)` refuses this text, or nil when it is a valid key.
    public let problem: HDError?
    /// The key, when valid.
    public let key: ExtendedKey?

    /// True when the checksum matches the payload.
    public var checksumValid: Bool { checksum == expectedChecksum }

    /// The first byte of the key data (00, 02 or 03 in a valid key).
    public var keyPrefix: UInt8 { keyData.withUnsafeBytes { $0[0] } }

    /// Takes `text` apart.
    ///
    /// - Throws: `HDError.extendedKeyEncoding` for text that is not Base58, and
    ///   `.extendedKeyLength` when it does not decode to 78 + 4 bytes. Everything else (a bad
    ///   checksum, an unknown version, a bad key) is kept in `problem`.
    public init(_ text: String) throws(HDError) {
        var bytes: [UInt8]
        do { bytes = try Base58.decode(text) } catch { throw .extendedKeyEncoding(error.description) }
        defer { Secret.wipe(&bytes) }
        guard bytes.count == 82 else { throw .extendedKeyLength(got: max(0, bytes.count - 4)) }
        let be32 = { (o: Int) -> UInt32 in bytes[o..<o + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        versionValue = be32(0)
        version = ExtendedKeyVersion(value: versionValue)
        depth = bytes[4]
        parentFingerprint = be32(5)
        childNumber = be32(9)
        chainCode = Array(bytes[13..<45])
        keyData = Secret(bytes: bytes[45..<78])
        checksum = Array(bytes[78..<82])
        expectedChecksum = Array(Hash.sha256d(Array(bytes[0..<78])).prefix(4))
        do {
            key = try ExtendedKey(text)
            problem = nil
        } catch {
            key = nil
            problem = error
        }
    }
}
