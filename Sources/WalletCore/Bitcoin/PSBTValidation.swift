import WalletCrypto

// What each PSBT record must be (BIP-174, BIP-370, BIP-371 "Specification"; docs/bitcoin.md,
// "PSBT"): its key data and value lengths, the versions it may appear in, and the fields each
// version requires. Unknown types and proprietary records (FC) pass as they are.

/// Why a PSBT was refused: the map, the key (hex) and, when known, the byte offset.
public enum PSBTError: WalletError, Equatable {
    case notPSBT(reason: String)
    case tooLarge(size: Int, maximum: Int)
    case bytes(BitcoinBytesError)
    case duplicateKey(map: PSBTMapName, key: String, offset: Int)
    case field(map: PSBTMapName, key: String, problem: String, offset: Int?)
    case missing(map: PSBTMapName, field: String, version: UInt32)
    case notInVersion(map: PSBTMapName, key: String, version: UInt32)
    case truncated(map: PSBTMapName, offset: Int)
    case trailingBytes(count: Int, offset: Int)
    /// A PSBT that parses but cannot be used as asked (combining PSBTs of different transactions…).
    case unusable(reason: String)

    public var id: String {
        switch self {
        case .notPSBT: "psbt.notPSBT"
        case .tooLarge: "psbt.tooLarge"
        case .bytes: "psbt.malformed"
        case .duplicateKey: "psbt.duplicateKey"
        case .field: "psbt.badField"
        case .missing: "psbt.missingField"
        case .notInVersion: "psbt.wrongVersionField"
        case .truncated: "psbt.truncated"
        case .trailingBytes: "psbt.trailingBytes"
        case .unusable: "psbt.unusable"
        }
    }

    public var description: String {
        switch self {
        case .notPSBT(let reason): "not a PSBT: \(reason)"
        case .tooLarge(let size, let max): "the PSBT is \(size) bytes, more than the \(max) kcs reads"
        case .bytes(let e): "malformed PSBT: \(e)"
        case .duplicateKey(let map, let key, let offset):
            "\(map) has the key \(key) twice (the second at byte \(offset)); BIP-174 requires unique keys"
        case .field(let map, let key, let problem, let offset):
            "\(map), key \(key): \(problem)" + (offset.map { " (record at byte \($0))" } ?? "")
        case .missing(let map, let field, let version):
            "\(map) lacks \(field), which a version \(version) PSBT requires"
        case .notInVersion(let map, let key, let version):
            "\(map) has the key type \(key), which a version \(version) PSBT must not carry"
        case .truncated(let map, let offset): "the PSBT ends at byte \(offset), before \(map)"
        case .trailingBytes(let count, let offset): "\(count) bytes follow the last map, from byte \(offset)"
        case .unusable(let reason): reason
        }
    }

    /// The same error placed at the record starting at `offset`.
    func at(offset: Int) -> PSBTError {
        if case .field(let m, let k, let p, nil) = self { return .field(map: m, key: k, problem: p, offset: offset) }
        return self
    }
}

enum PSBTValidation {
    typealias Check = @Sendable ([UInt8]) -> String?

    /// Which PSBT versions a known key type belongs to.
    enum Versions: Sendable { case both, only0, only2 }

    /// What a known record's key data and value must be.
    struct Rule: Sendable {
        let name: String
        let versions: Versions
        /// Allowed key data lengths (nil: any).
        let keyData: Set<Int>?
        let value: Check
    }

    static func length(_ n: Int...) -> Check {
        { v in
            n.contains(v.count)
                ? nil : "the value is \(v.count) bytes, not \(n.map(String.init).joined(separator: " or "))"
        }
    }

    static let any: Check = { _ in nil }

    static func transaction(allowWitness: Bool) -> Check {
        { v in
            do {
                _ = try BitcoinTransaction.parse(v, allowWitness: allowWitness)
                return nil
            } catch {
                return "the transaction does not parse: \(error)"
            }
        }
    }

    static let derivation: Check = { v in
        v.count >= 4 && v.count % 4 == 0 ? nil : "a fingerprint and path must be 4 + 4n bytes, not \(v.count)"
    }

    static let witnessUTXO: Check = { v in
        var r = BitcoinReader(v)
        guard (try? TxOutput.parse(&r, "output")) != nil, r.atEnd else {
            return "is not one amount and script"
        }
        return nil
    }

    static let witnessStack: Check = { v in
        (try? PSBTFields.witness(v)) == nil ? "is not one witness stack" : nil
    }

    static let publicKeys: Check = { v in
        guard !v.isEmpty, v.count % 33 == 0 else { return "is \(v.count) bytes, not a list of 33-byte public keys" }
        for k in stride(from: 0, to: v.count, by: 33) where (try? PublicKey(bytes: Array(v[k..<k + 33]))) == nil {
            return "holds a participant key that is not a valid public key"
        }
        return nil
    }

    static let tapSignature: Check = { v in
        if v.count == 64 { return nil }
        if v.count == 65 { return v[64] == 0 ? "a 65-byte Schnorr signature cannot end in SIGHASH_DEFAULT (00)" : nil }
        return "a Schnorr signature is 64 or 65 bytes, not \(v.count)"
    }

    static let tapDerivation: Check = { v in
        (try? PSBTFields.tapDerivation(v)) == nil ? "is not leaf hashes followed by a fingerprint and path" : nil
    }

    static let tapTree: Check = { v in
        var r = BitcoinReader(v)
        guard !v.isEmpty else { return "a tap tree has at least one leaf" }
        while !r.atEnd {
            guard let depth = try? r.byte("depth"), depth <= 128, (try? r.byte("leaf version")) != nil,
                (try? r.lengthPrefixed("leaf script")) != nil
            else { return "is not a list of (depth ≤ 128, leaf version, script)" }
        }
        return nil
    }

    static func lockTime(_ time: Bool) -> Check {
        { v in
            guard v.count == 4 else { return "the value is \(v.count) bytes, not 4" }
            let t = v.reversed().reduce(0) { $0 << 8 | UInt32($1) }
            if time { return t >= 500_000_000 ? nil : "a time lock is at least 500000000, not \(t)" }
            return t > 0 && t < 500_000_000 ? nil : "a height lock is between 1 and 499999999, not \(t)"
        }
    }

    static let globalRules: [UInt64: Rule] = [
        0x00: Rule(name: "UNSIGNED_TX", versions: .only0, keyData: [0], value: transaction(allowWitness: false)),
        0x01: Rule(name: "XPUB", versions: .both, keyData: [78], value: derivation),
        0x02: Rule(name: "TX_VERSION", versions: .only2, keyData: [0], value: length(4)),
        0x03: Rule(name: "FALLBACK_LOCKTIME", versions: .only2, keyData: [0], value: length(4)),
        0x04: Rule(name: "INPUT_COUNT", versions: .only2, keyData: [0], value: any),
        0x05: Rule(name: "OUTPUT_COUNT", versions: .only2, keyData: [0], value: any),
        0x06: Rule(name: "TX_MODIFIABLE", versions: .only2, keyData: [0], value: length(1)),
        0xfb: Rule(name: "VERSION", versions: .both, keyData: [0], value: length(4)),
    ]

    static let inputRules: [UInt64: Rule] = [
        0x00: Rule(name: "NON_WITNESS_UTXO", versions: .both, keyData: [0], value: transaction(allowWitness: true)),
        0x01: Rule(name: "WITNESS_UTXO", versions: .both, keyData: [0], value: witnessUTXO),
        0x02: Rule(name: "PARTIAL_SIG", versions: .both, keyData: [33, 65], value: any),
        0x03: Rule(name: "SIGHASH_TYPE", versions: .both, keyData: [0], value: length(4)),
        0x04: Rule(name: "REDEEM_SCRIPT", versions: .both, keyData: [0], value: any),
        0x05: Rule(name: "WITNESS_SCRIPT", versions: .both, keyData: [0], value: any),
        0x06: Rule(name: "BIP32_DERIVATION", versions: .both, keyData: [33, 65], value: derivation),
        0x07: Rule(name: "FINAL_SCRIPTSIG", versions: .both, keyData: [0], value: any),
        0x08: Rule(name: "FINAL_SCRIPTWITNESS", versions: .both, keyData: [0], value: witnessStack),
        // Preimages: the key data is the hash, the value what hashes to it (checked in checkRecord).
        0x0a: Rule(name: "RIPEMD160", versions: .both, keyData: [20], value: any),
        0x0b: Rule(name: "SHA256", versions: .both, keyData: [32], value: any),
        0x0c: Rule(name: "HASH160", versions: .both, keyData: [20], value: any),
        0x0d: Rule(name: "HASH256", versions: .both, keyData: [32], value: any),
        0x0e: Rule(name: "PREVIOUS_TXID", versions: .only2, keyData: [0], value: length(32)),
        0x0f: Rule(name: "OUTPUT_INDEX", versions: .only2, keyData: [0], value: length(4)),
        0x10: Rule(name: "SEQUENCE", versions: .only2, keyData: [0], value: length(4)),
        0x11: Rule(name: "REQUIRED_TIME_LOCKTIME", versions: .only2, keyData: [0], value: lockTime(true)),
        0x12: Rule(name: "REQUIRED_HEIGHT_LOCKTIME", versions: .only2, keyData: [0], value: lockTime(false)),
        0x13: Rule(name: "TAP_KEY_SIG", versions: .both, keyData: [0], value: tapSignature),
        0x14: Rule(name: "TAP_SCRIPT_SIG", versions: .both, keyData: [64], value: tapSignature),
        0x15: Rule(
            name: "TAP_LEAF_SCRIPT", versions: .both, keyData: nil,
            value: { $0.isEmpty ? "a leaf script ends in its leaf version" : nil }),
        0x16: Rule(name: "TAP_BIP32_DERIVATION", versions: .both, keyData: [32], value: tapDerivation),
        0x17: Rule(name: "TAP_INTERNAL_KEY", versions: .both, keyData: [0], value: length(32)),
        0x18: Rule(name: "TAP_MERKLE_ROOT", versions: .both, keyData: [0], value: length(32)),
        // BIP-373 (MuSig2): kcs does not take part, but checks and keeps them as Core does.
        0x1a: Rule(name: "MUSIG2_PARTICIPANT_PUBKEYS", versions: .both, keyData: [33], value: publicKeys),
        0x1b: Rule(name: "MUSIG2_PUB_NONCE", versions: .both, keyData: [66, 98], value: length(66)),
        0x1c: Rule(name: "MUSIG2_PARTIAL_SIG", versions: .both, keyData: [66, 98], value: length(32)),
    ]

    static let outputRules: [UInt64: Rule] = [
        0x00: Rule(name: "REDEEM_SCRIPT", versions: .both, keyData: [0], value: any),
        0x01: Rule(name: "WITNESS_SCRIPT", versions: .both, keyData: [0], value: any),
        0x02: Rule(name: "BIP32_DERIVATION", versions: .both, keyData: [33, 65], value: derivation),
        0x03: Rule(name: "AMOUNT", versions: .only2, keyData: [0], value: length(8)),
        0x04: Rule(name: "SCRIPT", versions: .only2, keyData: [0], value: any),
        0x05: Rule(name: "TAP_INTERNAL_KEY", versions: .both, keyData: [0], value: length(32)),
        0x06: Rule(name: "TAP_TREE", versions: .both, keyData: [0], value: tapTree),
        0x07: Rule(name: "TAP_BIP32_DERIVATION", versions: .both, keyData: [32], value: tapDerivation),
        0x08: Rule(name: "MUSIG2_PARTICIPANT_PUBKEYS", versions: .both, keyData: [33], value: publicKeys),
    ]

    static func rules(_ map: PSBTMapName) -> [UInt64: Rule] {
        switch map {
        case .global: globalRules
        case .input: inputRules
        case .output: outputRules
        }
    }

    /// One record alone: its key data and value as its type requires.
    static func checkRecord(_ record: PSBTRecord, in map: PSBTMapName) throws(PSBTError) {
        guard let rule = rules(map)[record.type] else { return }
        let key = String(format: "%02x", record.type)
        if let sizes = rule.keyData, !sizes.contains(record.keyData.count) {
            throw .field(
                map: map, key: key,
                problem:
                    "\(rule.name) takes \(sizes.sorted().map(String.init).joined(separator: " or ")) bytes of key data, "
                    + "not \(record.keyData.count)", offset: nil)
        }
        if record.type == 0x15 {
            let n = record.keyData.count
            guard n >= 33, (n - 33) % 32 == 0, (n - 33) / 32 <= 128 else {
                throw .field(
                    map: map, key: key, problem: "a control block is 33 + 32m bytes (m ≤ 128), not \(n)", offset: nil)
            }
        }
        // Which parts of the key data are public keys: the whole (33 or 65 bytes), or MuSig2's
        // participant and aggregate keys (33 bytes each, a leaf hash after them).
        let keyParts: [Range<Int>]
        switch (map, record.type) {
        case (.input, 0x02), (.input, 0x06), (.output, 0x02), (.input, 0x1a), (.output, 0x08):
            keyParts = [0..<record.keyData.count]
        case (.input, 0x1b), (.input, 0x1c): keyParts = [0..<33, 33..<66]
        default: keyParts = []
        }
        for part in keyParts where (try? PublicKey(bytes: Array(record.keyData[part]))) == nil {
            throw .field(
                map: map, key: key, problem: "\(rule.name)'s key data holds a key that is not a valid public key",
                offset: nil)
        }
        if case .input = map, (0x0a...0x0d).contains(record.type) {
            let hashed: [UInt8] =
                switch record.type {
                case 0x0a: Hash.ripemd160(record.value)
                case 0x0b: Hash.sha256(record.value)
                case 0x0c: Hash.hash160(record.value)
                default: Hash.sha256d(record.value)
                }
            guard hashed == record.keyData else {
                throw .field(
                    map: map, key: key, problem: "\(rule.name)'s preimage does not hash to its key", offset: nil)
            }
        }
        if let problem = rule.value(record.value) {
            throw .field(map: map, key: key, problem: "\(rule.name) \(problem)", offset: nil)
        }
    }

    /// The whole PSBT: fields of the other version refused, the version's required ones present.
    static func check(_ psbt: PSBT) throws(PSBTError) {
        let maps: [(PSBTMapName, PSBTMap)] =
            [(.global, psbt.global)] + psbt.inputs.enumerated().map { (.input($0.offset), $0.element) }
            + psbt.outputs.enumerated().map { (.output($0.offset), $0.element) }
        for (name, map) in maps {
            for r in map.records {
                guard let rule = rules(name)[r.type] else { continue }
                let wrong =
                    (rule.versions == .only0 && psbt.version != 0) || (rule.versions == .only2 && psbt.version != 2)
                if wrong { throw .notInVersion(map: name, key: String(format: "%02x", r.type), version: psbt.version) }
            }
        }
        // Bitcoin Core refuses, when it reads a PSBT, a previous transaction that is not the one
        // the input spends; so does kcs (and its plan checks again, for PSBTs built in memory).
        if let tx = psbt.unsignedTransaction {
            for (i, m) in psbt.inputs.enumerated() {
                guard let prev = m.nonWitnessUTXO else { continue }
                let out = tx.inputs[i].previous
                guard prev.txidHash == out.hash else {
                    throw .field(
                        map: .input(i), key: "00",
                        problem: "NON_WITNESS_UTXO has txid \(prev.txid), not the \(out.txid) the input spends",
                        offset: nil)
                }
                guard Int(out.index) < prev.outputs.count else {
                    throw .field(
                        map: .input(i), key: "00",
                        problem:
                            "NON_WITNESS_UTXO has \(prev.outputs.count) outputs, none at the index \(out.index) spent",
                        offset: nil)
                }
            }
        }
        guard psbt.version == 2 else { return }
        let need: [(PSBTMapName, PSBTMap, UInt64, String)] =
            [(.global, psbt.global, 0x02, "PSBT_GLOBAL_TX_VERSION (02)")]
            + psbt.inputs.enumerated().flatMap { i, m in
                [(.input(i), m, 0x0e, "PSBT_IN_PREVIOUS_TXID (0e)"), (.input(i), m, 0x0f, "PSBT_IN_OUTPUT_INDEX (0f)")]
            }
            + psbt.outputs.enumerated().flatMap { o, m in
                [(.output(o), m, 0x03, "PSBT_OUT_AMOUNT (03)"), (.output(o), m, 0x04, "PSBT_OUT_SCRIPT (04)")]
            }
        for (name, map, type, field) in need where map.value(type) == nil {
            throw .missing(map: name, field: field, version: 2)
        }
    }
}
