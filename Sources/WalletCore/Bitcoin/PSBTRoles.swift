import WalletCrypto

// The PSBT roles after the signer's checks (BIP-174 "Roles", docs/bitcoin.md): a signature
// written into its input, the finalizer (each complete input's scriptSig and witness built,
// the fields it no longer needs cleared), the extractor, and the combiner.

extension PSBT {
    /// Writes `signature` (DER ‖ sighash byte for ECDSA; 64 bytes, or 65 with a non-default
    /// type, for Schnorr) for `step`. A v2 PSBT's TX_MODIFIABLE loses its inputs and outputs
    /// bits: after an ALL signature neither may change (BIP-370 "Signer").
    public mutating func add(_ signature: [UInt8], for step: SigningStep) {
        switch step.algorithm {
        case .ecdsa:
            inputs[step.input].set(
                PSBTRecord(type: PSBTInputType.partialSig, keyData: step.publicKey.compressed, value: signature))
        case .schnorr:
            inputs[step.input].set(PSBTRecord(type: PSBTInputType.tapKeySig, value: signature))
        }
        if version == 2, var flags = global.value(0x06), flags.count == 1 {
            if step.sighashType & SighashType.anyoneCanPay == 0 { flags[0] &= ~0x01 }
            if step.sighashType & 0x1f != SighashType.none { flags[0] &= ~0x02 }
            if step.sighashType & 0x1f == SighashType.single { flags[0] |= 0x04 }
            global.set(PSBTRecord(type: 0x06, value: flags))
        }
    }

    /// The record types the finalizer clears once an input's final fields are written: the
    /// signatures, scripts, derivations and Taproot signing data. UTXOs, the v2 transaction
    /// fields, unknown and proprietary records stay.
    static let clearedWhenFinal: Set<UInt64> = [
        0x02, 0x03, 0x04, 0x05, 0x06, 0x0a, 0x0b, 0x0c, 0x0d, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
    ]

    /// Finalizes every input that has the signatures it needs; answers the inputs finalized now
    /// and, for each input left, why.
    @discardableResult
    public mutating func finalize() -> (finalized: [Int], incomplete: [(input: Int, reason: String)]) {
        var done: [Int] = []
        var left: [(Int, String)] = []
        var unused: [String] = []
        let spent = inputs.indices.map { spentOutput($0) }
        for i in inputs.indices where !inputs[i].isFinalized {
            let map = inputs[i]
            let kind = Self.spendKind(map, spent: spent[i], index: i, refusals: &unused)
            let sigs = Dictionary(
                map.partialSignatures.map { ($0.publicKey, $0.signature) }, uniquingKeysWith: { a, _ in a })
            var scriptSig: [UInt8]?
            var witness: [[UInt8]]?
            switch kind {
            case .p2pkh, .p2wpkh, .p2shP2wpkh:
                let script = spent[i]?.script ?? []
                let pair = sigs.first { pk, _ in
                    let h = Hash.hash160(pk)
                    switch kind {
                    case .p2pkh: return script == BitcoinScript.p2pkh(h)
                    case .p2wpkh: return script == BitcoinScript.p2wpkh(h)
                    default: return map.redeemScript == BitcoinScript.p2wpkh(h)
                    }
                }
                guard let (pk, sig) = pair else {
                    left.append((i, "no signature by the key it pays"))
                    continue
                }
                if kind == .p2pkh {
                    scriptSig = BitcoinScript.push(sig) + BitcoinScript.push(pk)
                } else {
                    witness = [sig, pk]
                }
                if kind == .p2shP2wpkh { scriptSig = BitcoinScript.push(map.redeemScript ?? []) }
            case .p2trKeyPath:
                guard let sig = map.value(PSBTInputType.tapKeySig) else {
                    left.append((i, "no Taproot key-path signature"))
                    continue
                }
                witness = [sig]
            case .p2wshMultisig(let m), .p2shP2wshMultisig(let m), .p2shMultisig(let m):
                let ordered = m.keys.compactMap { sigs[$0] }
                guard ordered.count >= m.threshold else {
                    left.append((i, "\(ordered.count) of the \(m.threshold) signatures a \(m.shape) multisig needs"))
                    continue
                }
                let chosen = Array(ordered.prefix(m.threshold))
                if case .p2shMultisig = kind {
                    scriptSig = [0x00] + chosen.flatMap(BitcoinScript.push) + BitcoinScript.push(m.script)
                } else {
                    witness = [[]] + chosen + [m.script]
                    if case .p2shP2wshMultisig = kind { scriptSig = BitcoinScript.push(map.redeemScript ?? []) }
                }
            case .unknown(let what):
                left.append((i, "kcs cannot finalize a \(what) input"))
                continue
            }
            inputs[i].records.removeAll { Self.clearedWhenFinal.contains($0.type) }
            if let scriptSig { inputs[i].set(PSBTRecord(type: PSBTInputType.finalScriptSig, value: scriptSig)) }
            if let witness {
                inputs[i].set(
                    PSBTRecord(type: PSBTInputType.finalScriptWitness, value: PSBTFields.witnessValue(witness)))
            }
            done.append(i)
        }
        return (done, left)
    }

    /// The network transaction, once every input is final (witness serialisation when any input
    /// has a witness).
    public func extract() throws(PSBTError) -> BitcoinTransaction {
        guard var tx = unsignedTransaction else { throw .unusable(reason: "the PSBT's lock time cannot be determined") }
        for i in inputs.indices {
            guard inputs[i].isFinalized else {
                throw .unusable(
                    reason: "input \(i) is not finalized (psbt.finalize builds it once its signatures are there)")
            }
            tx.inputs[i].scriptSig = inputs[i].finalScriptSig ?? []
            tx.inputs[i].witness = inputs[i].finalScriptWitness ?? []
        }
        return tx
    }

    /// `self` with every record of `other` it lacks (BIP-174 "Combiner"): both must be the same
    /// transaction in the same version. A key both hold keeps this PSBT's value.
    public func combined(with other: PSBT) throws(PSBTError) -> PSBT {
        guard other.version == version else {
            throw .unusable(reason: "a version \(version) PSBT cannot be combined with a version \(other.version) one")
        }
        guard let a = uniqueID, let b = other.uniqueID, a == b, inputs.count == other.inputs.count,
            outputs.count == other.outputs.count
        else {
            throw .unusable(
                reason: "the PSBTs are of different transactions (\(uniqueID ?? "?") and \(other.uniqueID ?? "?"))")
        }
        func merge(_ x: PSBTMap, _ y: PSBTMap) -> PSBTMap {
            var m = x
            for r in y.records where !m.records.contains(where: { $0.type == r.type && $0.keyData == r.keyData }) {
                m.records.append(r)
            }
            return m
        }
        var out = self
        out.global = merge(global, other.global)
        for i in inputs.indices {
            // A finalized input takes no more signatures.
            out.inputs[i] =
                inputs[i].isFinalized
                ? inputs[i] : other.inputs[i].isFinalized ? other.inputs[i] : merge(inputs[i], other.inputs[i])
        }
        for o in outputs.indices { out.outputs[o] = merge(outputs[o], other.outputs[o]) }
        return out
    }
}
