// The review of an ERC-4337 user operation (docs/eth-signing.md, "ERC-4337"): the EntryPoint by
// version, the chain, the account (sender), the nonce as key and sequence, the factory or the
// EIP-7702 delegate, the call decoded where kcs knows it, the gas fields and the worst-case fee,
// the paymaster, and the userOpHash.

extension SigningReview {
    public static func userOperation(
        _ op: UserOperation, entryPoint: EthereumAddress, chainID: UInt256, version: EntryPointVersion,
        name: (EthereumAddress) -> String? = { _ in nil }
    ) -> SigningReview {
        var review = SigningReview(
            title: "ERC-4337 user operation (EntryPoint v\(version.rawValue))",
            digest: op.hash(entryPoint: entryPoint, chainID: chainID, version: version),
            digestName: version.isTypedData ? Digest.eip712 + " (userOpHash)" : "userOpHash")
        let symbol = EthereumChain.symbol(chainID)
        review.add("entry point", "\(entryPoint.checksummed) (v\(version.rawValue))")
        review.add("chain", EthereumChain.label(chainID))
        review.add("account", op.sender.checksummed + (name(op.sender).map { " (your key \($0))" } ?? ""))
        let key = UInt256(bigEndian: Array(op.nonce.bigEndianBytes.prefix(24)))!
        let sequence = UInt256(bigEndian: Array(op.nonce.bigEndianBytes.suffix(8)))!
        review.add("nonce", "\(op.nonce) (key \(key), sequence \(sequence))")
        if op.isEIP7702 {
            review.add(
                "account code",
                "EIP-7702 delegate \(op.eip7702Delegate?.checksummed ?? "?") (hashed in place of 0x7702)")
        } else if let factory = op.factory {
            review.add(
                "factory", "\(factory.checksummed), \(op.factoryData.count) bytes of factory data: deploys the account")
        }
        CallData.review(op.callData, to: op.sender, name: name, fullData: false, into: &review)
        review.add("call gas limit", grouped(op.callGasLimit.description))
        review.add("verification gas", grouped(op.verificationGasLimit.description))
        review.add("pre-verification gas", grouped(op.preVerificationGas.description))
        review.add("max fee per gas", gwei(op.maxFeePerGas))
        review.add("priority fee", gwei(op.maxPriorityFeePerGas))
        if let paymaster = op.paymaster {
            review.add(
                "paymaster",
                "\(paymaster.checksummed) (verification gas \(grouped(op.paymasterVerificationGasLimit.description)),"
                    + " post-op gas \(grouped(op.paymasterPostOpGasLimit.description)), \(op.paymasterData.count) bytes of data)"
            )
        } else {
            review.add("paymaster", "none: the account pays")
        }
        if let fee = op.worstCaseFee {
            review.add(
                "worst-case fee",
                amount(fee, symbol: symbol) + (op.paymaster == nil ? "" : " (the paymaster may pay it)"))
        } else {
            review.add("worst-case fee", "more than 2^256 wei")
        }
        if !version.isTypedData {
            review.add("signed as", "the EIP-191 hash of the userOpHash (v0.7's SimpleAccount)")
        }
        return review
    }
}
