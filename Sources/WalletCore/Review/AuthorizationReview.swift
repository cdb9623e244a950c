// The review of an EIP-7702 authorization (docs/eth-signing.md, "What the review shows"): the
// delegate gets full control of the account, on the chain named or on every chain, so the
// review names the authority, the delegate (and whether an allowlist knows it), the chain, the
// nonce and what it means for the account's nonce, and the account's current code when a node
// told it.

extension SigningReview {
    /// The review of `auth`, to be signed by `authority` (when known). `delegates` names the
    /// delegate; `currentCode` is the authority's code read from a node (nil: not read);
    /// `selfSponsored` says the authority also sends the transaction (nonce = its nonce + 1).
    public static func authorization(
        _ auth: EIP7702Authorization, delegates: DelegateList, currentCode: [UInt8]? = nil,
        selfSponsored: Bool? = nil
    ) -> SigningReview {
        var review = SigningReview(
            title: auth.isRevocation
                ? "EIP-7702 authorization: revoke the account's delegation"
                : "EIP-7702 authorization: delegate the account's code",
            digest: auth.digest, digestName: "authorization digest")
        review.add("chain", auth.isAnyChain ? "ALL CHAINS (chain id 0)" : EthereumChain.label(auth.chainID))
        if auth.isRevocation {
            review.add("delegate", "0x0000000000000000000000000000000000000000: clears the account's code")
        } else if let known = delegates.entry(for: auth.delegate, chainID: auth.chainID) {
            let list = known.source == "kcs" ? "on kcs's allowlist" : "on your allowlist, delegates.json"
            review.add("delegate", "\(auth.delegate.checksummed) (\(known.name), \(list))")
        }
        if !delegates.allows(auth) {
            let elsewhere = delegates.name(of: auth.delegate).map { " (\($0) on other chains, not this one)" } ?? ""
            review.add("delegate", auth.delegate.checksummed + elsewhere)
            review.warnings.append(
                "the delegate \(auth.delegate.checksummed) is not on the allowlist for this chain: its code would"
                    + " run as your account, with full control of everything it holds")
        }
        review.add("nonce", nonceText(auth.nonce, selfSponsored: selfSponsored))
        if let currentCode { review.add("current code", codeText(currentCode)) }
        if auth.isAnyChain && !auth.isRevocation {
            review.warnings.append(
                "chain id 0: this signature is valid on EVERY EVM chain, where the same address may hold other"
                    + " code or none")
        }
        return review
    }

    static func nonceText(_ nonce: UInt64, selfSponsored: Bool?) -> String {
        switch selfSponsored {
        case true?: "\(nonce) (you send the transaction too: your account nonce + 1)"
        case false?: "\(nonce) (another account sends the transaction: your current account nonce)"
        case nil: "\(nonce) (must equal the account's nonce when the tuple is processed)"
        }
    }

    /// `0x` (no code), `delegated to 0x…` (an EIP-7702 indicator), or the length of contract code.
    static func codeText(_ code: [UInt8]) -> String {
        if code.isEmpty { return "none (the account is not delegated now)" }
        if code.count == 23, code.starts(with: [0xEF, 0x01, 0x00]),
            let current = try? EthereumAddress(bytes: Array(code.suffix(20)))
        {
            return "delegated now to \(current.checksummed)"
        }
        return "\(code.count) bytes of contract code (not an EOA)"
    }

    /// The lines of a set-code transaction's authorization list: each tuple's delegate, chain,
    /// nonce and authority (recovered), with the warnings each deserves.
    mutating func addAuthorizations(_ list: [SignedAuthorization], tx: EthereumTransaction, delegates: DelegateList) {
        add("authorizations", "\(list.count)")
        for (i, signed) in list.enumerated() {
            let auth = signed.authorization
            let authority = try? signed.authority()
            let name =
                auth.isRevocation
                ? "revocation (clears the code)" : delegates.entry(for: auth.delegate, chainID: auth.chainID)?.name
            add("#\(i + 1) delegate", auth.delegate.checksummed + (name.map { " (\($0))" } ?? ""), depth: 1)
            add("chain", auth.isAnyChain ? "ALL CHAINS (0)" : EthereumChain.label(auth.chainID), depth: 2)
            add("nonce", "\(auth.nonce)", depth: 2)
            add(
                "authority", authority?.checksummed ?? "none: the signature does not recover (the tuple is skipped)",
                depth: 2)
            if !auth.isAnyChain && auth.chainID != (tx.chainID ?? .zero) {
                warnings.append(
                    "authorization #\(i + 1) is for chain \(auth.chainID), not this transaction's: it will be skipped")
            }
            if name == nil {
                warnings.append(
                    "authorization #\(i + 1) delegates to \(auth.delegate.checksummed), not on the allowlist: its code"
                        + " would run as \(authority?.checksummed ?? "the authority") with full control")
            }
        }
    }
}
