/// Errors of BIP-32 keys and derivation paths. Each case carries the facts; the
/// sentence is written once in `description`.
public enum HDError: WalletError, Equatable {
    // MARK: paths
    /// The path text is empty.
    case pathEmpty
    /// A segment is not a number with an optional hardened marker (`'`, `h`, `H`).
    case pathBadSegment(segment: String, number: Int, reason: String)
    /// An index ≥ 2³¹ (write hardened indexes with a marker instead).
    case pathIndexTooLarge(segment: String, number: Int)
    /// An absolute path (`m/…`) applied to a key that is not a master key.
    case pathAbsoluteFromChild(depth: Int)
    /// A path with more levels than `DerivationPath.maximumDepth` (255).
    case pathTooDeep(depth: Int)
    /// Deeper than the 255 levels an extended key can record.
    case depthOverflow

    // MARK: derivation
    /// A chain code that is not 32 bytes.
    case chainCodeLength(got: Int)
    /// A seed outside 16…64 bytes (BIP-32 allows 128 to 512 bits).
    case seedLength(got: Int)
    /// Hardened derivation needs the private key.
    case hardenedFromPublic(index: String)
    /// IL ≥ n or a zero/infinite child (probability < 2⁻¹²⁷); BIP-32 says use the next index.
    case invalidChild(index: String)

    // MARK: serialisation (BIP-32 "Serialization format", test vector 5)
    /// Not valid Base58Check (bad character or checksum).
    case extendedKeyEncoding(String)
    /// Decoded payload is not 78 bytes.
    case extendedKeyLength(got: Int)
    /// The 4 version bytes are not a known xprv/xpub/tprv/… (SLIP-132) version.
    case unknownVersion(hex: String)
    /// A public version with private key data, or the reverse.
    case versionKeyMismatch(version: String, keyData: String)
    /// Key data starting with a byte that is neither 00 (private) nor 02/03 (public).
    case invalidKeyPrefix(prefix: String, privateVersion: Bool)
    /// Depth 0 (a master key) must have parent fingerprint 00000000.
    case zeroDepthParentFingerprint(hex: String)
    /// Depth 0 (a master key) must have child number 0.
    case zeroDepthChildNumber(value: UInt32)
    /// Private key 0 or ≥ n.
    case privateKeyOutOfRange
    /// Public key bytes that are not a point on the curve.
    case invalidPublicKey(hex: String)
    /// An output version of the wrong kind (a private version for a public key, …).
    case versionNotApplicable(version: String, reason: String)

    public var id: String {
        switch self {
        case .pathEmpty: "path.empty"
        case .pathBadSegment: "path.badSegment"
        case .pathIndexTooLarge: "path.indexTooLarge"
        case .pathAbsoluteFromChild: "path.absoluteFromChild"
        case .pathTooDeep: "path.tooDeep"
        case .depthOverflow: "bip32.depthOverflow"
        case .chainCodeLength: "bip32.chainCodeLength"
        case .seedLength: "bip32.seedLength"
        case .hardenedFromPublic: "bip32.hardenedFromPublic"
        case .invalidChild: "bip32.invalidChild"
        case .extendedKeyEncoding: "bip32.encoding"
        case .extendedKeyLength: "bip32.length"
        case .unknownVersion: "bip32.unknownVersion"
        case .versionKeyMismatch: "bip32.versionKeyMismatch"
        case .invalidKeyPrefix: "bip32.invalidKeyPrefix"
        case .zeroDepthParentFingerprint: "bip32.zeroDepthParentFingerprint"
        case .zeroDepthChildNumber: "bip32.zeroDepthChildNumber"
        case .privateKeyOutOfRange: "bip32.privateKeyOutOfRange"
        case .invalidPublicKey: "bip32.invalidPublicKey"
        case .versionNotApplicable: "bip32.versionNotApplicable"
        }
    }

    public var description: String {
        switch self {
        case .pathEmpty:
            "derivation path must not be empty; expected e.g. m/44'/60'/0'/0/0"
        case .pathBadSegment(let segment, let number, let reason):
            "derivation path segment \(number) \"\(segment)\" is invalid: \(reason)"
        case .pathIndexTooLarge(let segment, let number):
            "derivation path segment \(number) \"\(segment)\" must be below 2^31 (2147483648); mark hardened indexes with ' instead"
        case .pathAbsoluteFromChild(let depth):
            "an absolute path (m/…) needs a master key, but this key is at depth \(depth); use a relative path"
        case .pathTooDeep(let depth):
            "derivation path must have at most \(DerivationPath.maximumDepth) levels (the depth an extended key records), got \(depth)"
        case .depthOverflow:
            "an extended key cannot be deeper than 255 levels"
        case .chainCodeLength(let got):
            "chain code must be 32 bytes, got \(got)"
        case .seedLength(let got):
            "seed must be 16 to 64 bytes, got \(got)"
        case .hardenedFromPublic(let index):
            "hardened child \(index) needs the private key, but this is a public extended key"
        case .invalidChild(let index):
            "child \(index) is invalid (IL ≥ n or zero key); BIP-32 says to use the next index"
        case .extendedKeyEncoding(let reason):
            "extended key is not valid Base58Check: \(reason)"
        case .extendedKeyLength(let got):
            "extended key must decode to 78 bytes, got \(got)"
        case .unknownVersion(let hex):
            "extended key version \(hex) is unknown; expected xprv/xpub, tprv/tpub or a SLIP-132 version (yprv, zpub, …)"
        case .versionKeyMismatch(let version, let keyData):
            "extended key version \(version) does not match its key data (\(keyData))"
        case .invalidKeyPrefix(let prefix, let privateVersion):
            privateVersion
                ? "private extended key data must start with 00, got \(prefix)"
                : "public extended key data must start with 02 or 03, got \(prefix)"
        case .zeroDepthParentFingerprint(let hex):
            "a depth-0 extended key must have parent fingerprint 00000000, got \(hex)"
        case .zeroDepthChildNumber(let value):
            "a depth-0 extended key must have child number 0, got \(value)"
        case .privateKeyOutOfRange:
            "extended private key must be between 1 and n-1"
        case .invalidPublicKey(let hex):
            "extended public key \(hex) is not a point on secp256k1"
        case .versionNotApplicable(let version, let reason):
            "cannot serialise as \(version): \(reason)"
        }
    }
}
