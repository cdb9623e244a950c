import KCSErrors
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession

// The `safe` namespace and `sign safe` (docs/eth-signing.md, "Safe"): a SafeTx's hashes and
// review, an owner's confirmation in Safe's encoding, and several owners' signatures packed.
// The session reads and checks (WalletSession/Ethereum/Safe.swift); this converts values.

extension Builtins {
    /// The options that place a SafeTx: its Safe, chain and version.
    static let safeOptions: [OptionSpec] = [
        OptionSpec(
            "safe", .oneOf([.string, .bytes, .domain("address")]), "the Safe's address (else the service JSON's)"),
        OptionSpec(
            "chain", .int, "the chain id (the Safe's domain holds it from 1.3.0; else the node's)", in: 1...Int.max),
        OptionSpec(
            "version", .string, "the Safe's version: 0.1.0, 1.0.0–1.2.x, 1.3.0 and later (else the node's, else 1.3.0)"),
        rpcOption,
        OptionSpec("offline", nil, "read nothing from the node, even when one is configured"),
    ]

    static let safe: [Builtin] = [
        Builtin(
            "safe.tx", params: [ParamSpec("tx", .oneOf([.string, .map]))],
            options: safeOptions,
            summary:
                "A Safe transaction (a map of SafeTx fields, or a Safe Transaction Service JSON file whose safeTxHash is recomputed): {domainHash, messageHash, safeTxHash, review, confirmations}.",
            example:
                "safe.tx {\"to\": \"0x111CEEee040739fD91D29C34C33E6B3E112F2177\", \"data\": 0x0d582f13, \"nonce\": 234} --safe 0x111CEEee040739fD91D29C34C33E6B3E112F2177 --chain 42161"
        ) { args in
            let (tx, confirmations, state) = try safeTransaction(args, signer: nil)
            let review = try safeReview(tx, state: state, args)
            return .map(
                ValueMap(
                    safeFields(tx) + safeStateFields(state) + [
                        ("review", reviewText(review, args)),
                        ("confirmations", .list(confirmations.map(safeSignatureValue))),
                    ]))
        },

        Builtin(
            "sign.safe", traits: [.mayOpenVault], params: [ParamSpec("tx", .oneOf([.string, .map]))],
            options: safeOptions + [
                OptionSpec(
                    "eth-sign", nil,
                    "sign the EIP-191 hash of the safeTxHash (v 31/32), for an owner whose wallet cannot sign typed data"
                ),
                OptionSpec(
                    "key", givenKeyType,
                    "sign with this stored key (a name) or this key value (an HD key, a secret private key) instead of the active one"
                ),
                OptionSpec("path", pathType, "card: derive the key at this path and sign with it (one SIGN)"),
                OptionSpec("dry-run", nil, "show the hashes and the review without signing"),
                OptionSpec(
                    "expect-digest", .oneOf([.string, .bytes]),
                    "sign only if the safeTxHash is this one (computed on another device: ERC-8213)"),
            ],
            summary:
                "An owner's confirmation of a Safe transaction: {safeTxHash, signature (r ‖ s ‖ v, v 27/28, or 31/32 with --eth-sign), owner, confirmation (the service's JSON), …}.",
            example:
                "sign safe {\"to\": \"0x7b79995e5f793A07Bc00c21412e50Ecae098E7f9\", \"nonce\": 6} --safe 0x86D46EcD553d25da0E3b96A9a1B442ac72fa9e9F --chain 11155111 --dry-run"
        ) { args in
            // One signer for the owner check and the signature (a card is asked for its key once).
            let chosen = args.flag("dry-run") ? nil : ChosenSigner(args)
            let (tx, _, _) = try safeTransaction(args, signer: chosen)
            if args.flag("dry-run") {
                let review = try safeReview(tx, state: nil, args)
                return .map(ValueMap(safeFields(tx) + [("review", reviewText(review, args))]))
            }
            let hash = tx.safeTxHash
            let ethSign = args.flag("eth-sign")
            var request =
                ethSign
                ? SigningRequest(digest: PersonalMessage.digest(hash), payload: .message(hash), kind: .message)
                : SigningRequest(
                    digest: hash, payload: .typed(tx.typedDataJSON), kind: .typed, chainID: tx.chainID.uint64)
            request.expected = try expectedDigest(args, "expect-digest", name: Digest.eip712, actual: hash)
            let signed = try sign(args, request, with: chosen)
            let encoded = SafeOwnerSignature.encode(signed.signature, ethSign: ethSign)
            return .map(ValueMap(safeFields(tx) + safeSignatureFields(encoded, signed: signed)))
        },

        Builtin(
            "safe.combine", params: [ParamSpec("safeTxHash", .bytes), ParamSpec("signatures", .list)],
            summary:
                "Several owners' signatures of one safeTxHash (bytes, or maps {owner, signature}), each read and its owner recovered, packed ascending by owner as execTransaction takes them: {signatures, owners}.",
            example: "safe.combine $h [a.signature, b.signature]"
        ) { args in
            guard case .bytes(let hash)? = args["safeTxHash"], hash.count == 32 else {
                throw BuiltinError.outOfRange(
                    name: "safeTxHash", expected: "32 bytes", got: args["safeTxHash"]?.typeName ?? "nothing")
            }
            let (parts, claimed) = try safeSignatureParts(args["signatures"])
            let (packed, entries) = try args.session().combineSafeSignatures(parts, safeTxHash: hash, claimed: claimed)
            return .map(
                ValueMap([
                    ("signatures", .bytes(packed)), ("count", .int(entries.count)),
                    ("owners", .list(entries.map(safeSignatureValue))),
                ]))
        },
    ]

    /// The SafeTx the arguments describe (a map, or a service JSON file), with its confirmations;
    /// with a node, the Safe's state (its version when --version is not given), the SafeTx's nonce
    /// checked against it and, when `signer` is given, the signer checked to be an owner.
    static func safeTransaction(
        _ args: CallArguments, signer: ChosenSigner?
    ) throws -> (SafeTransaction, [SafeOwnerSignature], SafeState?) {
        let session = try args.session()
        let source: SafeTransactionSource
        switch args["tx"] {
        case .string(let path)?: source = .serviceFile(path)
        case .map(let m)?: source = .fields(try jsonMap(m, "tx"))
        default: throw BuiltinError.outOfRange(name: "tx", expected: "a map or a JSON file", got: "nothing")
        }
        let node = args.flag("offline") ? nil : try optionalNode(args)
        let given = args.int("chain").map { UInt256(UInt64($0)) }
        let nodeChain = try node?.chainID()
        if let given, let nodeChain, let node, given != nodeChain {
            // The Safe would be read on another chain than the one its transaction is for.
            throw EthCommandError.chainMismatch(
                given: given.description, node: nodeChain.description, endpoint: node.endpoint)
        }
        guard let chain = given ?? nodeChain else {
            throw BuiltinError.optionNeeded(option: "--chain", reason: "a Safe transaction is for one chain")
        }
        let safe = try args.value("safe").map(addressArgument)
        var state = try safe.flatMap { s in try node.map { try session.safeState(s, node: $0) } }
        let versionText = args.string("version") ?? state?.version ?? "1.3.0"
        guard let version = SafeVersion(versionText) else {
            throw BuiltinError.outOfRange(
                name: "--version", expected: "a Safe version such as 1.3.0 or 1.4.1+L2", got: versionText)
        }
        let (tx, confirmations) = try session.safeTransaction(source, safe: safe, chainID: chain, version: version)
        if state == nil, let node { state = try session.safeState(tx.safe, node: node) }
        if let state { try session.checkSafe(state, tx: tx, signer: try signer?.address()) }
        return (tx, confirmations, state)
    }

    /// A SafeTx's review: the typed-data review, the Safe's version (and, from a node, its owners).
    static func safeReview(_ tx: SafeTransaction, state: SafeState?, _ args: CallArguments) throws -> SigningReview {
        var review = try SigningReview.typedData(tx.typedData, name: try args.session().ownKeyNames())
        let source =
            args.string("version") != nil ? "given" : state != nil ? "from the node" : "assumed: give --version"
        // Beside the Safe's address, above the hashes.
        let at = (review.lines.firstIndex { $0.label == Digest.domain }) ?? review.lines.count
        var lines = [SigningReview.Line("Safe version", "\(tx.version) (\(source))")]
        if let state {
            lines.append(SigningReview.Line("owners", "\(state.threshold) of \(state.owners.count) must confirm"))
        }
        review.lines.insert(contentsOf: lines, at: at)
        return review
    }

    /// The Safe's state as the node gave it (nothing without a node).
    static func safeStateFields(_ state: SafeState?) -> [(String, Value)] {
        guard let state else { return [] }
        return [
            ("safeNonce", uintValue(state.nonce)), ("threshold", uintValue(state.threshold)),
            ("owners", .list(state.owners.map { .string($0.checksummed) })),
        ]
    }

    static func safeFields(_ tx: SafeTransaction) -> [(String, Value)] {
        let h = tx.hashes
        return [
            ("safe", .string(tx.safe.checksummed)), ("chainId", uintValue(tx.chainID)),
            ("version", .string(tx.version.description)), ("operation", .string(tx.operation.description)),
            ("domainHash", .bytes(h.domain)), ("messageHash", .bytes(h.message)), ("safeTxHash", .bytes(h.safeTxHash)),
        ]
    }

    /// An owner's signature as Safe takes it, the service's confirmation body, and the signature fields.
    static func safeSignatureFields(_ encoded: [UInt8], signed: Signed) -> [(String, Value)] {
        let confirmation = "{\"signature\": \"\(Hex.encodePrefixed(encoded))\"}"
        return [
            ("signature", .bytes(encoded)), ("owner", .string(signed.signer)), ("confirmation", .string(confirmation)),
        ] + signatureFields(signed).filter { $0.0 != "signature" && $0.0 != "v" }
    }

    static func safeSignatureValue(_ s: SafeOwnerSignature) -> Value {
        .map(
            ValueMap([
                ("owner", .string(s.owner.checksummed)), ("kind", .string(s.kind.description)),
                ("signature", .bytes(s.staticPart)),
            ]))
    }

    /// `safe.combine`'s list: bytes, or maps `{owner, signature}` (what `sign safe` answers will do).
    static func safeSignatureParts(_ value: Value?) throws -> ([[UInt8]], [EthereumAddress?]) {
        guard case .list(let items)? = value else { return ([], []) }
        var parts: [[UInt8]] = [], owners: [EthereumAddress?] = []
        for (i, item) in items.enumerated() {
            switch item {
            case .bytes(let b):
                parts.append(b)
                owners.append(nil)
            case .map(let m):
                guard case .bytes(let b)? = m["signature"] else {
                    throw BuiltinError.outOfRange(
                        name: "signatures[\(i)]", expected: "bytes or {owner, signature}",
                        got: "a map without signature")
                }
                parts.append(b)
                owners.append(try m["owner"].map(addressArgument))
            default:
                throw BuiltinError.outOfRange(
                    name: "signatures[\(i)]", expected: "bytes or {owner, signature}", got: item.typeName)
            }
        }
        return (parts, owners)
    }
}
