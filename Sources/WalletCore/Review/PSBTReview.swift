import WalletCrypto

// The review of a PSBT (docs/bitcoin.md, "What psbt.show shows"): what Trezor, Coldcard and
// Keycard Shell confirm on their screens, from the plan — network, txid, lock time and RBF;
// each input and output; what we spend, send and pay in fees; every warning and refusal.

extension SigningReview {
    /// `0.0015 BTC (150,000 sat)`.
    public static func bitcoinAmount(_ sats: UInt64, chain: BitcoinChain = .main) -> String {
        let unit = chain == .main ? "BTC" : chain == .regtest ? "rBTC" : "tBTC"
        let whole = sats / 100_000_000
        var frac = String(format: "%08llu", sats % 100_000_000)
        while frac.hasSuffix("0") { frac.removeLast() }
        let btc = grouped(String(whole)) + (frac.isEmpty ? "" : "." + frac)
        return "\(btc) \(unit) (\(grouped(String(sats))) sat)"
    }

    /// A lock time as Bitcoin reads it: a block height below 500,000,000, else a Unix time.
    public static func lockTime(_ t: UInt32) -> String {
        if t == 0 { return "none" }
        if t < 500_000_000 { return "block \(grouped(String(t)))" }
        return "\(t) (Unix time)"
    }

    /// The review of `plan`: title, lines, warnings; the digest line names the unsigned txid.
    public static func psbt(_ plan: PSBTPlan) -> SigningReview {
        let chainName = plan.chain.displayName
        var r = SigningReview(
            title: "Bitcoin transaction (PSBT v\(plan.version), \(chainName))",
            digest: plan.transaction.txidHash.reversed(),
            digestName: plan.version == 2 ? "txid (unsigned)" : "txid")
        r.add("network", chainName)
        r.add("version", "\(plan.transaction.version)")
        r.add("lock time", lockTime(plan.transaction.lockTime))
        let rbf = plan.transaction.inputs.contains { $0.sequence < 0xffff_fffe }
        r.add("replaceable", rbf ? "yes (RBF: an input's sequence is below 0xfffffffe)" : "no")
        for input in plan.inputs {
            r.add("input \(input.index)", "\(input.outpoint.txid):\(input.outpoint.index)")
            r.add("amount", input.amount.map { bitcoinAmount($0, chain: plan.chain) } ?? "unknown", depth: 1)
            r.add("type", input.kind.description, depth: 1)
            let ours = input.ours.map { o in o.path.map { "yours at \($0)" } ?? "yours (the given key)" }
            r.add("owner", ours.first ?? "not this wallet's", depth: 1)
            let proof: String =
                switch input.amountProof {
                case .previousTransaction: "verified by its previous transaction"
                case .witnessUTXOOnly:
                    input.kind == .p2trKeyPath
                        ? "committed by the Taproot signature" : "NOT verified (no previous transaction)"
                case .unknown: "unknown"
                }
            r.add("amount proof", proof, depth: 1)
            if let t = input.sighashType { r.add("sighash", "SIGHASH_" + SighashType.name(t), depth: 1) }
            if let m = input.kind.multisig {
                r.add("signatures", "\(input.signatures) of \(m.threshold) (\(m.shape))", depth: 1)
                if !input.others.isEmpty {
                    r.add("other signers", input.others.map { Hex.encode($0) }.joined(separator: ", "), depth: 1)
                }
            }
            let status: String
            if input.finalized {
                status = "already final"
            } else if let s = input.step {
                switch s.algorithm {
                case .ecdsa: status = "will sign (ECDSA, SIGHASH_\(SighashType.name(s.sighashType)))"
                case .schnorr:
                    status = "will sign (Schnorr, Taproot key path, SIGHASH_\(SighashType.name(s.sighashType)))"
                }
            } else {
                status = input.ours.isEmpty ? "not signed (not this wallet's)" : "not signed"
            }
            r.add("signing", status, depth: 1)
            for n in input.notes { r.add("note", n, depth: 1) }
        }
        for output in plan.outputs {
            let what: String
            switch output.template {
            case .opReturn(let data): what = "OP_RETURN data 0x" + Hex.encode(data)
            default: what = output.address ?? "script 0x" + Hex.encode(output.script)
            }
            r.add("output \(output.index)", what)
            r.add("amount", bitcoinAmount(output.amount, chain: plan.chain), depth: 1)
            if let change = output.change { r.add("change", "CHANGE, yours at \(change)", depth: 1) }
            for n in output.notes { r.add("note", n, depth: 1) }
        }
        if let spent = plan.spentByUs { r.add("spent by you", bitcoinAmount(spent, chain: plan.chain)) }
        r.add("sent to others", bitcoinAmount(plan.sentToOthers, chain: plan.chain))
        if let fee = plan.fee {
            let rate = plan.feeRate.map { String(format: "%.1f sat/vB", $0) } ?? "?"
            let share = plan.feeShare.map { PSBT.percent($0) + " of what is sent" } ?? ""
            r.add(
                "fee",
                bitcoinAmount(fee, chain: plan.chain) + ", \(rate) (≈\(plan.virtualSize) vB), \(share)"
                    + (plan.feeVerified ? "" : " — NOT verified: fee cannot be verified"))
        } else {
            r.add("fee", "unknown (an input's amount is not in the PSBT)")
        }
        r.warnings = plan.refusals.map { "refused: " + $0 } + plan.warnings
        return r
    }
}
