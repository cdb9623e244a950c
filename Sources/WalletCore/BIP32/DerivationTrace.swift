import WalletCrypto

// BIP-32 derivation with every intermediate value kept, for showing the algorithm at work
// (`derive PATH --trace`). The arithmetic is the same as `ExtendedKey.derive(_:)`; the tests
// check both against each other and against BIP-32 test vector 1. Values from which a private
// key follows are `Secret`s, so a caller has to decide on purpose to show them.

/// One step of a BIP-32 derivation: the HMAC-SHA512 input and output and the key it made.
public struct DerivationStep: Sendable {
    /// Which of BIP-32's functions made the key.
    public enum Kind: Sendable, Equatable {
        /// Master key generation: I = HMAC-SHA512(key = "Bitcoin seed", data = S).
        case master
        /// CKDpriv with i ≥ 2³¹: data = 0x00 ‖ ser256(k_par) ‖ ser32(i).
        case hardened
        /// CKDpriv with i < 2³¹: data = serP(point(k_par)) ‖ ser32(i).
        case normalPrivate
        /// CKDpub (i < 2³¹ only): data = serP(K_par) ‖ ser32(i); K_i = point(I_L) + K_par.
        case normalPublic
    }

    /// Which function made the key.
    public let kind: Kind
    /// The path of the key made: absolute when the trace starts at a master key, otherwise
    /// relative to the key the trace started from.
    public let path: DerivationPath
    /// The child index; nil for the master step.
    public let index: ChildIndex?
    /// The HMAC-SHA512 key: the ASCII bytes of "Bitcoin seed" for the master, else the parent's chain code.
    public let hmacKey: [UInt8]
    /// The HMAC-SHA512 data: the seed (master), 0x00 ‖ k_par ‖ ser32(i) (hardened), or
    /// serP(K_par) ‖ ser32(i) (normal).
    public let hmacData: Secret
    /// I_L, the left 32 bytes of I: the master private key, or the tweak added to the parent key.
    public let il: Secret
    /// I_R, the right 32 bytes of I: the new chain code.
    public let ir: [UInt8]
    /// point(I_L) = I_L·G, the point public derivation adds to K_par.
    public let ilPoint: PublicKey
    /// The key made.
    public let child: ExtendedKey

    /// ser32(i), the 4 big-endian bytes of the raw index (empty for the master step).
    public var serializedIndex: [UInt8] {
        guard let raw = index?.raw else { return [] }
        return [UInt8(raw >> 24), UInt8(raw >> 16 & 0xff), UInt8(raw >> 8 & 0xff), UInt8(raw & 0xff)]
    }

    /// True when the HMAC data holds secret material: the seed, or k_par in a hardened step.
    public var hmacDataIsSecret: Bool { kind == .master || kind == .hardened }

    /// True when I_L must be kept secret. The master's I_L is its private key; a hardened
    /// step's I_L together with the child's private key gives the parent's. A normal step's
    /// I_L is not secret: anyone holding the parent xpub computes it (which is why a leaked
    /// non-hardened child private key plus the parent xpub exposes the parent private key).
    public var ilIsSecret: Bool { kind == .master || kind == .hardened }
}

extension ExtendedKey {
    /// The fixed HMAC-SHA512 key of BIP-32 master key generation.
    public static let masterHMACKey: [UInt8] = Array("Bitcoin seed".utf8)

    /// Master key generation with its intermediates. Seeds must be 16 to 64 bytes.
    ///
    /// - Throws: `HDError.seedLength`, or `.invalidChild("m")` when I_L is 0 or ≥ n.
    public static func tracedMaster(seed: Secret, version: ExtendedKeyVersion = .xprv) throws(HDError) -> DerivationStep
    {
        guard (16...64).contains(seed.count) else { throw .seedLength(got: seed.count) }
        let i = Hash.hmacSHA512(key: Secret(bytes: masterHMACKey), data: seed)
        let (il, ir) = i.withUnsafeBytes { b in (Secret(bytes: b[0..<32]), Array(b[32..<64])) }
        guard let privateKey = try? PrivateKey(il) else { throw .invalidChild(index: "m") }
        let publicKey = privateKey.publicKey  // k·G once: the master's key and point(I_L) alike
        let master = ExtendedKey(
            depth: 0, parentFingerprint: 0, childNumber: 0, chainCode: ir,
            privateKey: privateKey, publicKey: publicKey,
            version: version.isPrivate ? version : .xprv)
        return DerivationStep(
            kind: .master, path: DerivationPath(absolute: true, []), index: nil,
            hmacKey: masterHMACKey, hmacData: seed, il: il, ir: ir,
            ilPoint: publicKey, child: master)
    }

    /// CKDpriv (a private key) or CKDpub (a public key) for `index`, with its intermediates;
    /// `path` is recorded as the child's path.
    ///
    /// - Throws: `HDError.depthOverflow`, `.hardenedFromPublic` for a hardened index below a
    ///   public key, `.invalidChild` when I_L ≥ n or the child key is zero / infinity.
    public func tracedChild(_ index: ChildIndex, path: DerivationPath) throws(HDError) -> DerivationStep {
        let kind: DerivationStep.Kind = index.hardened ? .hardened : privateKey == nil ? .normalPublic : .normalPrivate
        // The same step as `derive` (ExtendedKey.childStep); the trace keeps its inputs and adds I_L·G.
        var step = try childStep(index)
        defer { Secret.wipe(&step.i) }
        let hmacData = Secret(consuming: &step.data)
        let il = Secret(bytes: step.i[0..<32])
        let ilPoint: PublicKey
        do { ilPoint = try PrivateKey(il).publicKey } catch { throw .invalidChild(index: index.description) }
        return DerivationStep(
            kind: kind, path: path, index: index, hmacKey: chainCode,
            hmacData: hmacData, il: il, ir: Array(step.i[32..<64]), ilPoint: ilPoint, child: step.child)
    }

    /// Every step along `path` from this key, first level first (empty for the path `m`).
    /// Each step's path continues `base`; by default `m` for a depth-0 key (so the steps carry
    /// absolute paths) and the empty relative path otherwise.
    ///
    /// - Throws: `HDError.pathAbsoluteFromChild` for an absolute path below depth 0, and the
    ///   errors of `tracedChild(_:path:)`.
    public func trace(_ path: DerivationPath, base: DerivationPath? = nil) throws(HDError) -> [DerivationStep] {
        if path.isAbsolute && depth != 0 { throw .pathAbsoluteFromChild(depth: Int(depth)) }
        var at = base ?? DerivationPath(absolute: depth == 0, [])
        var key = self
        var steps: [DerivationStep] = []
        for c in path.components {
            at = at.appending(c)
            let step = try key.tracedChild(c, path: at)
            steps.append(step)
            key = step.child
        }
        return steps
    }
}
