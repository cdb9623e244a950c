import WalletCrypto

// A Bitcoin transaction in both serialisations (BIP-144): the legacy one that the txid hashes,
// and the witness one (marker 00, flag 01) used when any input carries a witness
// (docs/bitcoin.md, "Transactions").

/// The output an input spends: its transaction's id (as hashed, not as displayed) and index.
public struct OutPoint: Sendable, Hashable, CustomStringConvertible {
    /// The txid in internal byte order (the double SHA-256 as computed).
    public let hash: [UInt8]
    public let index: UInt32

    public init(hash: [UInt8], index: UInt32) {
        self.hash = hash
        self.index = index
    }

    /// The txid as block explorers and Bitcoin Core show it (bytes reversed).
    public var txid: String { Hex.encode(hash.reversed()) }
    public var description: String { "\(txid):\(index)" }
}

public struct TxInput: Sendable, Equatable {
    public var previous: OutPoint
    public var scriptSig: [UInt8]
    public var sequence: UInt32
    /// The witness stack (empty when none).
    public var witness: [[UInt8]]

    public init(previous: OutPoint, scriptSig: [UInt8] = [], sequence: UInt32 = 0xffff_fffd, witness: [[UInt8]] = []) {
        self.previous = previous
        self.scriptSig = scriptSig
        self.sequence = sequence
        self.witness = witness
    }
}

public struct TxOutput: Sendable, Equatable {
    /// In satoshis.
    public var amount: UInt64
    public var script: [UInt8]

    public init(amount: UInt64, script: [UInt8]) {
        self.amount = amount
        self.script = script
    }

    /// amount (LE u64) ‖ compact-size-prefixed script: an output as serialised, and a PSBT's WITNESS_UTXO.
    public var serialized: [UInt8] { BitcoinWriter.uint64(amount) + BitcoinWriter.lengthPrefixed(script) }

    public static func parse(_ reader: inout BitcoinReader, _ what: String) throws(BitcoinBytesError) -> TxOutput {
        let amount = try reader.uint64("\(what) amount")
        return TxOutput(amount: amount, script: try reader.lengthPrefixed("\(what) script"))
    }
}

public struct BitcoinTransaction: Sendable, Equatable {
    public var version: Int32
    public var inputs: [TxInput]
    public var outputs: [TxOutput]
    public var lockTime: UInt32

    /// No more than 21 million bitcoin in satoshis: the most any amount can be.
    public static let maxMoney: UInt64 = 21_000_000 * 100_000_000

    public init(version: Int32 = 2, inputs: [TxInput], outputs: [TxOutput], lockTime: UInt32 = 0) {
        self.version = version
        self.inputs = inputs
        self.outputs = outputs
        self.lockTime = lockTime
    }

    public var hasWitness: Bool { inputs.contains { !$0.witness.isEmpty } }

    /// The legacy serialisation (no witnesses): what the txid hashes.
    public var legacySerialized: [UInt8] { serialize(witness: false) }

    /// The serialisation as sent: with witnesses when any input has one.
    public var serialized: [UInt8] { serialize(witness: hasWitness) }

    public func serialize(witness: Bool) -> [UInt8] {
        var out = BitcoinWriter.uint32(UInt32(bitPattern: version))
        if witness { out += [0x00, 0x01] }
        out += BitcoinWriter.compactSize(inputs.count)
        for i in inputs {
            out += i.previous.hash + BitcoinWriter.uint32(i.previous.index)
            out += BitcoinWriter.lengthPrefixed(i.scriptSig) + BitcoinWriter.uint32(i.sequence)
        }
        out += BitcoinWriter.compactSize(outputs.count)
        for o in outputs { out += o.serialized }
        if witness {
            for i in inputs {
                out += BitcoinWriter.compactSize(i.witness.count)
                for item in i.witness { out += BitcoinWriter.lengthPrefixed(item) }
            }
        }
        return out + BitcoinWriter.uint32(lockTime)
    }

    /// The transaction id in internal byte order.
    public var txidHash: [UInt8] { Hash.sha256d(legacySerialized) }
    /// The txid as shown (reversed hex).
    public var txid: String { Hex.encode(txidHash.reversed()) }
    /// The witness txid as shown.
    public var wtxid: String { Hex.encode(Hash.sha256d(serialized).reversed()) }

    /// Virtual size in vbytes (BIP-141: weight / 4, rounded up).
    public var virtualSize: Int {
        let base = legacySerialized.count
        let total = serialized.count
        return (base * 3 + total + 3) / 4
    }

    /// Reads a whole transaction; `allowWitness` false refuses the witness serialisation (a
    /// PSBT v0's unsigned transaction). Trailing bytes are refused.
    public static func parse(
        _ bytes: [UInt8], allowWitness: Bool = true, what: String = "transaction", base: Int = 0
    ) throws(BitcoinBytesError) -> BitcoinTransaction {
        var r = BitcoinReader(bytes, base: base)
        let tx = try parse(&r, allowWitness: allowWitness, what: what)
        guard r.atEnd else { throw r.fail(what, "\(r.remaining) bytes after the lock time") }
        return tx
    }

    public static func parse(
        _ r: inout BitcoinReader, allowWitness: Bool, what: String
    ) throws(BitcoinBytesError) -> BitcoinTransaction {
        let version = Int32(bitPattern: try r.uint32("\(what) version"))
        var segwit = false
        // Without witnesses allowed, 00 01 is read as it is meant there: no inputs, one output.
        if allowWitness, r.remaining >= 2, r.bytes[r.offset] == 0x00, r.bytes[r.offset + 1] == 0x01 {
            _ = try r.take(2, "\(what) marker")
            segwit = true
        }
        let inputCount = try r.count("\(what) input count", minimumSize: 41)
        var inputs: [TxInput] = []
        for n in 0..<inputCount {
            let hash = try r.take(32, "\(what) input \(n) txid")
            let index = try r.uint32("\(what) input \(n) index")
            let script = try r.lengthPrefixed("\(what) input \(n) scriptSig")
            let sequence = try r.uint32("\(what) input \(n) sequence")
            inputs.append(
                TxInput(previous: OutPoint(hash: hash, index: index), scriptSig: script, sequence: sequence))
        }
        let outputCount = try r.count("\(what) output count", minimumSize: 9)
        var outputs: [TxOutput] = []
        for n in 0..<outputCount { outputs.append(try TxOutput.parse(&r, "\(what) output \(n)")) }
        if segwit {
            guard !inputs.isEmpty else { throw r.fail(what, "has the witness marker and no inputs") }
            for n in inputs.indices {
                let items = try r.count("\(what) input \(n) witness count", minimumSize: 1)
                var stack: [[UInt8]] = []
                for k in 0..<items { stack.append(try r.lengthPrefixed("\(what) input \(n) witness item \(k)")) }
                inputs[n].witness = stack
            }
            guard inputs.contains(where: { !$0.witness.isEmpty }) else {
                throw r.fail(what, "has the witness marker and no witness")
            }
        }
        let lockTime = try r.uint32("\(what) lock time")
        return BitcoinTransaction(version: version, inputs: inputs, outputs: outputs, lockTime: lockTime)
    }
}
