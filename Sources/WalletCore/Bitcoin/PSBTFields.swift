import WalletCrypto

// Typed views of a PSBT's records (docs/bitcoin.md, "PSBT"): the unsigned transaction of either
// version (BIP-370's lock-time determination for v2), each input's spent output, derivations,
// signatures and final fields, each output's derivations.

/// Where a key comes from: its master's fingerprint and its path.
public struct KeyOrigin: Sendable, Equatable, CustomStringConvertible {
    public let fingerprint: UInt32
    public let path: DerivationPath

    public init(fingerprint: UInt32, path: DerivationPath) {
        self.fingerprint = fingerprint
        self.path = path
    }

    /// fingerprint (4 bytes, as HASH160 gives them) ‖ LE u32 path elements: a BIP32_DERIVATION value.
    public var serialized: [UInt8] {
        PSBTFields.fingerprintBytes(fingerprint) + path.components.flatMap { BitcoinWriter.uint32($0.raw) }
    }

    /// `[d34db33f/84'/0'/0']` as descriptors write it.
    public var description: String {
        String(format: "%08x", fingerprint) + path.components.map { "/" + $0.description }.joined()
    }
}

/// A Taproot key's origin and the leaves it appears in (empty: the key-path key).
public struct TapKeyOrigin: Sendable, Equatable {
    public let leafHashes: [[UInt8]]
    public let origin: KeyOrigin
}

public enum PSBTFields {
    public static func fingerprintBytes(_ f: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: f >> (24 - 8 * $0)) }
    }

    static func origin(_ v: [UInt8]) throws(BitcoinBytesError) -> KeyOrigin {
        guard v.count >= 4, v.count % 4 == 0 else {
            throw BitcoinBytesError(what: "a key origin", offset: 0, problem: "is \(v.count) bytes, not 4 + 4n")
        }
        let fp = v[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
        var r = BitcoinReader(Array(v[4...]))
        var path: [ChildIndex] = []
        while !r.atEnd { path.append(ChildIndex(raw: try r.uint32("a path element"))) }
        return KeyOrigin(fingerprint: fp, path: DerivationPath(absolute: true, path))
    }

    static func tapDerivation(_ v: [UInt8]) throws(BitcoinBytesError) -> TapKeyOrigin {
        var r = BitcoinReader(v)
        let n = try r.count("leaf hash count", minimumSize: 32)
        var leaves: [[UInt8]] = []
        for _ in 0..<n { leaves.append(try r.take(32, "leaf hash")) }
        return TapKeyOrigin(leafHashes: leaves, origin: try origin(try r.take(r.remaining, "origin")))
    }

    public static func tapDerivationValue(_ o: TapKeyOrigin) -> [UInt8] {
        BitcoinWriter.compactSize(o.leafHashes.count) + o.leafHashes.flatMap { $0 } + o.origin.serialized
    }

    /// A witness stack: compact count, then compact-prefixed items; nothing after.
    public static func witness(_ v: [UInt8]) throws(BitcoinBytesError) -> [[UInt8]] {
        var r = BitcoinReader(v)
        let n = try r.count("witness item count", minimumSize: 1)
        var items: [[UInt8]] = []
        for _ in 0..<n { items.append(try r.lengthPrefixed("witness item")) }
        guard r.atEnd else { throw r.fail("witness stack", "\(r.remaining) bytes after its items") }
        return items
    }

    public static func witnessValue(_ items: [[UInt8]]) -> [UInt8] {
        BitcoinWriter.compactSize(items.count) + items.flatMap { BitcoinWriter.lengthPrefixed($0) }
    }

    static func u32(_ v: [UInt8]) -> UInt32 { v.reversed().reduce(0) { $0 << 8 | UInt32($1) } }
}

/// Input record types (BIP-174, BIP-370, BIP-371).
public enum PSBTInputType {
    public static let nonWitnessUTXO: UInt64 = 0x00, witnessUTXO: UInt64 = 0x01, partialSig: UInt64 = 0x02
    public static let sighashType: UInt64 = 0x03, redeemScript: UInt64 = 0x04, witnessScript: UInt64 = 0x05
    public static let bip32Derivation: UInt64 = 0x06, finalScriptSig: UInt64 = 0x07, finalScriptWitness: UInt64 = 0x08
    public static let previousTxid: UInt64 = 0x0e, outputIndex: UInt64 = 0x0f, sequence: UInt64 = 0x10
    public static let requiredTimeLock: UInt64 = 0x11, requiredHeightLock: UInt64 = 0x12
    public static let tapKeySig: UInt64 = 0x13, tapScriptSig: UInt64 = 0x14, tapLeafScript: UInt64 = 0x15
    public static let tapBIP32Derivation: UInt64 = 0x16, tapInternalKey: UInt64 = 0x17, tapMerkleRoot: UInt64 = 0x18
}

extension PSBTMap {
    public var nonWitnessUTXO: BitcoinTransaction? {
        value(PSBTInputType.nonWitnessUTXO).flatMap { try? BitcoinTransaction.parse($0) }
    }

    public var witnessUTXO: TxOutput? {
        value(PSBTInputType.witnessUTXO).flatMap { v in
            var r = BitcoinReader(v)
            return try? TxOutput.parse(&r, "witness UTXO")
        }
    }

    /// PARTIAL_SIG records: public key → signature with its sighash byte.
    public var partialSignatures: [(publicKey: [UInt8], signature: [UInt8])] {
        all(PSBTInputType.partialSig).map { ($0.keyData, $0.value) }
    }

    public var sighashType: UInt32? { value(PSBTInputType.sighashType).map(PSBTFields.u32) }
    public var redeemScript: [UInt8]? { value(PSBTInputType.redeemScript) }
    public var witnessScript: [UInt8]? { value(PSBTInputType.witnessScript) }

    /// BIP32_DERIVATION records (input type 06, output type 02): public key → origin.
    public func derivations(type: UInt64) -> [(publicKey: [UInt8], origin: KeyOrigin)] {
        all(type).compactMap { r in (try? PSBTFields.origin(r.value)).map { (r.keyData, $0) } }
    }

    /// TAP_BIP32_DERIVATION records (input 16, output 07): x-only key → leaves and origin.
    public func tapDerivations(type: UInt64) -> [(xOnly: [UInt8], origin: TapKeyOrigin)] {
        all(type).compactMap { r in (try? PSBTFields.tapDerivation(r.value)).map { (r.keyData, $0) } }
    }

    public var finalScriptSig: [UInt8]? { value(PSBTInputType.finalScriptSig) }
    public var finalScriptWitness: [[UInt8]]? {
        value(PSBTInputType.finalScriptWitness).flatMap { try? PSBTFields.witness($0) }
    }
    public var isFinalized: Bool { finalScriptSig != nil || finalScriptWitness != nil }
}

extension PSBT {
    /// The unsigned transaction: v0's as given; v2's built from the per-input and per-output
    /// fields with the lock time BIP-370 determines (nil when the inputs' lock types conflict).
    public var unsignedTransaction: BitcoinTransaction? {
        if version == 0 {
            return global.value(0x00).flatMap { try? BitcoinTransaction.parse($0, allowWitness: false) }
        }
        guard let v = global.value(0x02), let lock = determinedLockTime else { return nil }
        var ins: [TxInput] = []
        for m in inputs {
            guard let txid = m.value(PSBTInputType.previousTxid), let index = m.value(PSBTInputType.outputIndex) else {
                return nil
            }
            ins.append(
                TxInput(
                    previous: OutPoint(hash: txid, index: PSBTFields.u32(index)),
                    sequence: m.value(PSBTInputType.sequence).map(PSBTFields.u32) ?? 0xffff_ffff))
        }
        var outs: [TxOutput] = []
        for m in outputs {
            guard let a = m.value(0x03), let s = m.value(0x04) else { return nil }
            outs.append(TxOutput(amount: a.reversed().reduce(0) { $0 << 8 | UInt64($1) }, script: s))
        }
        return BitcoinTransaction(
            version: Int32(bitPattern: PSBTFields.u32(v)), inputs: ins, outputs: outs, lockTime: lock)
    }

    /// BIP-370 "Determining Lock Time": the fallback when no input requires one; else the type
    /// every input that names one allows (height when both are), the largest of that type;
    /// nil when some input allows only time and another only height.
    public var determinedLockTime: UInt32? {
        let fallback = global.value(0x03).map(PSBTFields.u32) ?? 0
        let time = inputs.map { $0.value(PSBTInputType.requiredTimeLock).map(PSBTFields.u32) }
        let height = inputs.map { $0.value(PSBTInputType.requiredHeightLock).map(PSBTFields.u32) }
        let named = inputs.indices.filter { time[$0] != nil || height[$0] != nil }
        if named.isEmpty { return fallback }
        if named.allSatisfy({ height[$0] != nil }) { return named.compactMap { height[$0] }.max() }
        if named.allSatisfy({ time[$0] != nil }) { return named.compactMap { time[$0] }.max() }
        return nil
    }

    /// The output each input spends, as far as the PSBT says: WITNESS_UTXO, else the
    /// NON_WITNESS_UTXO's output at the prevout's index.
    public func spentOutput(_ i: Int) -> TxOutput? {
        if let w = inputs[i].witnessUTXO { return w }
        guard let tx = unsignedTransaction, let prev = inputs[i].nonWitnessUTXO else { return nil }
        let n = Int(tx.inputs[i].previous.index)
        return n < prev.outputs.count ? prev.outputs[n] : nil
    }

    /// BIP-370's unique id (the txid with every sequence 0) for v2; the txid for v0.
    public var uniqueID: String? {
        guard var tx = unsignedTransaction else { return nil }
        if version == 2 { for i in tx.inputs.indices { tx.inputs[i].sequence = 0 } }
        return tx.txid
    }
}
