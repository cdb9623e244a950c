import Foundation
import KCSErrors

// Ethereum keystore files, version 3: the "Web3 Secret Storage Definition"
// (ethereum/ethereum-org-website, public/content/developers/docs/data-structures-and-encoding/
// web3-secret-storage/index.md), as written by go-ethereum (accounts/keystore/passphrase.go).
//
//   DK         = KDF(password, salt, …)            scrypt or PBKDF2-HMAC-SHA256, dklen ≥ 32
//   cipher key = DK[0..<16]                        AES-128-CTR, 16-byte IV as the initial counter
//   MAC        = Keccak-256(DK[16..<32] ‖ ciphertext)

// MARK: - Errors

/// Every way reading, decrypting or writing a keystore V3 file can fail.
///
/// Cases carry facts (the field's dotted path inside the JSON, what was expected, what was
/// found); the sentence is written once, in `description`. Field paths use the spelling the
/// file used, so a MyEtherWallet file reports `Crypto.kdf`, a geth file `crypto.kdf`.
/// Secret material (password, derived key, plaintext) never appears in a case.
public enum KeystoreError: WalletError, Equatable {
    /// The bytes are not JSON text at all; `detail` is the parser's explanation.
    case notJSON(detail: String)
    /// A required field is absent (`field` is its dotted path, e.g. `crypto.kdfparams.salt`).
    case missingField(field: String)
    /// A field holds the wrong JSON type (`expected`/`given` are phrases like "a string");
    /// an empty `field` means the whole file.
    case wrongType(field: String, expected: String, given: String)
    /// A field meant to be hex does not decode; `error` says where and why.
    case badHex(field: String, error: WalletCryptoError)
    /// A hex field decodes to the wrong number of bytes.
    case wrongLength(field: String, expected: String, given: Int)
    /// `version` is present and is not 3.
    case unsupportedVersion(given: Int)
    /// `crypto.kdf` is neither `scrypt` nor `pbkdf2`.
    case unsupportedKDF(field: String, given: String)
    /// `crypto.cipher` is not `aes-128-ctr`.
    case unsupportedCipher(field: String, given: String)
    /// `crypto.kdfparams.prf` is not `hmac-sha256`.
    case unsupportedPRF(field: String, given: String)
    /// A numeric KDF parameter out of range (dklen < 32, n not a power of two, too much memory…).
    case invalidParameter(field: String, expected: String, given: String)
    /// A KDF parameter asking for more work or memory than the ceiling (`KeystoreV3.CostCeiling`)
    /// allows; `ceiling` is the phrase after "at most", `given` the value with what it costs.
    case kdfTooExpensive(field: String, ceiling: String, given: String)
    /// The MAC computed from the password does not match the file: almost always a wrong password.
    case macMismatch
    /// The MAC matched but the plaintext is not a secp256k1 private key (0 or ≥ n).
    case invalidPrivateKey
    /// The MAC matched but the key's address differs from the file's `address` field: the file
    /// was corrupted or crafted. Both addresses are EIP-55 strings.
    case addressMismatch(field: String, inFile: String, derived: String)
    /// A key derivation or cipher failure reported by WalletCrypto that no check above caught.
    case cryptoFailure(WalletCryptoError)
    /// The keystore file could not be read (`reason` is the system's explanation).
    case unreadable(path: String, reason: String)
    /// Writing the keystore file failed; the target was left as it was.
    case writeFailed(AtomicFileError)

    /// Stable identifier, e.g. `keystore.macMismatch`.
    public var id: String {
        switch self {
        case .notJSON: "keystore.notJSON"
        case .missingField: "keystore.missingField"
        case .wrongType: "keystore.wrongType"
        case .badHex: "keystore.badHex"
        case .wrongLength: "keystore.wrongLength"
        case .unsupportedVersion: "keystore.unsupportedVersion"
        case .unsupportedKDF: "keystore.unsupportedKDF"
        case .unsupportedCipher: "keystore.unsupportedCipher"
        case .unsupportedPRF: "keystore.unsupportedPRF"
        case .invalidParameter: "keystore.invalidParameter"
        case .kdfTooExpensive: "keystore.kdfTooExpensive"
        case .macMismatch: "keystore.macMismatch"
        case .invalidPrivateKey: "keystore.invalidPrivateKey"
        case .addressMismatch: "keystore.addressMismatch"
        case .cryptoFailure: "keystore.cryptoFailure"
        case .unreadable: "keystore.unreadable"
        case .writeFailed: "keystore.writeFailed"
        }
    }

    public var description: String {
        switch self {
        case .notJSON(let detail):
            "keystore file must be a JSON object, got text that does not parse as JSON (\(detail))"
        case .missingField(let field):
            "keystore field \(field) is missing"
        case .wrongType(let field, let expected, let given) where field.isEmpty:
            "keystore file must be \(expected), got \(given)"
        case .wrongType(let field, let expected, let given):
            "keystore field \(field) must be \(expected), got \(given)"
        case .badHex(let field, let error):
            "keystore field \(field) must be hex: \(error.description)"
        case .wrongLength(let field, let expected, let given):
            "keystore field \(field) must be \(expected), got \(given) byte\(given == 1 ? "" : "s")"
        case .unsupportedVersion(let given):
            "keystore field version must be 3, got \(given)"
        case .unsupportedKDF(let field, let given):
            "keystore field \(field) must be \"scrypt\" or \"pbkdf2\", got \"\(given)\""
        case .unsupportedCipher(let field, let given):
            "keystore field \(field) must be \"aes-128-ctr\", got \"\(given)\""
        case .unsupportedPRF(let field, let given):
            "keystore field \(field) must be \"hmac-sha256\", got \"\(given)\""
        case .invalidParameter(let field, let expected, let given):
            "keystore field \(field) must be \(expected), got \(given)"
        case .kdfTooExpensive(let field, let ceiling, let given):
            "keystore field \(field) must be at most \(ceiling), got \(given)"
        case .macMismatch:
            "wrong password, or the file was changed: its MAC does not match"
        case .invalidPrivateKey:
            "keystore decrypted to a value that is not a secp256k1 private key (must be between 1 and n-1); "
                + "the file is corrupted or crafted"
        case .addressMismatch(let field, let inFile, let derived):
            "keystore field \(field) must be the address of the decrypted key, \(derived), got \(inFile); "
                + "the file is corrupted or crafted"
        case .cryptoFailure(let error):
            "keystore cryptography failed: \(error.description)"
        case .unreadable(let path, let reason):
            "keystore file \(path) cannot be read: \(reason)"
        case .writeFailed(let error):
            "keystore file was not written: \(error.description)"
        }
    }
}

// MARK: - The parsed file

/// A parsed Ethereum keystore V3 file (Web3 Secret Storage Definition): every field checked
/// and decoded, nothing decrypted yet.
///
/// Reading follows the definition and what go-ethereum, ethers.js and eth-keyfile accept:
/// - the crypto object may be spelled `crypto` (spec, geth) or `Crypto` (MyEtherWallet, ethers);
/// - `address`, `version` and `id` may be absent; a present `version` must be 3;
/// - unknown fields (`x-ethers`, `meta`, `name`, …) are ignored;
/// - `kdf` is `scrypt` (`n`, `r`, `p`, `dklen`, `salt`) or `pbkdf2` (`c`, `dklen`,
///   `prf` = `hmac-sha256`, `salt`); `dklen` must be at least 32 because the MAC uses DK[16..<32];
/// - `cipher` is `aes-128-ctr` with a 16-byte `cipherparams.iv`;
/// - `ciphertext` is 1…32 bytes (a private key), `mac` is 32 bytes.
///
/// Decrypting checks the MAC in constant time before anything is decrypted.
public struct KeystoreV3: Sendable {
    /// The key derivation function and its cost parameters (salt and dklen are kept separately).
    public enum KDF: Sendable, Equatable {
        /// scrypt (RFC 7914) with cost `n` (power of two ≥ 2), block size `r` and parallelism `p`.
        case scrypt(n: Int, r: Int, p: Int)
        /// PBKDF2 (RFC 8018) with HMAC-SHA256, the only PRF the definition names.
        case pbkdf2(iterations: Int)

        /// geth's standard parameters (`StandardScryptN`, `StandardScryptP`): n = 2¹⁸, r = 8, p = 1,
        /// 256 MiB and about a second per attempt on a desktop.
        public static let standard = KDF.scrypt(n: 262_144, r: 8, p: 1)
        /// geth's light parameters (`LightScryptN`, `LightScryptP`): n = 4096, r = 8, p = 6,
        /// 4 MiB; for constrained machines and tests.
        public static let light = KDF.scrypt(n: 4096, r: 8, p: 6)
        /// PBKDF2-HMAC-SHA256 with 262144 iterations, the spec's PBKDF2 example cost.
        public static let pbkdf2Standard = KDF.pbkdf2(iterations: 262_144)

        /// `scrypt n=262144, r=8, p=1` or `pbkdf2-sha256 c=262144`, for progress and results.
        public var summary: String {
            switch self {
            case .scrypt(let n, let r, let p): "scrypt n=\(n), r=\(r), p=\(p)"
            case .pbkdf2(let iterations): "pbkdf2-sha256 c=\(iterations)"
            }
        }
    }

    /// The most a keystore file may ask of its KDF. A file is untrusted input and its
    /// parameters set the cost: scrypt p = 2²⁰ runs for hours, n = 2²⁰ r = 15 takes 1.9 GiB,
    /// PBKDF2 c = 2³¹ for minutes. The ceilings sit well above what wallets write
    /// (docs/wallet-core.md): geth's standard scrypt is n = 2¹⁸, r = 8, p = 1 (256 MiB,
    /// n·r·p = 2²¹), eth-keyfile's n = 2¹⁸, r = 1, p = 8 (n·r·p = 2²¹), and eth-keyfile's
    /// PBKDF2 default is c = 1,000,000.
    public struct CostCeiling: Sendable, Equatable {
        /// The largest n·r: scrypt's V array takes 128·n·r bytes.
        public var scryptMemory: Int
        /// The largest n·r·p: the number of 128-byte block mixes, which sets the time.
        public var scryptWork: Int
        /// The largest PBKDF2 iteration count `c`.
        public var pbkdf2Iterations: Int

        public init(scryptMemory: Int, scryptWork: Int, pbkdf2Iterations: Int) {
            self.scryptMemory = scryptMemory
            self.scryptWork = scryptWork
            self.pbkdf2Iterations = pbkdf2Iterations
        }

        /// n·r ≤ 2²³ (1 GiB, 4× geth's standard), n·r·p ≤ 2²⁴ (8× geth's standard, a few
        /// seconds), c ≤ 10,000,000 (10× eth-keyfile's default).
        public static let standard = CostCeiling(
            scryptMemory: 1 << 23, scryptWork: 1 << 24, pbkdf2Iterations: 10_000_000)
        /// No ceiling beyond WalletCrypto's own limits (2 GiB of scrypt memory, r·p < 2³⁰).
        public static let unbounded = CostCeiling(scryptMemory: .max, scryptWork: .max, pbkdf2Iterations: .max)
    }

    /// The KDF and its cost.
    public let kdf: KDF
    /// The KDF salt (`kdfparams.salt`).
    public let salt: [UInt8]
    /// Length of the derived key in bytes (`kdfparams.dklen`), at least 32.
    public let dklen: Int
    /// The AES-128-CTR initial counter block (`cipherparams.iv`), 16 bytes.
    public let iv: [UInt8]
    /// The encrypted private key, 1…32 bytes.
    public let ciphertext: [UInt8]
    /// Keccak-256(DK[16..<32] ‖ ciphertext), 32 bytes.
    public let mac: [UInt8]
    /// The `address` field when present; checked against the decrypted key.
    public let address: EthereumAddress?
    /// The `id` field when present (a UUID string; not interpreted).
    public let id: String?

    /// The name the file used for the crypto object (`crypto` or `Crypto`), for error paths.
    private let cryptoName: String

    // MARK: Parsing

    /// Parses and checks a keystore V3 file. Throws the first problem found, naming the field.
    public init(json: [UInt8]) throws(KeystoreError) {
        let root: Any
        do { root = try JSONText.parse(json) } catch { throw .notJSON(detail: error.description) }
        guard let object = root as? [String: Any] else {
            throw .wrongType(field: "", expected: "a JSON object", given: JSONField.kind(of: root))
        }
        try self.init(object: object)
    }

    /// Parses a keystore file given as text (see `init(json:)`).
    public init(jsonText: String) throws(KeystoreError) {
        try self.init(json: Array(jsonText.utf8))
    }

    /// Checks an already-parsed JSON object (as `JSONSerialization` returns it).
    private init(object: [String: Any]) throws(KeystoreError) {
        let top = JSONField(object: object, path: "")
        if let version = try top.optionalInt("version"), version != 3 {
            throw .unsupportedVersion(given: version)
        }
        id = try top.optionalString("id")
        if let text = try top.optionalString("address") {
            let decoded: [UInt8]
            do { decoded = try Hex.decode(text) } catch { throw .badHex(field: "address", error: error) }
            guard decoded.count == 20 else {
                throw .wrongLength(field: "address", expected: "20 bytes (40 hex digits)", given: decoded.count)
            }
            address = try? EthereumAddress(bytes: decoded)
        } else {
            address = nil
        }

        let name = object["crypto"] != nil || object["Crypto"] == nil ? "crypto" : "Crypto"
        cryptoName = name
        let crypto = try top.object(name)

        let cipher = try crypto.string("cipher")
        guard cipher == "aes-128-ctr" else { throw .unsupportedCipher(field: crypto.path("cipher"), given: cipher) }
        let cipherparams = try crypto.object("cipherparams")
        iv = try cipherparams.hex("iv")
        guard iv.count == 16 else {
            throw .wrongLength(field: cipherparams.path("iv"), expected: "16 bytes", given: iv.count)
        }
        ciphertext = try crypto.hex("ciphertext")
        guard (1...32).contains(ciphertext.count) else {
            throw .wrongLength(
                field: crypto.path("ciphertext"), expected: "1 to 32 bytes (an encrypted private key)",
                given: ciphertext.count)
        }
        mac = try crypto.hex("mac")
        guard mac.count == 32 else {
            throw .wrongLength(field: crypto.path("mac"), expected: "32 bytes", given: mac.count)
        }

        let kdfName = try crypto.string("kdf")
        guard kdfName == "scrypt" || kdfName == "pbkdf2" else {
            throw .unsupportedKDF(field: crypto.path("kdf"), given: kdfName)
        }
        let params = try crypto.object("kdfparams")
        dklen = try params.int("dklen")
        guard (32...1024).contains(dklen) else {
            throw .invalidParameter(field: params.path("dklen"), expected: "between 32 and 1024", given: String(dklen))
        }
        salt = try params.hex("salt")
        if kdfName == "scrypt" {
            let n = try params.int("n"), r = try params.int("r"), p = try params.int("p")
            guard n >= 2, n & (n - 1) == 0 else {
                throw .invalidParameter(
                    field: params.path("n"), expected: "a power of two, at least 2",
                    given: String(n))
            }
            guard r >= 1 else {
                throw .invalidParameter(field: params.path("r"), expected: "at least 1", given: String(r))
            }
            guard p >= 1 else {
                throw .invalidParameter(field: params.path("p"), expected: "at least 1", given: String(p))
            }
            kdf = .scrypt(n: n, r: r, p: p)
        } else {
            let c = try params.int("c")
            guard c >= 1 else {
                throw .invalidParameter(field: params.path("c"), expected: "at least 1", given: String(c))
            }
            let prf = try params.string("prf")
            guard prf == KeyDerivation.PRF.hmacSHA256.rawValue else {
                throw .unsupportedPRF(field: params.path("prf"), given: prf)
            }
            kdf = .pbkdf2(iterations: c)
        }
    }

    /// Builds a keystore from already-checked parts (used by `encrypt`).
    private init(
        kdf: KDF, salt: [UInt8], iv: [UInt8], ciphertext: [UInt8], mac: [UInt8],
        address: EthereumAddress, id: String
    ) {
        self.kdf = kdf
        self.salt = salt
        self.dklen = 32
        self.iv = iv
        self.ciphertext = ciphertext
        self.mac = mac
        self.address = address
        self.id = id
        self.cryptoName = "crypto"
    }

    // MARK: Decryption

    /// Decrypts the private key with `password` (its UTF-8 bytes, as geth and ethers use them).
    ///
    /// Order of checks: derive the key, compare the MAC in constant time (`.macMismatch` on a
    /// wrong password), decrypt, check the key is a valid secp256k1 scalar, and when the file
    /// has an `address`, check it is this key's address (`.addressMismatch`).
    ///
    /// A ciphertext shorter than 32 bytes decrypts to a shorter big-endian number. go-ethereum
    /// returns those bytes unpadded (its `v3_test_vector.json` has 31- and 30-byte cases); kcs
    /// instead **left-pads with zero bytes to 32**, which is the same integer, so the key, its
    /// public key and its address are what geth derives, and `PrivateKey` always holds 32 bytes.
    ///
    /// A KDF costing more than `ceiling` is refused before it runs (`checkCost`).
    public func decrypt(password: Secret, ceiling: CostCeiling = .standard) throws(KeystoreError) -> PrivateKey {
        try decrypt(derivedKey: deriveKey(password: password, ceiling: ceiling))
    }

    /// Decrypts the file in `json` with `password`: `KeystoreV3(json:)` then `decrypt(password:)`.
    public static func decrypt(
        json: [UInt8], password: Secret,
        ceiling: CostCeiling = .standard
    ) throws(KeystoreError) -> PrivateKey {
        try KeystoreV3(json: json).decrypt(password: password, ceiling: ceiling)
    }

    /// Throws `.kdfTooExpensive` naming the parameter, its value and its largest allowed value
    /// when the file's KDF costs more than `ceiling`. Memory is checked before work, so a work
    /// excess always has p ≥ 2 to blame.
    public func checkCost(_ ceiling: CostCeiling = .standard) throws(KeystoreError) {
        let params = "\(cryptoName).kdfparams"
        switch kdf {
        case .scrypt(let n, let r, let p):
            let (memory, memoryOverflow) = n.multipliedReportingOverflow(by: r)
            if memoryOverflow || memory > ceiling.scryptMemory {
                // Blame the larger of n and r; the other stays as the file has it.
                let mib = memoryOverflow ? "more than \(Int.max >> 20)" : String(memory >> 13)
                let limit = "128·n·r = \(ceiling.scryptMemory >> 13) MiB of scrypt memory"
                if n >= r {
                    throw .kdfTooExpensive(
                        field: "\(params).n",
                        ceiling: "\(Self.powerOfTwo(atMost: ceiling.scryptMemory / r)) with r = \(r) (\(limit))",
                        given: "\(n) (\(mib) MiB)")
                }
                throw .kdfTooExpensive(
                    field: "\(params).r",
                    ceiling: "\(ceiling.scryptMemory / n) with n = \(n) (\(limit))",
                    given: "\(r) (\(mib) MiB)")
            }
            let (work, workOverflow) = memory.multipliedReportingOverflow(by: p)
            if workOverflow || work > ceiling.scryptWork {
                throw .kdfTooExpensive(
                    field: "\(params).p",
                    ceiling: "\(ceiling.scryptWork / memory) with n = \(n), r = \(r) "
                        + "(scrypt work n·r·p = \(ceiling.scryptWork))",
                    given: "\(p) (n·r·p = \(workOverflow ? "more than \(Int.max)" : String(work)))")
            }
        case .pbkdf2(let iterations):
            if iterations > ceiling.pbkdf2Iterations {
                throw .kdfTooExpensive(
                    field: "\(params).c", ceiling: "\(ceiling.pbkdf2Iterations) PBKDF2 iterations",
                    given: String(iterations))
            }
        }
    }

    /// The largest power of two ≤ `value` (at least 1).
    private static func powerOfTwo(atMost value: Int) -> Int {
        value < 2 ? 1 : 1 << (Int.bitWidth - 1 - value.leadingZeroBitCount)
    }

    /// Runs the file's KDF on `password` and returns the derived key (`dklen` bytes); refuses a
    /// KDF costing more than `ceiling` before it starts (see `checkCost`).
    public func deriveKey(password: Secret, ceiling: CostCeiling = .standard) throws(KeystoreError) -> Secret {
        try checkCost(ceiling)
        do {
            switch kdf {
            case .scrypt(let n, let r, let p):
                return try KeyDerivation.scrypt(password: password, salt: salt, n: n, r: r, p: p, length: dklen)
            case .pbkdf2(let iterations):
                return try KeyDerivation.pbkdf2(
                    password: password, salt: salt, iterations: iterations,
                    length: dklen, prf: .hmacSHA256)
            }
        } catch {
            if case .invalidKDFParameter(let parameter, let value, let expected) = error {
                throw .invalidParameter(field: "\(cryptoName).kdfparams.\(parameter)", expected: expected, given: value)
            }
            throw .cryptoFailure(error)
        }
    }

    /// The steps after the KDF: MAC check, AES-128-CTR decryption, key and address checks (see
    /// `decrypt(password:)`). `derivedKey` must be at least 32 bytes. Exposed so the spec's
    /// published intermediates can be checked independently of the KDF.
    public func decrypt(derivedKey: Secret) throws(KeystoreError) -> PrivateKey {
        guard derivedKey.count >= 32 else {
            throw .wrongLength(field: "derived key", expected: "at least 32 bytes", given: derivedKey.count)
        }
        let expected = Self.mac(derivedKey: derivedKey, ciphertext: ciphertext)
        guard ConstantTime.equal(expected, mac) else { throw .macMismatch }

        var plain: [UInt8]
        do {
            plain = try AESCipher.ctr(ciphertext, key: Self.cipherKey(derivedKey: derivedKey), iv: iv)
        } catch {
            throw .cryptoFailure(error)
        }
        // Left-pad a short key to 32 bytes (see `decrypt(password:)`), copying straight into a Secret.
        let padded = Secret(count: 32) { out in
            for (i, b) in plain.enumerated() { out[32 - plain.count + i] = b }
        }
        Secret.wipe(&plain)
        let key: PrivateKey
        do { key = try PrivateKey(padded) } catch { throw .invalidPrivateKey }

        if let address {
            let derived = EthereumAddress(publicKey: key.publicKey)
            guard derived == address else {
                throw .addressMismatch(field: "address", inFile: address.checksummed, derived: derived.checksummed)
            }
        }
        return key
    }

    // MARK: Post-KDF building blocks

    /// The AES-128 key: DK[0..<16]. `derivedKey` must be at least 32 bytes.
    public static func cipherKey(derivedKey: Secret) -> Secret {
        precondition(derivedKey.count >= 32, "a keystore derived key has at least 32 bytes")
        return derivedKey.withUnsafeBytes { Secret(bytes: $0[0..<16]) }
    }

    /// The MAC input: DK[16..<32] ‖ ciphertext. Held as a secret because half of it is key material.
    public static func macBody(derivedKey: Secret, ciphertext: [UInt8]) -> Secret {
        precondition(derivedKey.count >= 32, "a keystore derived key has at least 32 bytes")
        return derivedKey.withUnsafeBytes { dk in
            Secret(count: 16 + ciphertext.count) { out in
                for i in 0..<16 { out[i] = dk[16 + i] }
                for (i, b) in ciphertext.enumerated() { out[16 + i] = b }
            }
        }
    }

    /// The MAC: Keccak-256(DK[16..<32] ‖ ciphertext).
    public static func mac(derivedKey: Secret, ciphertext: [UInt8]) -> [UInt8] {
        macBody(derivedKey: derivedKey, ciphertext: ciphertext).withUnsafeBytes { Hash.keccak256($0) }
    }

    // MARK: Encryption

    /// Encrypts `privateKey` under `password` and returns the keystore file as UTF-8 JSON bytes
    /// in go-ethereum's layout (see `json`): lower-case `crypto`, `version` 3, a random UUID v4
    /// `id`, and `address` as 40 lower-case hex digits without `0x`.
    ///
    /// `random` supplies, in this order, the 32-byte salt, the 16-byte IV and the 16 bytes of
    /// the UUID, so a `SeededRandom` gives a reproducible file. `kdf` defaults to
    /// `.standard` (scrypt n = 262144, r = 8, p = 1); dklen is always 32.
    public static func encrypt(
        _ privateKey: PrivateKey, password: Secret, kdf: KDF = .standard,
        random: RandomSource
    ) throws(KeystoreError) -> [UInt8] {
        try seal(privateKey, password: password, kdf: kdf, random: random).json
    }

    /// Like `encrypt`, but returns the parsed form instead of the JSON bytes.
    public static func seal(
        _ privateKey: PrivateKey, password: Secret, kdf: KDF = .standard,
        random: RandomSource
    ) throws(KeystoreError) -> KeystoreV3 {
        switch kdf {
        case .scrypt(let n, let r, let p):
            guard n >= 2, n & (n - 1) == 0 else {
                throw .invalidParameter(
                    field: "crypto.kdfparams.n", expected: "a power of two, at least 2",
                    given: String(n))
            }
            guard r >= 1 else {
                throw .invalidParameter(field: "crypto.kdfparams.r", expected: "at least 1", given: String(r))
            }
            guard p >= 1 else {
                throw .invalidParameter(field: "crypto.kdfparams.p", expected: "at least 1", given: String(p))
            }
        case .pbkdf2(let iterations):
            guard iterations >= 1 else {
                throw .invalidParameter(field: "crypto.kdfparams.c", expected: "at least 1", given: String(iterations))
            }
        }
        let salt = random.bytes(32)
        let iv = random.bytes(16)
        var uuid = random.bytes(16)
        uuid[6] = uuid[6] & 0x0f | 0x40  // version 4 (RFC 9562 §5.4)
        uuid[8] = uuid[8] & 0x3f | 0x80  // variant 10xx

        // A draft with an empty MAC only to run the KDF with the chosen parameters.
        let address = EthereumAddress(publicKey: privateKey.publicKey)
        let draft = KeystoreV3(kdf: kdf, salt: salt, iv: iv, ciphertext: [], mac: [], address: address, id: "")
        // The caller chose these parameters, so no ceiling applies.
        let derivedKey = try draft.deriveKey(password: password, ceiling: .unbounded)
        var plain = privateKey.secret.withUnsafeBytes { Array($0) }
        defer { Secret.wipe(&plain) }
        let ciphertext: [UInt8]
        do {
            ciphertext = try AESCipher.ctr(plain, key: cipherKey(derivedKey: derivedKey), iv: iv)
        } catch {
            throw .cryptoFailure(error)
        }
        return KeystoreV3(
            kdf: kdf, salt: salt, iv: iv, ciphertext: ciphertext,
            mac: mac(derivedKey: derivedKey, ciphertext: ciphertext),
            address: address, id: uuidString(uuid))
    }

    /// The file as compact UTF-8 JSON in go-ethereum's field order (`encryptedKeyJSONV3`):
    /// `address`, `crypto` {`cipher`, `ciphertext`, `cipherparams`, `kdf`, `kdfparams` (keys
    /// sorted), `mac`}, `id`, `version`. Absent `address`/`id` are left out; a file read with
    /// `Crypto` is written back with `crypto`.
    public var json: [UInt8] {
        let kdfName: String
        let params: String
        switch kdf {
        case .scrypt(let n, let r, let p):
            kdfName = "scrypt"
            params = "{\"dklen\":\(dklen),\"n\":\(n),\"p\":\(p),\"r\":\(r),\"salt\":\"\(salt.hex)\"}"
        case .pbkdf2(let c):
            kdfName = "pbkdf2"
            params = "{\"c\":\(c),\"dklen\":\(dklen),\"prf\":\"hmac-sha256\",\"salt\":\"\(salt.hex)\"}"
        }
        var out = "{"
        if let address { out += "\"address\":\"\(address.bytes.hex)\"," }
        out += "\"crypto\":{\"cipher\":\"aes-128-ctr\",\"ciphertext\":\"\(ciphertext.hex)\","
        out += "\"cipherparams\":{\"iv\":\"\(iv.hex)\"},\"kdf\":\"\(kdfName)\",\"kdfparams\":\(params),"
        out += "\"mac\":\"\(mac.hex)\"},"
        if let id { out += "\"id\":\(JSONField.quoted(id))," }
        out += "\"version\":3}"
        return Array(out.utf8)
    }

    /// 8-4-4-4-12 lower-case hex.
    private static func uuidString(_ b: [UInt8]) -> String {
        [b[0..<4], b[4..<6], b[6..<8], b[8..<10], b[10..<16]].map { Hex.encode($0) }.joined(separator: "-")
    }
}

// MARK: - Typed access to JSONSerialization output

/// One JSON object plus its dotted path, with accessors that throw `KeystoreError` naming the field.
private struct JSONField {
    let object: [String: Any]
    let prefix: String

    init(object: [String: Any], path: String) {
        self.object = object
        self.prefix = path
    }

    func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }

    func value(_ key: String) throws(KeystoreError) -> Any {
        guard let v = object[key], !(v is NSNull) else { throw .missingField(field: path(key)) }
        return v
    }

    func object(_ key: String) throws(KeystoreError) -> JSONField {
        let v = try value(key)
        guard let o = v as? [String: Any] else {
            throw .wrongType(field: path(key), expected: "an object", given: Self.kind(of: v))
        }
        return JSONField(object: o, path: path(key))
    }

    func string(_ key: String) throws(KeystoreError) -> String {
        let v = try value(key)
        guard let s = v as? String else {
            throw .wrongType(field: path(key), expected: "a string", given: Self.kind(of: v))
        }
        return s
    }

    func int(_ key: String) throws(KeystoreError) -> Int {
        let v = try value(key)
        guard v is NSNumber, !Self.isBoolean(v), let i = v as? Int else {
            throw .wrongType(field: path(key), expected: "an integer", given: Self.kind(of: v))
        }
        return i
    }

    func hex(_ key: String) throws(KeystoreError) -> [UInt8] {
        let s = try string(key)
        do { return try Hex.decode(s) } catch { throw .badHex(field: path(key), error: error) }
    }

    func optionalString(_ key: String) throws(KeystoreError) -> String? {
        guard let v = object[key], !(v is NSNull) else { return nil }
        return try string(key)
    }

    func optionalInt(_ key: String) throws(KeystoreError) -> Int? {
        guard let v = object[key], !(v is NSNull) else { return nil }
        return try int(key)
    }

    /// JSONSerialization returns booleans as NSNumber too; their ObjC type is `c` (char).
    static func isBoolean(_ v: Any) -> Bool {
        guard let n = v as? NSNumber else { return false }
        return String(cString: n.objCType) == "c"
    }

    /// "a string", "a number 1.5", … for error messages (never the content of a string).
    static func kind(of v: Any) -> String {
        switch v {
        case is NSNull: return "null"
        case is String: return "a string"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        case let n as NSNumber:
            if isBoolean(n) { return "a boolean" }
            return "the number \(n)"
        default: return "a value of type \(type(of: v))"
        }
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String { JSONString.quoted(text) }
}

// MARK: - Files

extension KeystoreV3 {
    /// Reads and parses the keystore file at `path` (nothing is decrypted).
    public init(contentsOf path: String) throws(KeystoreError) {
        // A save of this file killed before its rename left a temporary copy of it: remove it.
        let (directory, name) = AtomicFile.split(path)
        AtomicFile.removeStaleTemporaries(in: directory, of: name)
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason: String
            if !FileManager.default.fileExists(atPath: path) {
                reason = "no such file"
            } else if !FileManager.default.isReadableFile(atPath: path) {
                reason = "permission denied"
            } else {
                reason = "it is not a regular file"
            }
            throw .unreadable(path: path, reason: reason)
        }
        try self.init(json: Array(data))
    }

    /// Writes this keystore to `path` atomically with mode 0600 (see `AtomicFile.write`):
    /// either the whole new file is there afterwards, or the old one is untouched; temporary
    /// copies a killed save left beside it are removed first.
    public func write(to path: String) throws(KeystoreError) {
        do { try AtomicFile.write(json, to: path) } catch { throw .writeFailed(error) }
    }
}
