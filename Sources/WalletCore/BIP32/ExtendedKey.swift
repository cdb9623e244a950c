/// The version bytes of serialised extended keys: BIP-32 (xprv/xpub, tprv/tpub) and
/// SLIP-132 (yprv/ypub for BIP-49, zprv/zpub for BIP-84, their testnet forms
/// uprv/upub and vprv/vpub, and the multisig Yprv/Ypub, Zprv/Zpub).
public enum ExtendedKeyVersion: String, Sendable, CaseIterable, CustomStringConvertible {
    case xprv, xpub, tprv, tpub, yprv, ypub, zprv, zpub, uprv, upub, vprv, vpub
    case Yprv, Ypub, Zprv, Zpub

    /// The four version bytes as a big-endian integer.
    public var value: UInt32 {
        switch self {
        case .xprv: 0x0488_ADE4
        case .xpub: 0x0488_B21E
        case .tprv: 0x0435_8394
        case .tpub: 0x0435_87CF
        case .yprv: 0x049D_7878
        case .ypub: 0x049D_7CB2
        case .zprv: 0x04B2_430C
        case .zpub: 0x04B2_4746
        case .uprv: 0x044A_4E28
        case .upub: 0x044A_5262
        case .vprv: 0x045F_18BC
        case .vpub: 0x045F_1CF6
        case .Yprv: 0x0295_B005
        case .Ypub: 0x0295_B43F
        case .Zprv: 0x02AA_7A99
        case .Zpub: 0x02AA_7ED3
        }
    }

    /// True for the private-key versions.
    public var isPrivate: Bool { rawValue.hasSuffix("prv") }

    /// The public counterpart (xprv → xpub); public versions return themselves.
    public var publicVersion: ExtendedKeyVersion {
        isPrivate ? ExtendedKeyVersion(rawValue: String(rawValue.dropLast(3)) + "pub")! : self
    }

    /// The version whose bytes are `value`, if any.
    public init?(value: UInt32) {
        guard let v = Self.allCases.first(where: { $0.value == value }) else { return nil }
        self = v
    }

    public var description: String { rawValue }
}

/// A BIP-32 extended key: a private or public key plus chain code and the
/// position facts (depth, parent fingerprint, child number).
public struct ExtendedKey: Sendable, CustomStringConvertible {
    /// 0 for a master key.
    public let depth: UInt8
    /// First four bytes of the parent's HASH160 identifier (0 for a master key).
    public let parentFingerprint: UInt32
    /// The index this key was derived with (raw, ≥ 2³¹ for hardened).
    public let childNumber: UInt32
    /// 32 bytes of extra entropy for child derivation.
    public let chainCode: [UInt8]
    /// The private key, nil for a public (neutered) extended key.
    public let privateKey: PrivateKey?
    /// The public key.
    public let publicKey: PublicKey
    /// The version the key was parsed with (xprv/xpub when built from a seed); serialising
    /// without an explicit version uses it (its public form for a neutered key).
    public let version: ExtendedKeyVersion

    init(
        depth: UInt8, parentFingerprint: UInt32, childNumber: UInt32, chainCode: [UInt8],
        privateKey: PrivateKey?, publicKey: PublicKey, version: ExtendedKeyVersion
    ) {
        self.depth = depth
        self.parentFingerprint = parentFingerprint
        self.childNumber = childNumber
        self.chainCode = chainCode
        self.privateKey = privateKey
        self.publicKey = publicKey
        self.version = privateKey == nil ? version.publicVersion : version
    }

    /// An extended private key from its parts (e.g. a key and chain code loaded on a card).
    public init(
        privateKey: PrivateKey, chainCode: [UInt8], depth: UInt8 = 0, parentFingerprint: UInt32 = 0,
        childNumber: UInt32 = 0, version: ExtendedKeyVersion = .xprv
    ) throws(HDError) {
        guard chainCode.count == 32 else { throw .chainCodeLength(got: chainCode.count) }
        self.init(
            depth: depth, parentFingerprint: parentFingerprint, childNumber: childNumber, chainCode: chainCode,
            privateKey: privateKey, publicKey: privateKey.publicKey, version: version.isPrivate ? version : .xprv)
    }

    /// An extended public key from its parts (e.g. EXPORT KEY's public key and chain code).
    public init(
        publicKey: PublicKey, chainCode: [UInt8], depth: UInt8 = 0, parentFingerprint: UInt32 = 0,
        childNumber: UInt32 = 0, version: ExtendedKeyVersion = .xpub
    ) throws(HDError) {
        guard chainCode.count == 32 else { throw .chainCodeLength(got: chainCode.count) }
        self.init(
            depth: depth, parentFingerprint: parentFingerprint, childNumber: childNumber, chainCode: chainCode,
            privateKey: nil, publicKey: publicKey, version: version)
    }

    // MARK: master key

    /// BIP-32 master key: I = HMAC-SHA512(key = "Bitcoin seed", data = seed);
    /// key = I[0..<32], chain code = I[32..<64]. Seeds must be 16 to 64 bytes.
    ///
    /// - Throws: `HDError.seedLength`, or `.invalidChild("m")` when I_L is 0 or ≥ n.
    public static func master(seed: Secret, version: ExtendedKeyVersion = .xprv) throws(HDError) -> ExtendedKey {
        // The one master step, shared with `derive --trace` (DerivationTrace.swift), which also keeps its inputs.
        try tracedMaster(seed: seed, version: version).child
    }

    // MARK: facts

    /// True when the private key is present.
    public var isPrivate: Bool { privateKey != nil }

    /// HASH160 of the compressed public key (BIP-32 "key identifier").
    public var identifier: [UInt8] { Hash.hash160(publicKey.compressed) }

    /// First 32 bits of the identifier.
    public var fingerprint: UInt32 { Self.fingerprint(of: publicKey.compressed) }

    /// First 32 bits of HASH160 of a compressed public key (BIP-32 key fingerprint).
    public static func fingerprint(of compressedPoint: [UInt8]) -> UInt32 {
        Hash.hash160(compressedPoint).prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The same key without its private part.
    public var neutered: ExtendedKey {
        ExtendedKey(
            depth: depth, parentFingerprint: parentFingerprint, childNumber: childNumber,
            chainCode: chainCode, privateKey: nil, publicKey: publicKey, version: version)
    }

    // MARK: derivation

    /// CKDpriv / CKDpub for one level. Hardened children need the private key.
    public func derive(_ child: ChildIndex) throws(HDError) -> ExtendedKey {
        var step = try childStep(child)
        Secret.wipe(&step.data)
        Secret.wipe(&step.i)
        return step.child
    }

    /// The one BIP-32 child step `derive` and `tracedChild` share: the HMAC data
    /// (`0x00‖k‖ser32(i)` hardened, `serP(K)‖ser32(i)` otherwise), I = HMAC-SHA512(c, data), and
    /// the child (k + I_L mod n, or I_L·G + K). The caller wipes `data` and `i`.
    func childStep(_ child: ChildIndex) throws(HDError) -> (data: [UInt8], i: [UInt8], child: ExtendedKey) {
        guard depth < 255 else { throw .depthOverflow }
        let parentPoint = publicKey.compressed  // serialised once: HMAC data and fingerprint
        var data = [UInt8]()
        data.reserveCapacity(37)
        if child.hardened {
            guard let privateKey else { throw .hardenedFromPublic(index: child.description) }
            data.append(0)
            privateKey.secret.withUnsafeBytes { data.append(contentsOf: $0) }
        } else {
            data.append(contentsOf: parentPoint)
        }
        let raw = child.raw
        data.append(contentsOf: [UInt8(raw >> 24), UInt8(raw >> 16 & 0xff), UInt8(raw >> 8 & 0xff), UInt8(raw & 0xff)])
        var i = Hash.hmacSHA512(key: chainCode, data: data)
        var il = Array(i[0..<32])
        defer { Secret.wipe(&il) }
        let ir = Array(i[32..<64])
        let childPrivate: PrivateKey?
        let childPublic: PublicKey
        do {
            if let privateKey {
                let k = try privateKey.adding(tweak: il)
                childPrivate = k
                childPublic = k.publicKey
            } else {
                childPrivate = nil
                childPublic = try publicKey.adding(tweak: il)
            }
        } catch {
            Secret.wipe(&data)
            Secret.wipe(&i)
            throw .invalidChild(index: child.description)
        }
        let key = ExtendedKey(
            depth: depth + 1, parentFingerprint: Self.fingerprint(of: parentPoint), childNumber: raw,
            chainCode: ir, privateKey: childPrivate, publicKey: childPublic, version: version)
        return (data, i, key)
    }

    /// One non-hardened public step and its tweak I_L (child point = parent + I_L·G): how a
    /// two-party key moves its co-signer's share to a child (docs/two-party-protocol.md §6).
    public func publicStep(_ child: ChildIndex) throws(HDError) -> (tweak: [UInt8], child: ExtendedKey) {
        guard !child.hardened else { throw .hardenedFromPublic(index: child.description) }
        var step = try childStep(child)
        defer {
            Secret.wipe(&step.data)
            Secret.wipe(&step.i)
        }
        return (Array(step.i[0..<32]), step.child)
    }

    /// Derives along `path`. An absolute path needs a master key (depth 0).
    public func derive(_ path: DerivationPath) throws(HDError) -> ExtendedKey {
        if path.isAbsolute && depth != 0 { throw .pathAbsoluteFromChild(depth: Int(depth)) }
        var key = self
        for c in path.components { key = try key.derive(c) }
        return key
    }

    /// Parses `path` text and derives along it.
    public func derive(_ path: String) throws(HDError) -> ExtendedKey {
        try derive(DerivationPath(path))
    }

    // MARK: serialisation

    /// The 78-byte payload: version ‖ depth ‖ parent fingerprint ‖ child number ‖
    /// chain code ‖ key data (00 ‖ private key, or the compressed public key).
    public func payload(version: ExtendedKeyVersion) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(78)
        func be32(_ v: UInt32) {
            out += [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
        }
        be32(version.value)
        out.append(depth)
        be32(parentFingerprint)
        be32(childNumber)
        out += chainCode
        if version.isPrivate, let privateKey {
            out.append(0)
            privateKey.secret.withUnsafeBytes { out.append(contentsOf: $0) }
        } else {
            out += publicKey.compressed
        }
        return out
    }

    /// Base58Check text in `version` (default: the key's own version). Asking for a
    /// private version of a public key is an error; a public version of a private key
    /// gives its public form (xprv key → xpub text).
    public func serialized(_ version: ExtendedKeyVersion? = nil) throws(HDError) -> String {
        let v = version ?? self.version
        if v.isPrivate && privateKey == nil {
            throw .versionNotApplicable(version: v.rawValue, reason: "this is a public extended key")
        }
        var bytes = payload(version: v)
        defer { Secret.wipe(&bytes) }
        return Base58Check.encode(bytes)
    }

    /// The public serialisation in the key's own family (xpub, zpub, …).
    public var publicString: String {
        (try? neutered.serialized()) ?? ""
    }

    /// Parses a serialised extended key, checking each rule of BIP-32 test vector 5.
    public init(_ text: String) throws(HDError) {
        let bytes: [UInt8]
        do { bytes = try Base58Check.decode(text) } catch { throw .extendedKeyEncoding(error.description) }
        guard bytes.count == 78 else { throw .extendedKeyLength(got: bytes.count) }
        let be32 = { (o: Int) -> UInt32 in bytes[o..<o + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        let versionValue = be32(0)
        guard let version = ExtendedKeyVersion(value: versionValue) else {
            throw .unknownVersion(hex: Hex.encode(bytes[0..<4]))
        }
        let depth = bytes[4]
        let parent = be32(5)
        let child = be32(9)
        let chain = Array(bytes[13..<45])
        let keyData = Array(bytes[45..<78])
        let prefix = keyData[0]
        if version.isPrivate {
            if prefix == 0x02 || prefix == 0x03 {
                throw .versionKeyMismatch(version: version.rawValue, keyData: "a public key")
            }
            guard prefix == 0x00 else { throw .invalidKeyPrefix(prefix: Hex.encode([prefix]), privateVersion: true) }
        } else {
            if prefix == 0x00 {
                throw .versionKeyMismatch(version: version.rawValue, keyData: "a private key")
            }
            guard prefix == 0x02 || prefix == 0x03 else {
                throw .invalidKeyPrefix(prefix: Hex.encode([prefix]), privateVersion: false)
            }
        }
        if depth == 0 {
            guard parent == 0 else { throw .zeroDepthParentFingerprint(hex: Hex.encode(bytes[5..<9])) }
            guard child == 0 else { throw .zeroDepthChildNumber(value: child) }
        }
        let privateKey: PrivateKey?
        let publicKey: PublicKey
        if version.isPrivate {
            guard let k = try? PrivateKey(bytes: Array(keyData[1...])) else { throw .privateKeyOutOfRange }
            privateKey = k
            publicKey = k.publicKey
        } else {
            guard let p = try? PublicKey(bytes: keyData) else { throw .invalidPublicKey(hex: Hex.encode(keyData)) }
            privateKey = nil
            publicKey = p
        }
        self.init(
            depth: depth, parentFingerprint: parent, childNumber: child, chainCode: chain,
            privateKey: privateKey, publicKey: publicKey, version: version)
    }

    /// A public key prints its serialisation; a private one never does.
    public var description: String {
        isPrivate ? "<extended private key \(version.rawValue), depth \(depth)>" : publicString
    }
}
