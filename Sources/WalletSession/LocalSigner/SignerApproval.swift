import EthRPC
import Foundation
import KCSErrors
import LocalRPC
import WalletCore
import WalletCrypto
import WalletStore

// One request at the console (docs/signer.md, "What the console shows"): filled from the node
// (as `sign tx` fills), shown with the review every signing prompt shows plus what the endpoint
// adds — the fields kcs filled, whether it is sent, the rule's outcome, the caller's own words
// marked unverified — decided, signed by `Session.sign` (which checks the signature against the
// key), sent once, and logged.

/// A request made ready to show and sign.
struct PreparedRequest {
    var signing: SigningRequest?
    var transaction: EthereumTransaction?
    var subject: RuleSubject.Kind?
}

extension SignerEndpoint {
    func prepare(_ request: PendingRequest) throws -> PreparedRequest {
        var prepared = PreparedRequest()
        var review: SigningReview
        switch request.call {
        case .connect(let origin):
            show(request, ["  connect  \(TerminalText.safe(origin)) asks to see account \(account.checksummed)"])
            return prepared
        case .transaction(var tx, let given, let sends, let fills):
            var filled: [String] = []
            if fills {
                do {
                    filled = try session.fill(&tx, given: given, sender: { self.account }, node: node).map(\.field)
                } catch let e as RPCError {
                    // The node's own refusal (insufficient funds, say) goes back as it said it.
                    if case .node(_, let code, let message) = e { throw SignerRPCError(code, message) }
                    throw SignerRPCError(
                        4900, "the node at \(node.endpoint) could not fill the transaction: \(e.description)")
                }
                // Two requests in a row must not take the same pending nonce from the node.
                if !given.contains("nonce"), let last = lastNonce, tx.nonce <= last {
                    tx.nonce = last.addingReportingOverflow(UInt256(1)).0
                }
            }
            if tx.chainID == nil { tx.chainID = UInt256(chainID) }
            if let tip = tx.maxPriorityFeePerGas, let cap = tx.maxFeePerGas, tip > cap {
                throw SignerRPCError.invalid("maxPriorityFeePerGas \(tip) is above maxFeePerGas \(cap)")
            }
            do { try tx.validate() } catch { throw SignerRPCError.invalid(error.description) }
            let payload = tx.signingPayload
            review = try Session.review(.transaction(payload), digest: tx.signingHash, name: ownKeyNames)
            review.add(
                "filled",
                filled.isEmpty
                    ? "nothing: the caller gave every field" : filled.joined(separator: ", ") + " (from the node)")
            review.add(
                "sent",
                sends
                    ? "yes: only the signed bytes go to the node (eth_sendRawTransaction), once"
                    : "NO: the signed transaction goes back to the caller")
            if tx.to == nil && tx.data.isEmpty {
                review.warnings.append("CRITICAL: a contract creation with no code")
            }
            prepared.transaction = tx
            // geth's account_signTransaction is its eth_sendTransaction (geth sends what kcs signs),
            // so a rule may approve it and its value counts; eth_signTransaction's never does.
            prepared.subject = .transaction(tx, sends: sends || !fills)
            prepared.signing = SigningRequest(
                digest: tx.signingHash, payload: .transaction(payload), kind: .transaction, chainID: chainID,
                signer: choice)
        case .message(let bytes, let swapped):
            let digest = PersonalMessage.digest(bytes)
            review = SigningReview.message(bytes)
            if swapped { review.warnings.append("the caller sent [address, data]; read as [data, address]") }
            prepared.subject = .message(bytes)
            prepared.signing = SigningRequest(digest: digest, payload: .message(bytes), kind: .message, signer: choice)
        case .typed(let data, let json):
            let digest = try data.digest()
            review = try Session.review(.typed(json), digest: digest, name: ownKeyNames)
            if data.domain["chainId"] == nil { review.warnings.append("the domain is not bound to a chain") }
            prepared.subject = .typed(data)
            prepared.signing = SigningRequest(
                digest: digest, payload: .typed(json), kind: .typed, chainID: chainID, signer: choice)
        }
        review.addSigner(signerSummary)
        var text = review.rendered(width: 100).split(separator: "\n").map { "  " + $0 }
        text.append("  chain pinned  \(EthereumChain.label(UInt256(chainID))), node \(node.endpoint) (pinned at start)")
        show(request, text)
        return prepared
    }

    /// The header, the lines, and what the caller said of itself (kept apart, escaped, cut).
    func show(_ request: PendingRequest, _ lines: [some StringProtocol]) {
        var out = [
            "── request #\(request.number) · \(request.method) · \(request.caller.transportName) · "
                + "\(queue.waiting) waiting ──"
        ]
        out += lines.map { String($0) }
        var stated: [String] = []
        if let origin = request.caller.origin { stated.append("Origin " + Self.quoted(origin)) }
        if let agent = request.caller.userAgent { stated.append("User-Agent " + Self.quoted(agent)) }
        if !stated.isEmpty { out.append("  caller says (not verified): " + stated.joined(separator: ", ")) }
        session.show(out.joined(separator: "\n"))
    }

    static func quoted(_ text: String) -> String {
        let safe = TerminalText.safe(text)
        return "\"" + (safe.count > 80 ? String(safe.prefix(79)) + "…" : safe) + "\""
    }

    /// What the rules, else the person at the console, decide; nobody at a terminal is a denial.
    func decide(_ request: PendingRequest, _ prepared: PreparedRequest) throws -> Decision {
        if let subject = prepared.subject {
            guard let rules else {
                session.show("  rules         no rules file → ask")
                return try ask(request)
            }
            let caller: RuleSubject.CallerKind =
                if let origin = request.caller.origin {
                    .origin(origin)
                } else if case .socket = request.caller.transport {
                    .socket
                } else {
                    .token
                }
            let outcome = rules.decide(
                RuleSubject(kind: subject, chainID: chainID, account: account, caller: caller), window: window)
            session.show("  rules         " + SignerRules.describe(outcome))
            switch outcome {
            case .approve(let rule): return .approved(by: "rule \(rule)")
            case .deny(let reason): return .denied(by: "rule: \(reason)", answer: "by rule: \(reason)")
            case .ask: break
            }
        }
        return try ask(request)
    }

    func ask(_ request: PendingRequest) throws -> Decision {
        guard let prompts = session.prompts, prompts.isInteractive else {
            return .denied(
                by: "no console",
                answer: "the request: nobody can answer at the kcs console (no terminal, and no rule approves it)")
        }
        let question =
            if case .connect(let origin) = request.call {
                "Connect \(TerminalText.safe(origin)) to account \(account.checksummed) for this run? [y/N] "
            } else { "Approve request #\(request.number)? [y/N] " }
        let answer = try prompts.ask(
            prompt: question, ignoring: options.inputDelay, until: { request.withdrawn || request.expired })
        if request.withdrawn { return .withdrawn }
        if answer == nil && request.expired { return .expired }
        guard ["y", "yes"].contains(answer?.trimmingCharacters(in: .whitespaces).lowercased() ?? "") else {
            return .denied(by: "console", answer: "the request at the kcs console")
        }
        return .approved(by: "console")
    }

    /// What was approved through the endpoint in the last 24 hours (from the log, so a restart
    /// does not reset it).
    func window() -> RuleWindow {
        let since = session.clock().addingTimeInterval(-24 * 3600)
        var window = RuleWindow()
        for record in (try? store.signerRequests(since: since)) ?? []
        where record.request.outcome == .approved && Self.transactionMethods.contains(record.request.method) {
            window.valueWei =
                window.valueWei.addingReportingOverflow(UInt256(decimal: record.request.valueWei) ?? .zero).0
            window.transactions += 1
        }
        return window
    }

    static let transactionMethods: Set = ["eth_sendTransaction", "eth_signTransaction", "account_signTransaction"]

    /// Signs an approved request and answers it.
    func sign(_ request: PendingRequest, _ prepared: inout PreparedRequest, by: String) throws {
        if case .connect(let origin) = request.call {
            connectedOrigins.withLock { _ = $0.insert(origin) }
            request.finish(Self.result(request.id, [account.checksummed]))
            log(request, prepared, .approved, by: by)
            session.show("  request #\(request.number): \(origin) connected for this run")
            return
        }
        // The chain is checked again just before the signature: a node that moved is refused.
        let now = try? node.chainID()
        guard now == UInt256(chainID) else {
            session.prompts?.warn(
                "the node at \(node.endpoint) now reports chain \(now?.description ?? "nothing"), not \(chainID)")
            throw SignerRPCError(4901, "the node no longer reports chain \(chainID); nothing was signed")
        }
        guard let signing = prepared.signing else { return }
        var result: Any = NSNull()
        var hash: [UInt8]?
        var sent = false
        do {
            let signed = try session.sign(signing) { signed in
                guard let tx = prepared.transaction else {
                    result = "0x" + Hex.encode(signed.signature.bytes)
                    return
                }
                let stx = tx.signed(with: signed.signature.signature, yParity: signed.signature.recoveryID)
                guard try stx.sender() == self.account else {
                    throw SignerRPCError(
                        -32603, "the signed transaction does not recover to \(self.account.checksummed)")
                }
                hash = stx.hash
                if case .transaction(_, _, let sends, _) = request.call, sends {
                    do {
                        _ = try self.session.send(stx.rawBytes, to: self.node, wait: false)
                    } catch let e as RPCError {
                        if case .node(_, let code, let message) = e { throw SignerRPCError(code, message) }
                        throw SignerRPCError(4900, e.description)
                    } catch let e as EthCommandError {
                        throw SignerRPCError(-32603, e.description, hash: Hex.encodePrefixed(stx.hash))
                    }
                    sent = true
                    result = Hex.encodePrefixed(stx.hash)
                } else {
                    result = ["raw": stx.rawHex, "tx": Self.transactionJSON(stx)] as [String: Any]
                }
            }
            _ = signed
        } catch let e as SignerRPCError {
            request.finish(Self.error(request.id, e))
            session.show("  request #\(request.number): signed but not answered — \(e.message)")
            log(request, prepared, .failed, by: "\(by); \(e.message)")
            return
        }
        if let tx = prepared.transaction, sent || request.method != "eth_sendTransaction" { lastNonce = tx.nonce }
        request.finish(Self.result(request.id, result))
        log(request, prepared, .approved, by: by, sent: sent, hash: hash)
        session.show(
            "  request #\(request.number): signed (\(by))" + (sent ? ", sent \(Hex.encodePrefixed(hash ?? []))" : ""))
    }

    /// The `tx` of eth_signTransaction's `{raw, tx}` with every field geth's decoder requires.
    static func transactionJSON(_ stx: SignedEthereumTransaction) -> [String: Any] {
        let tx = stx.transaction
        func quantity(_ bytes: [UInt8]) -> String {
            let digits = Hex.encode(Array(bytes.drop { $0 == 0 }))
            let trimmed = String(digits.drop { $0 == "0" })
            return "0x" + (trimmed.isEmpty ? "0" : trimmed)
        }
        var json: [String: Any] = [
            "type": UInt256(UInt64(tx.type.rawValue)).hexQuantity, "nonce": tx.nonce.hexQuantity,
            "gas": tx.gasLimit.hexQuantity, "value": tx.value.hexQuantity, "input": Hex.encodePrefixed(tx.data),
            "to": tx.to.map { Hex.encodePrefixed($0.bytes) } ?? NSNull(), "v": stx.v.hexQuantity,
            "r": quantity(stx.signature.r), "s": quantity(stx.signature.s), "hash": Hex.encodePrefixed(stx.hash),
        ]
        if let chain = tx.chainID { json["chainId"] = chain.hexQuantity }
        if let price = tx.gasPrice { json["gasPrice"] = price.hexQuantity }
        if let cap = tx.maxFeePerGas { json["maxFeePerGas"] = cap.hexQuantity }
        if let tip = tx.maxPriorityFeePerGas { json["maxPriorityFeePerGas"] = tip.hexQuantity }
        if tx.type != .legacy {
            json["yParity"] = UInt256(UInt64(stx.yParity)).hexQuantity
            json["accessList"] = tx.accessList.map { e in
                [
                    "address": Hex.encodePrefixed(e.address.bytes),
                    "storageKeys": e.storageKeys.map { Hex.encodePrefixed($0) },
                ]
                    as [String: Any]
            }
        }
        return json
    }

    // MARK: The log

    func log(
        _ request: PendingRequest, _ prepared: PreparedRequest? = nil, _ outcome: SignerOutcome, by: String,
        sent: Bool = false, hash: [UInt8]? = nil
    ) {
        var caller = request.caller.transportName
        if let origin = request.caller.origin { caller += " origin " + origin }
        do {
            try store.recordSignerRequest(
                NewSignerRequest(
                    method: request.method, caller: String(caller.prefix(200)), keyName: keyName,
                    account: account.checksummed, outcome: outcome, decidedBy: String(by.prefix(300)),
                    digest: prepared?.signing?.digest, chainID: chainID,
                    valueWei: (prepared?.transaction?.value ?? .zero).description,
                    sent: sent, transactionHash: hash))
        } catch {
            session.prompts?.warn("request #\(request.number) was not logged: \(error)")
        }
    }

    func log(_ request: PendingRequest, _ outcome: SignerOutcome, by: String) {
        log(request, nil, outcome, by: by)
    }
}
