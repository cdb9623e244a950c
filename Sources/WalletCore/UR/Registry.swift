import Foundation
import WalletCrypto

// The registry types kcs reads and writes (docs/ur.md §5): seeds, BIP-39 words, HD keys with
// their key paths, accounts and output descriptors, and the Ethereum air-gap request and
// signature (ERC-4527). Each converts to and from its CBOR map; the UR at the top carries the
// map untagged, and a map embedded in another carries its tag. Both the `crypto-` (v1) tags and
// the newer (v2) ones are read; v1 is written unless v2 is asked for.

/// Registry tags, v1 and v2.
public enum URTag {
    public static let uuid: UInt64 = 37
    public static let date: UInt64 = 1, days: UInt64 = 100
    public static let seed: (v1: UInt64, v2: UInt64) = (300, 40300)
    public static let bip39: UInt64 = 301
    public static let hdkey: (v1: UInt64, v2: UInt64) = (303, 40303)
    public static let keypath: (v1: UInt64, v2: UInt64) = (304, 40304)
    public static let coinInfo: (v1: UInt64, v2: UInt64) = (305, 40305)
    public static let output: (v1: UInt64, v2: UInt64) = (308, 40308)
    public static let account: (v1: UInt64, v2: UInt64) = (311, 40311)
    public static let ethSignRequest: UInt64 = 401
    public static let ethSignature: UInt64 = 402
    /// Output-descriptor script expressions (BCR-2020-010): sh 400 … cosigner 410.
    public static let scripts: [UInt64: String] = [
        400: "sh", 401: "wsh", 402: "pk", 403: "pkh", 404: "wpkh", 405: "combo",
        406: "multi", 407: "sortedmulti", 408: "raw", 409: "tr", 410: "cosigner",
    ]
}

extension URError {
    static func field(_ type: String, _ what: String) -> URError { .invalidPart("\(type): \(what)") }
}

/// Reading helpers over a decoded map.
struct FieldReader {
    let type: String
    let map: CBOR

    init(_ type: String, _ item: CBOR, tags: [UInt64] = []) throws(URError) {
        self.type = type
        var item = item
        if case .tagged(let t, let inner) = item, tags.contains(t) { item = inner }  // a self-tagged top level
        guard case .map = item else { throw .field(type, "expected a map") }
        map = item
    }

    func bytes(_ key: Int, count: ClosedRange<Int>? = nil) throws(URError) -> [UInt8]? {
        guard let v = map[key] else { return nil }
        guard case .bytes(let b) = v, count.map({ $0.contains(b.count) }) ?? true else {
            throw .field(
                type, "field \(key) must be bytes" + (count.map { " (\($0.lowerBound)…\($0.upperBound))" } ?? ""))
        }
        return b
    }

    func text(_ key: Int) throws(URError) -> String? {
        guard let v = map[key] else { return nil }
        guard case .text(let s) = v else { throw .field(type, "field \(key) must be text") }
        return s
    }

    func bool(_ key: Int) throws(URError) -> Bool? {
        guard let v = map[key] else { return nil }
        guard case .bool(let b) = v else { throw .field(type, "field \(key) must be true or false") }
        return b
    }

    func uint(_ key: Int, max: UInt64 = .max) throws(URError) -> UInt64? {
        guard let v = map[key] else { return nil }
        guard case .unsigned(let n) = v, n <= max else {
            throw .field(type, "field \(key) must be an integer up to \(max)")
        }
        return n
    }

    func int(_ key: Int) throws(URError) -> Int? {
        guard let v = map[key] else { return nil }
        switch v {
        case .unsigned(let n) where n <= UInt64(Int.max): return Int(n)
        case .negative(let n) where n < UInt64(Int.max): return -1 - Int(n)
        default: throw .field(type, "field \(key) must be an integer")
        }
    }

    func required<T>(_ value: T?, _ key: Int) throws(URError) -> T {
        guard let value else { throw .field(type, "field \(key) is missing") }
        return value
    }

    /// A request id: 16 bytes under tag 37 (a UUID).
    func uuid(_ key: Int) throws(URError) -> [UInt8]? {
        guard let id = try tagged(key, [URTag.uuid]) else { return nil }
        guard case .bytes(let b) = id, b.count == 16 else { throw .field(type, "the request id is 16 bytes (a UUID)") }
        return b
    }

    /// A field that must carry one of `tags` around its value.
    func tagged(_ key: Int, _ tags: [UInt64]) throws(URError) -> CBOR? {
        guard let v = map[key] else { return nil }
        guard case .tagged(let t, let inner) = v, tags.contains(t) else {
            throw .field(type, "field \(key) must carry tag \(tags.map(String.init).joined(separator: " or "))")
        }
        return inner
    }
}

/// A map from integer keys, nil values left out.
func cborMap(_ fields: [(Int, CBOR?)]) -> CBOR { .map(fields.compactMap { k, v in v.map { (CBOR.int(k), $0) } }) }

// MARK: - seed, crypto-bip39

/// `seed` / `crypto-seed`: BIP-39 entropy (1…64 bytes), with an optional name and note.
public struct URSeed: Sendable {
    public static let types = ["crypto-seed", "seed"]
    public let payload: Secret
    /// Days since 1970-01-01 (tag 100) or seconds (tag 1), as given.
    public let creationDate: Double?
    public let name: String?
    public let note: String?

    public init(payload: Secret, creationDate: Double? = nil, name: String? = nil, note: String? = nil) {
        self.payload = payload
        self.creationDate = creationDate
        self.name = name
        self.note = note
    }

    public init(cbor item: CBOR) throws(URError) {
        let r = try FieldReader("seed", item, tags: [URTag.seed.v1, URTag.seed.v2])
        payload = Secret(bytes: try r.required(try r.bytes(1, count: 1...64), 1))
        if let d = r.map[2] {
            switch d {
            case .tagged(URTag.date, .unsigned(let n)): creationDate = Double(n)
            case .tagged(URTag.date, .float(let f)): creationDate = f
            case .tagged(URTag.days, .unsigned(let n)): creationDate = Double(n) * 86_400
            default: throw .field("seed", "field 2 must be a date (tag 1 or 100)")
            }
        } else {
            creationDate = nil
        }
        name = try r.text(3)
        note = try r.text(4)
    }

    /// Seconds since the epoch are written with tag 1.
    public var cbor: CBOR {
        cborMap([
            (1, .bytes(payload.bytesCopy)), (2, creationDate.map { .tagged(URTag.date, .unsigned(UInt64($0))) }),
            (3, name.map(CBOR.text)), (4, note.map(CBOR.text)),
        ])
    }
}

/// `crypto-bip39`: the words and their language.
public struct URBIP39: Sendable {
    public static let types = ["crypto-bip39"]
    public let words: Secret
    public let language: String?

    public init(cbor item: CBOR) throws(URError) {
        let r = try FieldReader("crypto-bip39", item, tags: [URTag.bip39])
        guard case .array(let list) = try r.required(r.map[1], 1), !list.isEmpty, list.count <= 24 else {
            throw .field("crypto-bip39", "field 1 must be a list of 1 to 24 words")
        }
        var words: [String] = []
        for w in list {
            guard case .text(let s) = w else { throw .field("crypto-bip39", "every word must be text") }
            words.append(s)
        }
        self.words = Secret(bytes: Array(words.joined(separator: " ").utf8))
        language = try r.text(2)
    }
}

// MARK: - keypath, hdkey

/// `keypath` / `crypto-keypath`: path components, the source (master) fingerprint and a depth.
public struct URKeypath: Sendable, Equatable {
    public enum Component: Sendable, Equatable {
        case index(UInt32, hardened: Bool)
        case wildcard(hardened: Bool)
        case range(UInt32, UInt32, hardened: Bool)
    }

    public let components: [Component]
    public let sourceFingerprint: UInt32?
    public let depth: Int?

    public init(components: [Component], sourceFingerprint: UInt32? = nil, depth: Int? = nil) {
        self.components = components
        self.sourceFingerprint = sourceFingerprint
        self.depth = depth
    }

    /// The path of a BIP-32 derivation path.
    public init(_ path: DerivationPath, sourceFingerprint: UInt32? = nil, depth: Int? = nil) {
        self.init(
            components: path.components.map { .index($0.index, hardened: $0.hardened) },
            sourceFingerprint: sourceFingerprint, depth: depth)
    }

    /// The derivation path, when every component is a plain index.
    public var derivationPath: DerivationPath? {
        var out: [ChildIndex] = []
        for c in components {
            guard case .index(let i, let h) = c else { return nil }
            out.append(ChildIndex(i, hardened: h))
        }
        return DerivationPath(absolute: true, out)
    }

    /// `m/44'/60'/0'/0/*` text.
    public var text: String {
        "m"
            + components.map { c -> String in
                switch c {
                case .index(let i, let h): "/\(i)" + (h ? "'" : "")
                case .wildcard(let h): "/*" + (h ? "'" : "")
                case .range(let lo, let hi, let h): "/<\(lo)-\(hi)>" + (h ? "'" : "")
                }
            }.joined()
    }

    public init(cbor item: CBOR) throws(URError) {
        let r = try FieldReader("keypath", item, tags: [URTag.keypath.v1, URTag.keypath.v2])
        guard case .array(let raw) = try r.required(r.map[1], 1), raw.count <= 2 * 255 else {
            throw .field("keypath", "field 1 must be a list of components")
        }
        var components: [Component] = []
        var i = 0
        while i < raw.count {
            // An index (or [] wildcard, [lo, hi] range), then its hardened flag; Keycard Shell writes a
            // lone `false` for a wildcard, which readers in the field take as `*`.
            if case .bool(let h) = raw[i] {
                components.append(.wildcard(hardened: h))
                i += 1
                continue
            }
            guard i + 1 < raw.count, case .bool(let hardened) = raw[i + 1] else {
                throw .field("keypath", "each component is an index and a hardened flag")
            }
            switch raw[i] {
            case .unsigned(let n) where n < 1 << 31: components.append(.index(UInt32(n), hardened: hardened))
            case .array(let a) where a.isEmpty: components.append(.wildcard(hardened: hardened))
            case .array(let a) where a.count == 2:
                guard case .unsigned(let lo) = a[0], case .unsigned(let hi) = a[1], lo < hi, hi < 1 << 31 else {
                    throw .field("keypath", "a range is [low, high] below 2³¹")
                }
                components.append(.range(UInt32(lo), UInt32(hi), hardened: hardened))
            default: throw .field("keypath", "a component must be an index below 2³¹, [] or [low, high]")
            }
            i += 2
        }
        self.components = components
        sourceFingerprint = try r.uint(2, max: UInt64(UInt32.max)).map(UInt32.init)
        depth = try r.uint(3, max: 255).map(Int.init)
    }

    public var cbor: CBOR {
        let items: [CBOR] = components.flatMap { c -> [CBOR] in
            switch c {
            case .index(let i, let h): [.unsigned(UInt64(i)), .bool(h)]
            case .wildcard(let h): [.array([]), .bool(h)]
            case .range(let lo, let hi, let h): [.array([.unsigned(UInt64(lo)), .unsigned(UInt64(hi))]), .bool(h)]
            }
        }
        return cborMap([
            (1, .array(items)), (2, sourceFingerprint.map { .unsigned(UInt64($0)) }),
            (3, depth.map { .unsigned(UInt64($0)) }),
        ])
    }
}

/// `hdkey` / `crypto-hdkey`: a BIP-32 key with where it comes from.
public struct URHDKey: Sendable {
    public static let types = ["crypto-hdkey", "hdkey"]
    public let isMaster: Bool
    public let isPrivate: Bool
    /// 33 bytes: 00 ‖ private key, or a compressed public key.
    public let keyData: Secret
    public let chainCode: [UInt8]?
    /// Coin type (0 Bitcoin, 60 Ethereum) and network (0 main).
    public let coinType: UInt32?
    public let network: Int?
    public let origin: URKeypath?
    public let children: URKeypath?
    public let parentFingerprint: UInt32?
    public let name: String?
    public let note: String?

    public init(
        isMaster: Bool = false, isPrivate: Bool = false, keyData: Secret, chainCode: [UInt8]?, coinType: UInt32? = nil,
        network: Int? = nil, origin: URKeypath? = nil, children: URKeypath? = nil, parentFingerprint: UInt32? = nil,
        name: String? = nil, note: String? = nil
    ) {
        self.isMaster = isMaster
        self.isPrivate = isPrivate
        self.keyData = keyData
        self.chainCode = chainCode
        self.coinType = coinType
        self.network = network
        self.origin = origin
        self.children = children
        self.parentFingerprint = parentFingerprint
        self.name = name
        self.note = note
    }

    public init(cbor item: CBOR) throws(URError) {
        let r = try FieldReader("hdkey", item, tags: [URTag.hdkey.v1, URTag.hdkey.v2])
        isMaster = try r.bool(1) ?? false
        let privateFlag = try r.bool(2) ?? false
        isPrivate = isMaster || privateFlag
        let key = try r.required(try r.bytes(3, count: 33...33), 3)
        guard isPrivate ? key[0] == 0 : (key[0] == 2 || key[0] == 3) else {
            throw .field(
                "hdkey", isPrivate ? "a private key is 00 ‖ 32 bytes" : "a public key is compressed (02/03 ‖ X)")
        }
        keyData = Secret(bytes: key)
        chainCode = try r.bytes(4, count: 32...32)
        if isMaster, chainCode == nil { throw .field("hdkey", "a master key needs its chain code (field 4)") }
        if let info = try r.tagged(5, [URTag.coinInfo.v1, URTag.coinInfo.v2]) {
            let c = try FieldReader("coin-info", info)
            coinType = try c.uint(1, max: UInt64(Int32.max)).map(UInt32.init)
            network = try c.int(2)
        } else {
            coinType = nil
            network = nil
        }
        origin = try r.tagged(6, [URTag.keypath.v1, URTag.keypath.v2]).map { x throws(URError) in try URKeypath(cbor: x)
        }
        children = try r.tagged(7, [URTag.keypath.v1, URTag.keypath.v2]).map { x throws(URError) in
            try URKeypath(cbor: x)
        }
        parentFingerprint = try r.uint(8, max: UInt64(UInt32.max)).map(UInt32.init)
        name = try r.text(9)
        note = try r.text(10)
    }

    /// The map; `v2` picks the embedded tags' version.
    public func cbor(v2: Bool = false) -> CBOR {
        let keypathTag = v2 ? URTag.keypath.v2 : URTag.keypath.v1
        let coin: CBOR? =
            coinType == nil && network == nil
            ? nil
            : .tagged(
                v2 ? URTag.coinInfo.v2 : URTag.coinInfo.v1,
                cborMap([(1, coinType.map { .unsigned(UInt64($0)) }), (2, network.map(CBOR.int))]))
        if isMaster {
            return cborMap([(1, .bool(true)), (3, .bytes(keyData.bytesCopy)), (4, chainCode.map(CBOR.bytes))])
        }
        return cborMap([
            (2, isPrivate ? .bool(true) : nil), (3, .bytes(keyData.bytesCopy)), (4, chainCode.map(CBOR.bytes)),
            (5, coin), (6, origin.map { .tagged(keypathTag, $0.cbor) }),
            (7, children.map { .tagged(keypathTag, $0.cbor) }),
            (8, parentFingerprint.map { .unsigned(UInt64($0)) }), (9, name.map(CBOR.text)), (10, note.map(CBOR.text)),
        ])
    }

    /// The HD key of an extended key: its origin path and the master fingerprint it comes from.
    public init(
        _ key: ExtendedKey, path: DerivationPath, masterFingerprint: UInt32?, coinType: UInt32? = nil,
        children: URKeypath? = nil, name: String? = nil, note: String? = nil
    ) {
        let keyData = key.privateKey.map { [0] + $0.secret.bytesCopy } ?? key.publicKey.compressed
        self.init(
            isMaster: false, isPrivate: key.isPrivate, keyData: Secret(bytes: keyData), chainCode: key.chainCode,
            coinType: coinType, network: coinType == nil ? nil : 0,
            origin: URKeypath(path, sourceFingerprint: masterFingerprint, depth: path.components.count),
            children: children, parentFingerprint: key.depth == 0 ? nil : key.parentFingerprint, name: name, note: note)
    }

    /// The extended key it describes: depth and child number from the origin path, parent
    /// fingerprint from field 8 — or, one level below the master, the origin's source fingerprint
    /// (the master is the parent) — else 0; version xpub/xprv (tpub/tprv on a test network).
    public func extendedKey() throws(URError) -> ExtendedKey {
        guard let chainCode else { throw .field("hdkey", "the key has no chain code, so it is no extended key") }
        let testnet = (network ?? 0) == 1
        let depth = isMaster ? 0 : (origin?.depth ?? origin?.components.count ?? 0)
        var child: UInt32 = 0
        if !isMaster, let last = origin?.components.last {
            guard case .index(let i, let h) = last else { throw .field("hdkey", "the origin path ends in a wildcard") }
            child = h ? i | ChildIndex.hardenedOffset : i
        }
        let bytes = keyData.bytesCopy
        let parentFingerprint = self.parentFingerprint ?? (depth == 1 ? origin?.sourceFingerprint : nil)
        do {
            if isPrivate {
                return try ExtendedKey(
                    privateKey: PrivateKey(bytes: Array(bytes[1...])), chainCode: chainCode,
                    depth: UInt8(min(depth, 255)),
                    parentFingerprint: parentFingerprint ?? 0, childNumber: child, version: testnet ? .tprv : .xprv)
            }
            return try ExtendedKey(
                publicKey: PublicKey(bytes: bytes), chainCode: chainCode, depth: UInt8(min(depth, 255)),
                parentFingerprint: parentFingerprint ?? 0, childNumber: child, version: testnet ? .tpub : .xpub)
        } catch {
            throw .field("hdkey", "the key is not a valid secp256k1 key")
        }
    }
}

// MARK: - output descriptor, account

/// `crypto-output`: script expressions (tags 400–410) around a key, or around a threshold of keys
/// (`multi`, `sortedmulti`).
public struct UROutput: Sendable {
    public static let types = ["crypto-output"]

    /// A key in a descriptor: an HD key (tag 303) or a plain EC key (tag 306: 33-byte public or
    /// 32-byte private key).
    public enum Key: Sendable {
        case hd(URHDKey)
        case ec(isPrivate: Bool, data: Secret)
    }

    /// What the scripts wrap.
    public enum Body: Sendable {
        case key(Key)
        case multi(sorted: Bool, threshold: Int, keys: [Key])
    }

    /// Outermost first, e.g. [sh, wpkh], without the multi expression.
    public let scripts: [UInt64]
    public let body: Body

    public init(scripts: [UInt64], body: Body) {
        self.scripts = scripts
        self.body = body
    }

    /// The HD key of a single-key output.
    public var hdKey: URHDKey? {
        if case .key(.hd(let k)) = body { return k }
        return nil
    }

    public init(cbor item: CBOR) throws(URError) {
        var item = item
        if case .tagged(let t, let inner) = item, t == URTag.output.v1 || t == URTag.output.v2 { item = inner }
        if case .map = item, case .text(let source)? = item[1] {
            try self.init(source: source, descriptor: item)
            return
        }
        var scripts: [UInt64] = []
        while case .tagged(let t, let inner) = item, URTag.scripts[t] != nil, t != 406, t != 407 {
            scripts.append(t)
            item = inner
        }
        if case .tagged(let t, let inner) = item, t == 406 || t == 407 {
            let r = try FieldReader("crypto-output", inner)
            let threshold = try r.required(try r.uint(1, max: 20), 1)
            guard case .array(let list) = try r.required(r.map[2], 2), (1...20).contains(list.count),
                Int(threshold) <= list.count
            else {
                throw .field("crypto-output", "a multisig needs 1 to 20 keys and a threshold up to their number")
            }
            var keys: [Key] = []
            for k in list { keys.append(try Self.key(k)) }
            self.init(scripts: scripts, body: .multi(sorted: t == 407, threshold: Int(threshold), keys: keys))
        } else {
            self.init(scripts: scripts, body: .key(try Self.key(item)))
        }
    }

    /// A version 3 output descriptor (BCR-2023-010): `{1: source text, 2: [keys]}`, the source
    /// naming its keys `@0`, `@1`, … (`sh(wpkh(@0))`, `wsh(sortedmulti(2,@0,@1))`).
    private init(source: String, descriptor item: CBOR) throws(URError) {
        let r = try FieldReader("output-descriptor", item)
        var keys: [Key] = []
        if case .array(let list)? = r.map[2] {
            for k in list { keys.append(try Self.key(k)) }
        }
        func keyAt(_ ref: Substring) throws(URError) -> Key {
            guard ref.hasPrefix("@"), let i = Int(ref.dropFirst()), keys.indices.contains(i) else {
                throw .field("output-descriptor", "\(ref) names no key of the descriptor")
            }
            return keys[i]
        }
        let byName = Dictionary(uniqueKeysWithValues: URTag.scripts.map { ($1, $0) })
        var parts = source.split(separator: "(", omittingEmptySubsequences: false)
        let arguments = parts.removeLast().trimmingCharacters(in: CharacterSet(charactersIn: ")"))
        var scripts: [UInt64] = []
        var multi: Bool?
        for name in parts {
            if name == "multi" || name == "sortedmulti" {
                multi = name == "sortedmulti"
                continue
            }
            guard let tag = byName[String(name)], multi == nil else {
                throw .field("output-descriptor", "\"\(source)\" is not a descriptor kcs reads")
            }
            scripts.append(tag)
        }
        let args = arguments.split(separator: ",")
        if let sorted = multi {
            guard let threshold = args.first.flatMap({ Int($0) }), args.count > 1 else {
                throw .field("output-descriptor", "\"\(source)\": a multisig needs a threshold and keys")
            }
            var list: [Key] = []
            for ref in args.dropFirst() { list.append(try keyAt(ref)) }
            self.init(scripts: scripts, body: .multi(sorted: sorted, threshold: threshold, keys: list))
        } else {
            guard args.count == 1 else {
                throw .field("output-descriptor", "\"\(source)\" is not a descriptor kcs reads")
            }
            self.init(scripts: scripts, body: .key(try keyAt(args[0])))
        }
    }

    private static func key(_ item: CBOR) throws(URError) -> Key {
        switch item {
        case .tagged(let t, let k) where t == URTag.hdkey.v1 || t == URTag.hdkey.v2: return .hd(try URHDKey(cbor: k))
        case .tagged(let t, let k) where t == 306 || t == 40306:
            let r = try FieldReader("eckey", k)
            let isPrivate = try r.bool(2) ?? false
            let data = try r.required(try r.bytes(3, count: isPrivate ? 32...32 : 33...33), 3)
            return .ec(isPrivate: isPrivate, data: Secret(bytes: data))
        default: throw .field("crypto-output", "expected an HD key (tag 303) or an EC key (tag 306)")
        }
    }

    private static func cbor(_ key: Key) -> CBOR {
        switch key {
        case .hd(let k): .tagged(URTag.hdkey.v1, k.cbor())
        case .ec(let isPrivate, let data):
            .tagged(306, cborMap([(2, isPrivate ? .bool(true) : nil), (3, .bytes(data.bytesCopy))]))
        }
    }

    public var cbor: CBOR {
        let inner: CBOR
        switch body {
        case .key(let k): inner = Self.cbor(k)
        case .multi(let sorted, let threshold, let keys):
            inner = .tagged(
                sorted ? 407 : 406, cborMap([(1, .unsigned(UInt64(threshold))), (2, .array(keys.map(Self.cbor)))]))
        }
        return scripts.reversed().reduce(inner) { .tagged($1, $0) }
    }

    /// The script expressions' names, outermost first (`sh`, `wpkh`; `multi` for the threshold).
    public var scriptNames: [String] {
        var names = scripts.compactMap { URTag.scripts[$0] }
        if case .multi(let sorted, _, _) = body { names.append(sorted ? "sortedmulti" : "multi") }
        return names
    }
}

/// `crypto-account`: a master fingerprint and its outputs.
public struct URAccount: Sendable {
    public static let types = ["crypto-account"]
    public let masterFingerprint: UInt32
    public let outputs: [UROutput]

    public init(masterFingerprint: UInt32, outputs: [UROutput]) {
        self.masterFingerprint = masterFingerprint
        self.outputs = outputs
    }

    public init(cbor item: CBOR) throws(URError) {
        let r = try FieldReader("crypto-account", item, tags: [URTag.account.v1, URTag.account.v2])
        masterFingerprint = UInt32(try r.required(try r.uint(1, max: UInt64(UInt32.max)), 1))
        guard case .array(let list) = try r.required(r.map[2], 2), !list.isEmpty else {
            throw .field("crypto-account", "field 2 must be a list of outputs")
        }
        var outputs: [UROutput] = []
        for o in list { outputs.append(try UROutput(cbor: o)) }
        self.outputs = outputs
    }

    /// The outputs wrapped in tag 308, as BCR-2020-015 writes them.
    public var cbor: CBOR {
        cborMap([
            (1, .unsigned(UInt64(masterFingerprint))), (2, .array(outputs.map { .tagged(URTag.output.v1, $0.cbor) })),
        ])
    }
}

// MARK: - Ethereum (ERC-4527)

/// `eth-sign-request`: what a watch-only wallet asks an air-gapped signer to sign.
public struct ETHSignRequest: Sendable {
    public static let types = ["eth-sign-request"]

    /// What `signData` is.
    public enum DataType: Int, Sendable {
        /// RLP of a legacy transaction.
        case legacyTransaction = 1
        /// EIP-712 typed data as JSON.
        case typedData = 2
        /// A personal message (EIP-191).
        case personalMessage = 3
        /// An EIP-2718 typed transaction: type ‖ RLP.
        case typedTransaction = 4
    }

    public let requestID: [UInt8]?
    public let signData: [UInt8]
    public let dataType: DataType
    public let chainID: Int?
    public let path: URKeypath
    public let address: [UInt8]?
    public let origin: String?

    public init(
        requestID: [UInt8]?, signData: [UInt8], dataType: DataType, chainID: Int?, path: URKeypath,
        address: [UInt8]?, origin: String?
    ) {
        self.requestID = requestID
        self.signData = signData
        self.dataType = dataType
        self.chainID = chainID
        self.path = path
        self.address = address
        self.origin = origin
    }

    public init(cbor item: CBOR) throws(URError) {
        let r = try FieldReader("eth-sign-request", item, tags: [URTag.ethSignRequest])
        requestID = try r.uuid(1)
        signData = try r.required(try r.bytes(2), 2)
        let t = try r.required(try r.uint(3, max: 255), 3)
        guard let type = DataType(rawValue: Int(t)) else {
            throw .field("eth-sign-request", "data type \(t) is not 1 to 4")
        }
        dataType = type
        chainID = try r.int(4)
        path = try URKeypath(cbor: try r.required(try r.tagged(5, [URTag.keypath.v1, URTag.keypath.v2]), 5))
        address = try r.bytes(6, count: 20...20)
        origin = try r.text(7)
    }

    public var cbor: CBOR {
        cborMap([
            (1, requestID.map { .tagged(URTag.uuid, .bytes($0)) }), (2, .bytes(signData)),
            (3, .unsigned(UInt64(dataType.rawValue))),
            (4, chainID.map(CBOR.int)), (5, .tagged(URTag.keypath.v1, path.cbor)), (6, address.map(CBOR.bytes)),
            (7, origin.map(CBOR.text)),
        ])
    }
}

/// `eth-signature`: the signature (r ‖ s ‖ v) and the request id it answers.
public struct ETHSignature: Sendable {
    public static let types = ["eth-signature"]
    public let requestID: [UInt8]?
    public let signature: [UInt8]
    public let origin: String?

    public init(requestID: [UInt8]?, signature: [UInt8], origin: String?) {
        self.requestID = requestID
        self.signature = signature
        self.origin = origin
    }

    public init(cbor item: CBOR) throws(URError) {
        let r = try FieldReader("eth-signature", item, tags: [URTag.ethSignature])
        requestID = try r.uuid(1)
        signature = try r.required(try r.bytes(2, count: 65...68), 2)
        origin = try r.text(3)
    }

    public var cbor: CBOR {
        cborMap([
            (1, requestID.map { .tagged(URTag.uuid, .bytes($0)) }), (2, .bytes(signature)), (3, origin.map(CBOR.text)),
        ])
    }
}
