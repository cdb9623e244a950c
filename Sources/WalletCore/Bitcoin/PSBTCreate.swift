import WalletCrypto

// The creator and updater roles for a transaction given by hand (docs/bitcoin.md,
// "psbt.create"): inputs by outpoint with their spent output (or their previous transaction),
// outputs by address or script; a path given with an input or output fills the wallet's key
// origin there (and the script, when none is given), as a wallet's updater would.

public struct PSBTInputSpec: Sendable {
    public var outpoint: OutPoint
    public var amount: UInt64?
    public var script: [UInt8]?
    public var previousTransaction: BitcoinTransaction?
    public var path: DerivationPath?
    public var sequence: UInt32

    public init(
        outpoint: OutPoint, amount: UInt64? = nil, script: [UInt8]? = nil,
        previousTransaction: BitcoinTransaction? = nil,
        path: DerivationPath? = nil, sequence: UInt32 = 0xffff_fffd
    ) {
        self.outpoint = outpoint
        self.amount = amount
        self.script = script
        self.previousTransaction = previousTransaction
        self.path = path
        self.sequence = sequence
    }
}

public struct PSBTOutputSpec: Sendable {
    public var amount: UInt64
    public var script: [UInt8]?
    /// The wallet's path of a change output.
    public var path: DerivationPath?

    public init(amount: UInt64, script: [UInt8]? = nil, path: DerivationPath? = nil) {
        self.amount = amount
        self.script = script
        self.path = path
    }
}

extension PSBT {
    /// The script type a path's purpose implies (44' P2PKH, 49' P2SH-P2WPKH, 84' P2WPKH, 86' P2TR).
    public static func addressKind(ofPath path: DerivationPath) -> BitcoinAddressKind? {
        guard let first = path.components.first, first.hardened else { return nil }
        switch first.index {
        case 44: return .p2pkh
        case 49: return .p2shP2wpkh
        case 84: return .p2wpkh
        case 86: return .p2tr
        default: return nil
        }
    }

    /// A new PSBT (version 0 or 2) of `inputs` and `outputs`, with the key origins of `keys` at the
    /// paths given. A spec that contradicts itself (a script that is not the key's, a previous
    /// transaction of another txid or amount) is refused, naming the input or output.
    public static func create(
        inputs: [PSBTInputSpec], outputs: [PSBTOutputSpec], version: UInt32 = 0, txVersion: Int32 = 2,
        lockTime: UInt32 = 0, keys: inout BitcoinKeyRing
    ) throws -> PSBT {
        var inMaps: [PSBTMap] = []
        for (i, spec) in inputs.enumerated() {
            var m = PSBTMap()
            var spent: TxOutput?
            if let prev = spec.previousTransaction {
                guard prev.txidHash == spec.outpoint.hash else {
                    throw PSBTError.unusable(
                        reason: "input \(i): its previous transaction has txid \(prev.txid), not \(spec.outpoint.txid)")
                }
                guard Int(spec.outpoint.index) < prev.outputs.count else {
                    throw PSBTError.unusable(
                        reason: "input \(i): its previous transaction has no output \(spec.outpoint.index)")
                }
                spent = prev.outputs[Int(spec.outpoint.index)]
            }
            var script = spec.script ?? spent?.script
            let origin = try spec.path.map { try Self.ownKey(at: $0, script: &script, keys: &keys, what: "input \(i)") }
            guard let script else {
                throw PSBTError.unusable(
                    reason: "input \(i): needs a script, an address, a path or its previous transaction")
            }
            guard let amount = spec.amount ?? spent?.amount else {
                throw PSBTError.unusable(reason: "input \(i): needs its amount or its previous transaction")
            }
            if let spent, spent.amount != amount || spent.script != script {
                throw PSBTError.unusable(
                    reason: "input \(i): its amount or script differ from its previous transaction's output")
            }
            if let prev = spec.previousTransaction {
                m.set(PSBTRecord(type: PSBTInputType.nonWitnessUTXO, value: prev.serialized))
            }
            // A legacy input carries only its previous transaction (BIP-174); segwit ones both.
            if case .p2pkh = ScriptTemplate(script) {
            } else {
                m.set(
                    PSBTRecord(
                        type: PSBTInputType.witnessUTXO, value: TxOutput(amount: amount, script: script).serialized))
            }
            if let (key, o, kind) = origin { Self.addOrigin(&m, key: key, origin: o, kind: kind, input: true) }
            if version == 2 {
                m.set(PSBTRecord(type: PSBTInputType.previousTxid, value: spec.outpoint.hash))
                m.set(PSBTRecord(type: PSBTInputType.outputIndex, value: BitcoinWriter.uint32(spec.outpoint.index)))
                m.set(PSBTRecord(type: PSBTInputType.sequence, value: BitcoinWriter.uint32(spec.sequence)))
            }
            inMaps.append(m)
        }
        var outMaps: [PSBTMap] = []
        var txOutputs: [TxOutput] = []
        for (o, spec) in outputs.enumerated() {
            var m = PSBTMap()
            var script = spec.script
            guard spec.amount <= BitcoinTransaction.maxMoney else {
                throw PSBTError.unusable(reason: "output \(o): \(spec.amount) sat is more than 21 million bitcoin")
            }
            if let path = spec.path {
                let (key, origin, kind) = try Self.ownKey(at: path, script: &script, keys: &keys, what: "output \(o)")
                Self.addOrigin(&m, key: key, origin: origin, kind: kind, input: false)
            }
            guard let script else {
                throw PSBTError.unusable(reason: "output \(o): needs an address, a script or a path")
            }
            if version == 2 {
                m.set(PSBTRecord(type: 0x03, value: BitcoinWriter.uint64(spec.amount)))
                m.set(PSBTRecord(type: 0x04, value: script))
            }
            txOutputs.append(TxOutput(amount: spec.amount, script: script))
            outMaps.append(m)
        }
        var global = PSBTMap()
        if version == 0 {
            let tx = BitcoinTransaction(
                version: txVersion, inputs: inputs.map { TxInput(previous: $0.outpoint, sequence: $0.sequence) },
                outputs: txOutputs, lockTime: lockTime)
            global.set(PSBTRecord(type: 0x00, value: tx.legacySerialized))
        } else {
            global.set(PSBTRecord(type: 0x02, value: BitcoinWriter.uint32(UInt32(bitPattern: txVersion))))
            global.set(PSBTRecord(type: 0x03, value: BitcoinWriter.uint32(lockTime)))
            global.set(PSBTRecord(type: 0x04, value: BitcoinWriter.compactSize(inputs.count)))
            global.set(PSBTRecord(type: 0x05, value: BitcoinWriter.compactSize(outputs.count)))
            global.set(PSBTRecord(type: 0xfb, value: BitcoinWriter.uint32(2)))
        }
        let psbt = PSBT(version: version, global: global, inputs: inMaps, outputs: outMaps)
        // What kcs writes, it reads back: one codec, the same checks.
        return try PSBT.parse(psbt.serialized)
    }

    /// The wallet's key at `path`, its origin and the script type of the path's purpose; `script`
    /// becomes the key's script, and one given that is not the key's is refused, naming `what`.
    static func ownKey(
        at path: DerivationPath, script: inout [UInt8]?, keys: inout BitcoinKeyRing, what: String
    ) throws -> (PublicKey, KeyOrigin, BitcoinAddressKind) {
        guard let fp = keys.fingerprint, let kind = addressKind(ofPath: path) else {
            throw PSBTError.unusable(reason: "\(what): \(path) is not a BIP-44/49/84/86 path of an HD key")
        }
        let key = try keys.key(at: path)
        let expected = try BitcoinScript.output(kind, publicKey: key)
        if let s = script, s != expected {
            throw PSBTError.unusable(reason: "\(what): its script is not the \(kind) script of the key at \(path)")
        }
        script = expected
        return (key, KeyOrigin(fingerprint: fp, path: path), kind)
    }

    /// The key origin records of a key of `kind`: BIP32_DERIVATION (and P2SH-P2WPKH's redeem
    /// script), or for Taproot the internal key and TAP_BIP32_DERIVATION with no leaves.
    public static func addOrigin(
        _ m: inout PSBTMap, key: PublicKey, origin: KeyOrigin, kind: BitcoinAddressKind, input: Bool
    ) {
        let x = key.xOnly.key.bytes
        switch kind {
        case .p2tr:
            m.set(PSBTRecord(type: input ? PSBTInputType.tapInternalKey : 0x05, value: x))
            m.set(
                PSBTRecord(
                    type: input ? PSBTInputType.tapBIP32Derivation : 0x07, keyData: x,
                    value: PSBTFields.tapDerivationValue(TapKeyOrigin(leafHashes: [], origin: origin))))
        default:
            if kind == .p2shP2wpkh {
                m.set(
                    PSBTRecord(
                        type: input ? PSBTInputType.redeemScript : 0x00,
                        value: BitcoinScript.p2wpkh(Hash.hash160(key.compressed))))
            }
            m.set(
                PSBTRecord(
                    type: input ? PSBTInputType.bip32Derivation : 0x02, keyData: key.compressed,
                    value: origin.serialized))
        }
    }
}
