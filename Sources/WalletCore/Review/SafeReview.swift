// What a Safe owner must see before confirming (docs/eth-signing.md, "Safe"): the typed-data
// review of a SafeTx, plus the Safe, its chain, the inner call decoded, and loud warnings for
// what has emptied Safes — a delegatecall, a gas refund paid to someone, a domain without a chain.

extension SigningReview {
    /// Adds the SafeTx lines and warnings when `typed` is a SafeTx (else nothing).
    mutating func addSafe(_ typed: TypedData, name: (EthereumAddress) -> String?) {
        guard let safe = SafeTransaction.recognise(typed), case .object(let m) = typed.message else { return }
        title = "Safe transaction (SafeTx, EIP-712): an owner's confirmation"
        digestName = Digest.eip712 + " (safeTxHash)"
        add("Safe", safe.safe.checksummed)
        if case .string(let d)? = m["data"], let data = try? Hex.decode(d), case .string(let t)? = m["to"],
            let to = try? EthereumAddress(t)
        {
            var inner = SigningReview(title: "", digest: [], digestName: "")
            CallData.review(data, to: to, name: name, fullData: false, into: &inner)
            add("inner call", "to \(to.checksummed)" + (safe.operation == .delegateCall ? " by DELEGATECALL" : ""))
            for line in inner.lines { add(line.label, line.value, depth: line.depth + 1) }
            warnings += inner.warnings
        }
        if safe.operation == .delegateCall {
            warnings.append(
                "DELEGATECALL: the Safe runs the code of `to` as itself — that code can change the owners, the"
                    + " threshold, the modules and move every asset; confirm only a delegatecall target you trust")
        }
        if !safe.gasPrice.isZero && safe.refundReceiver.bytes.contains(where: { $0 != 0 }) {
            warnings.append(
                "gas refund: the Safe pays \(safe.refundReceiver.checksummed) up to gasPrice × gas for executing it")
        }
        if safe.chainID == nil {
            warnings.append(
                "this Safe's domain has no chain id (Safe before 1.3.0): the confirmation is valid for this address"
                    + " on every chain")
        }
    }
}
