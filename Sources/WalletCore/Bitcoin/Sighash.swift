import WalletCrypto

// The three signature hashes a Bitcoin signer computes (docs/bitcoin.md, "Signature hashes"):
// the legacy one (pre-segwit), BIP-143's for segwit v0, and BIP-341's for a Taproot key path
// (epoch 0, no annex, no script path). Every sighash type is computed, so the published vectors
// check all of them; which types kcs agrees to sign is the signer's decision, not this file's.

public enum SighashType {
    public static let `default`: UInt32 = 0x00
    public static let all: UInt32 = 0x01
    public static let none: UInt32 = 0x02
    public static let single: UInt32 = 0x03
    public static let anyoneCanPay: UInt32 = 0x80

    /// `ALL`, `NONE|ANYONECANPAY`…: as reviews and errors name a type.
    public static func name(_ t: UInt32) -> String {
        if t == 0 { return "DEFAULT" }
        let base: String
        switch t & 0x1f {
        case 1: base = "ALL"
        case 2: base = "NONE"
        case 3: base = "SINGLE"
        default: base = String(format: "0x%02x", t & 0x7f)
        }
        return t & 0x80 != 0 ? base + "|ANYONECANPAY" : base
    }

    /// What a type leaves others free to change, for the refusal and the review.
    public static func leavesFree(_ t: UInt32) -> String {
        var free: [String] = []
        if t & 0x1f == 2 { free.append("every output") }
        if t & 0x1f == 3 { free.append("every output but the one at this input's index") }
        if t & 0x80 != 0 { free.append("the other inputs") }
        return free.isEmpty ? "nothing" : free.joined(separator: " and ")
    }
}

public enum Sighash {
    /// The legacy signature hash of input `index` with `scriptCode` (OP_CODESEPARATORs removed);
    /// SINGLE without a matching output hashes to 1 (the historic behaviour consensus kept).
    public static func legacy(_ tx: BitcoinTransaction, index: Int, scriptCode: [UInt8], type: UInt32) -> [UInt8] {
        let base = type & 0x1f
        if base == SighashType.single, index >= tx.outputs.count {
            return [1] + [UInt8](repeating: 0, count: 31)
        }
        var copy = tx
        for i in copy.inputs.indices {
            copy.inputs[i].scriptSig = i == index ? BitcoinScript.removingCodeSeparators(scriptCode) : []
            copy.inputs[i].witness = []
            if i != index, base == SighashType.none || base == SighashType.single { copy.inputs[i].sequence = 0 }
        }
        if base == SighashType.none {
            copy.outputs = []
        } else if base == SighashType.single {
            copy.outputs = (0...index).map { i in
                i == index ? tx.outputs[i] : TxOutput(amount: UInt64.max, script: [])
            }
        }
        if type & SighashType.anyoneCanPay != 0 { copy.inputs = [copy.inputs[index]] }
        return Hash.sha256d(copy.serialize(witness: false) + BitcoinWriter.uint32(type))
    }

    /// BIP-143's signature hash of input `index` spending `amount` with `scriptCode` (for
    /// P2WPKH `76 a9 14 <hash160> 88 ac`; for P2WSH the witness script).
    public static func segwitV0(
        _ tx: BitcoinTransaction, index: Int, scriptCode: [UInt8], amount: UInt64, type: UInt32
    ) -> [UInt8] {
        Hash.sha256d(segwitV0Preimage(tx, index: index, scriptCode: scriptCode, amount: amount, type: type))
    }

    public static func segwitV0Preimage(
        _ tx: BitcoinTransaction, index: Int, scriptCode: [UInt8], amount: UInt64, type: UInt32
    ) -> [UInt8] {
        let base = type & 0x1f
        let anyone = type & SighashType.anyoneCanPay != 0
        let zero = [UInt8](repeating: 0, count: 32)
        let prevouts =
            anyone
            ? zero : Hash.sha256d(tx.inputs.flatMap { $0.previous.hash + BitcoinWriter.uint32($0.previous.index) })
        let sequences =
            anyone || base == SighashType.single || base == SighashType.none
            ? zero : Hash.sha256d(tx.inputs.flatMap { BitcoinWriter.uint32($0.sequence) })
        let outputs: [UInt8]
        if base != SighashType.single, base != SighashType.none {
            outputs = Hash.sha256d(tx.outputs.flatMap(\.serialized))
        } else if base == SighashType.single, index < tx.outputs.count {
            outputs = Hash.sha256d(tx.outputs[index].serialized)
        } else {
            outputs = zero
        }
        let input = tx.inputs[index]
        var pre = BitcoinWriter.uint32(UInt32(bitPattern: tx.version)) + prevouts + sequences
        pre += input.previous.hash + BitcoinWriter.uint32(input.previous.index)
        pre += BitcoinWriter.lengthPrefixed(scriptCode) + BitcoinWriter.uint64(amount)
        pre += BitcoinWriter.uint32(input.sequence) + outputs
        return pre + BitcoinWriter.uint32(tx.lockTime) + BitcoinWriter.uint32(type)
    }

    /// Why a Taproot signature hash cannot be computed.
    public enum TaprootError: WalletError, Equatable {
        /// BIP-341 hashes every input's spent output; this one's is not known.
        case missingSpentOutput(input: Int)
        case invalidType(UInt32)
        /// SINGLE at an index with no output.
        case noMatchingOutput(input: Int)

        public var id: String {
            switch self {
            case .missingSpentOutput: "bitcoin.taproot.missingSpentOutput"
            case .invalidType: "bitcoin.taproot.sighashType"
            case .noMatchingOutput: "bitcoin.taproot.noMatchingOutput"
            }
        }

        public var description: String {
            switch self {
            case .missingSpentOutput(let i): "input \(i)'s spent output is not known, and BIP-341 hashes every input's"
            case .invalidType(let t): "0x\(String(t, radix: 16)) is not a Taproot sighash type"
            case .noMatchingOutput(let i): "SIGHASH_SINGLE at input \(i), which has no output of its index"
            }
        }
    }

    /// BIP-341's SigMsg for a key-path spend of input `index` (ext_flag 0, no annex):
    /// `spent` holds the output every input spends.
    public static func taprootMessage(
        _ tx: BitcoinTransaction, index: Int, spent: [TxOutput?], type: UInt32
    ) throws(TaprootError) -> [UInt8] {
        guard type <= 3 || (0x81...0x83).contains(type) else { throw .invalidType(type) }
        let base = type & 0x03
        let anyone = type & SighashType.anyoneCanPay != 0
        var m: [UInt8] = [UInt8(type)]
        m += BitcoinWriter.uint32(UInt32(bitPattern: tx.version)) + BitcoinWriter.uint32(tx.lockTime)
        if !anyone {
            var outputs: [TxOutput] = []
            for (i, o) in spent.enumerated() {
                guard let o else { throw .missingSpentOutput(input: i) }
                outputs.append(o)
            }
            guard outputs.count == tx.inputs.count else { throw .missingSpentOutput(input: outputs.count) }
            m += Hash.sha256(tx.inputs.flatMap { $0.previous.hash + BitcoinWriter.uint32($0.previous.index) })
            m += Hash.sha256(outputs.flatMap { BitcoinWriter.uint64($0.amount) })
            m += Hash.sha256(outputs.flatMap { BitcoinWriter.lengthPrefixed($0.script) })
            m += Hash.sha256(tx.inputs.flatMap { BitcoinWriter.uint32($0.sequence) })
        }
        if base != SighashType.none, base != SighashType.single {
            m += Hash.sha256(tx.outputs.flatMap(\.serialized))
        }
        m += [0x00]  // spend_type: ext_flag 0, no annex
        let input = tx.inputs[index]
        if anyone {
            guard index < spent.count, let own = spent[index] else { throw .missingSpentOutput(input: index) }
            m += input.previous.hash + BitcoinWriter.uint32(input.previous.index)
            m += own.serialized + BitcoinWriter.uint32(input.sequence)
        } else {
            m += BitcoinWriter.uint32(UInt32(index))
        }
        if base == SighashType.single {
            guard index < tx.outputs.count else { throw .noMatchingOutput(input: index) }
            m += Hash.sha256(tx.outputs[index].serialized)
        }
        return m
    }

    /// BIP-341's signature hash: TapSighash of epoch 0 ‖ SigMsg.
    public static func taproot(
        _ tx: BitcoinTransaction, index: Int, spent: [TxOutput?], type: UInt32
    ) throws(TaprootError) -> [UInt8] {
        Hash.tagged("TapSighash", [0x00] + (try taprootMessage(tx, index: index, spent: spent, type: type)))
    }

    /// BIP-341's tweak of internal key `p`: TapTweak(p ‖ merkle root), the root only when there is one.
    public static func taprootTweak(internalKey p: [UInt8], merkleRoot: [UInt8]?) -> [UInt8] {
        Hash.tagged("TapTweak", p + (merkleRoot ?? []))
    }
}
