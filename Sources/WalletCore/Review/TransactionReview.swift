// The review of an Ethereum transaction (docs/signing-review.md): type and chain by name, the
// recipient (with the name of one of the person's own keys), value in the chain's currency,
// nonce, gas, fee caps and the worst-case fee, and call data decoded where kcs knows the call.

extension SigningReview {
    /// A fee cap (or gas price) above this is called out: mainnet has rarely needed a tenth of it.
    public static let highFeePerGas = UInt256(500_000_000_000)
    /// A worst-case fee above this (in wei, 0.1 of the native currency) is called out.
    public static let highFee = UInt256(100_000_000_000_000_000)

    /// The review of `tx` (unsigned). `name` names an address that is one of the person's
    /// keys; `fullData` shows the call data in full hex (else its length and selector, and the
    /// decoded call).
    public static func transaction(
        _ tx: EthereumTransaction, name: (EthereumAddress) -> String? = { _ in nil },
        fullData: Bool = false, delegates: DelegateList = .shipped
    ) -> SigningReview {
        let typeName =
            switch tx.type {
            case .legacy: tx.chainID == nil ? "legacy transaction, pre-EIP-155" : "legacy transaction (EIP-155)"
            case .accessList: "EIP-2930 transaction (type 1)"
            case .dynamicFee: "EIP-1559 transaction (type 2)"
            case .blob: "EIP-4844 blob transaction (type 3)"
            case .setCode: "EIP-7702 set-code transaction (type 4)"
            }
        var review = SigningReview(title: typeName, digest: tx.signingHash, digestName: "signing hash")
        let symbol = EthereumChain.symbol(tx.chainID)
        if let chain = tx.chainID {
            review.add("chain", EthereumChain.label(chain))
        } else {
            review.add("chain", "none: valid on every chain")
            review.warnings.append(
                "this transaction has no chain id (pre-EIP-155): once signed it is valid on every chain,"
                    + " and anyone can replay it there")
        }
        func named(_ a: EthereumAddress) -> String { a.checksummed + (name(a).map { " (your key \($0))" } ?? "") }
        review.add("to", tx.to.map(named) ?? "nobody: this creates a contract")
        review.add("value", amount(tx.value, symbol: symbol))
        review.add("nonce", tx.nonce.description)
        review.add("gas limit", grouped(tx.gasLimit.description))
        let perGas: UInt256
        if let cap = tx.maxFeePerGas {
            review.add("max fee per gas", gwei(cap))
            review.add("priority fee", gwei(tx.maxPriorityFeePerGas ?? .zero))
            perGas = cap
        } else {
            perGas = tx.gasPrice ?? .zero
            review.add("gas price", gwei(perGas))
        }
        let (fee, feeOverflow) = perGas.multipliedReportingOverflow(by: tx.gasLimit.uint64 ?? .max)
        if feeOverflow || tx.gasLimit.uint64 == nil {
            review.add("worst-case fee", "more than 2^256 wei")
            review.warnings.append("the fee is beyond any balance: no node will take this transaction")
        } else {
            review.add(
                "worst-case fee",
                amount(fee, symbol: symbol) + ", gas limit × " + (tx.maxFeePerGas == nil ? "gas price" : "max fee"))
            let (total, totalOverflow) = tx.value.addingReportingOverflow(fee)
            if !tx.value.isZero && !totalOverflow { review.add("total at most", amount(total, symbol: symbol)) }
            if perGas > highFeePerGas || fee > highFee {
                review.warnings.append(
                    "the fee is high: up to \(amount(fee, symbol: symbol)) at \(gwei(perGas)) per gas"
                        + " (mainnet has rarely needed more than 100 gwei): check it is what you mean to pay")
            }
        }
        if tx.type == .blob { review.addBlobs(tx, symbol: symbol) }
        CallData.review(tx.data, to: tx.to, name: name, fullData: fullData, into: &review)
        if tx.type == .setCode { review.addAuthorizations(tx.authorizationList, tx: tx, delegates: delegates) }
        if !tx.accessList.isEmpty {
            let keys = tx.accessList.reduce(0) { $0 + $1.storageKeys.count }
            review.add(
                "access list",
                "\(tx.accessList.count) address\(tx.accessList.count == 1 ? "" : "es"), \(keys) storage key\(keys == 1 ? "" : "s")"
            )
            for entry in tx.accessList {
                review.add(entry.address.checksummed, "\(entry.storageKeys.count) storage keys", depth: 1)
            }
        }
        return review
    }
}

/// Call data: its length and selector, and the calls kcs decodes (ERC-20's transfer, approve and
/// transferFrom, ERC-721/1155's setApprovalForAll) with their arguments.
public enum CallData {
    /// A call kcs knows by its selector.
    struct Known {
        let selector: [UInt8]
        let signature: String
        /// The argument names and whether each is an address (else a uint256 or a bool).
        let arguments: [(name: String, kind: Kind)]
        enum Kind { case address, amount, bool }
    }

    static let known: [Known] = [
        Known(
            selector: [0xA9, 0x05, 0x9C, 0xBB], signature: "transfer(address,uint256)",
            arguments: [("to", .address), ("amount", .amount)]),
        Known(
            selector: [0x09, 0x5E, 0xA7, 0xB3], signature: "approve(address,uint256)",
            arguments: [("spender", .address), ("amount", .amount)]),
        Known(
            selector: [0x23, 0xB8, 0x72, 0xDD], signature: "transferFrom(address,address,uint256)",
            arguments: [("from", .address), ("to", .address), ("amount", .amount)]),
        Known(
            selector: [0xA2, 0x2C, 0xB4, 0x65], signature: "setApprovalForAll(address,bool)",
            arguments: [("operator", .address), ("approved", .bool)]),
    ]

    /// An amount at or above 2^128 is more than any token's supply: an approval that large is unlimited.
    static let unlimited = UInt256(bigEndian: [1] + [UInt8](repeating: 0, count: 16))!

    /// Adds the call data's lines (and warnings) to `review`.
    static func review(
        _ data: [UInt8], to: EthereumAddress?, name: (EthereumAddress) -> String?, fullData: Bool,
        into review: inout SigningReview
    ) {
        guard !data.isEmpty else {
            review.add("call data", "none")
            return
        }
        if to == nil {
            review.add("call data", "\(data.count) bytes of contract code")
        } else if data.count < 4 {
            review.add("call data", "\(data.count) bytes (too short for a function call)")
        } else {
            let selector = Array(data.prefix(4))
            if let call = known.first(where: { $0.selector == selector }), let args = decode(data, call) {
                review.add("call data", "\(data.count) bytes: \(call.signature), selector 0x\(Hex.encode(selector))")
                for (i, argument) in call.arguments.enumerated() {
                    switch argument.kind {
                    case .address:
                        let a = try! EthereumAddress(bytes: Array(args[i].suffix(20)))
                        review.add(argument.name, a.checksummed + (name(a).map { " (your key \($0))" } ?? ""), depth: 1)
                    case .amount:
                        let amount = UInt256(bigEndian: args[i])!
                        let isApproval = call.signature.hasPrefix("approve")
                        let text = amount == .max ? "\(amount) (2^256 − 1: unlimited)" : amount.description
                        review.add(
                            argument.name, text + " token units (the token's decimals are not known to kcs)", depth: 1)
                        if isApproval && amount >= unlimited {
                            review.warnings.append(
                                "unlimited approval: the spender may take every token of contract"
                                    + " \(to?.checksummed ?? "?") you hold, now and later")
                        }
                    case .bool:
                        let on = args[i].last == 1
                        review.add(argument.name, on ? "true" : "false", depth: 1)
                        if on {
                            review.warnings.append(
                                "setApprovalForAll: the operator may move every token of collection"
                                    + " \(to?.checksummed ?? "?") you hold, now and later")
                        }
                    }
                }
            } else {
                review.add(
                    "call data", "\(data.count) bytes, selector 0x\(Hex.encode(selector)) (a call kcs does not decode)")
            }
        }
        if fullData {
            review.add("call data (hex)", "0x" + Hex.encode(data))
        }
        // ERC-8213's name for it, in full: what another device computes from the same call data.
        review.add(Digest.calldata, "0x" + Hex.encode(digest(data)))
    }

    /// ERC-8213's Calldata Digest: keccak256(uint256(len(data)) ‖ data) — a 32-byte big-endian
    /// length, then the data; it covers neither `to` nor `value` (docs/signing-review.md).
    public static func digest(_ data: [UInt8]) -> [UInt8] {
        var length = [UInt8](repeating: 0, count: 32)
        var n = UInt64(data.count)
        for i in (24..<32).reversed() {
            length[i] = UInt8(n & 0xFF)
            n >>= 8
        }
        return Hash.keccak256(length + data)
    }

    /// The 32-byte words of a known call, when the data is exactly that call with canonical
    /// arguments (addresses with 12 zero bytes, a bool 0 or 1).
    static func decode(_ data: [UInt8], _ call: Known) -> [[UInt8]]? {
        guard data.count == 4 + 32 * call.arguments.count else { return nil }
        var words: [[UInt8]] = []
        for (i, argument) in call.arguments.enumerated() {
            let word = Array(data[(4 + 32 * i)..<(36 + 32 * i)])
            switch argument.kind {
            case .address: guard word.prefix(12).allSatisfy({ $0 == 0 }) else { return nil }
            case .bool: guard word.prefix(31).allSatisfy({ $0 == 0 }), word[31] <= 1 else { return nil }
            case .amount: break
            }
            words.append(word)
        }
        return words
    }
}

extension SigningReview {
    /// Blob gas per blob (EIP-4844's GAS_PER_BLOB, 2^17).
    public static let blobGasPerBlob: UInt64 = 131_072

    /// A blob transaction's lines: how many blobs, each versioned hash in full, the blob fee cap
    /// and the worst-case blob fee (blobs × 2^17 × maxFeePerBlobGas), paid on top of the gas fee.
    mutating func addBlobs(_ tx: EthereumTransaction, symbol: String) {
        let count = tx.blobVersionedHashes.count
        add("blobs", "\(count) (signed by their versioned hashes; the blob data is not part of the signature)")
        for (i, h) in tx.blobVersionedHashes.enumerated() { add("#\(i + 1)", "0x" + Hex.encode(h), depth: 1) }
        let cap = tx.maxFeePerBlobGas ?? .zero
        add("max fee per blob gas", Self.gwei(cap))
        let (fee, overflow) = cap.multipliedReportingOverflow(by: UInt64(count) * Self.blobGasPerBlob)
        add("worst-case blob fee", overflow ? "more than 2^256 wei" : Self.amount(fee, symbol: symbol))
        if count > 6 {
            warnings.append("\(count) blobs: nodes since Osaka (EIP-7594) take at most 6 per transaction")
        }
    }
}
