import BigInt
import CardProtocol
import Foundation
import KCSErrors
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// Signing and checking signatures: `sign` (a digest), `sign.message` (EIP-191), `sign.typed`
// (EIP-712), `sign.tx` (legacy, EIP-2930, EIP-1559), `verify`, `recover`, and the signing
// `history`. Every signature comes from one `Signer` (docs/architecture.md) and has one shape
// (`signatureFields`, docs/language.md §11).

extension Builtins {
    static let signing: [Builtin] = [
        Builtin(
            "sign", traits: [.mayOpenVault], params: [ParamSpec("digest", .bytes)],
            options: [
                OptionSpec(
                    "key", givenKeyType,
                    "sign with this stored key (a name) or this key value (an HD key, a secret private key) instead of the active one",
                    rules: [.notWith(["schnorr"], because: schnorrSigner)]),
                OptionSpec("path", pathType, "card: derive the key at this path and sign with it (one SIGN)"),
                OptionSpec(
                    "make-current", nil, "card: with --path, the path becomes the card's current path",
                    rules: [
                        .onlyWith("path", because: "it goes with --path P"),
                        .notWith(["schnorr"], because: schnorrSigner),
                    ]),
                OptionSpec(
                    "pinless", nil, "card: sign with the PIN-less path (no PIN, no secure channel)",
                    rules: [
                        .notWith(
                            ["path", "make-current"],
                            because: "the card signs with its PIN-less path; drop --path and --make-current"),
                        .notWith(["schnorr"], because: schnorrSigner),
                    ]),
                OptionSpec("schnorr", nil, "Keycard 4.0: a BIP-340 Schnorr signature instead of ECDSA"),
                OptionSpec(
                    "tweak", .oneOf([.string, .bytes]),
                    "with --schnorr: taproot (BIP-86 key path) or 32 bytes added to the key",
                    rules: [.onlyWith("schnorr", because: "it goes with --schnorr")]),
                OptionSpec(
                    "dry-run", nil, "show the review (a bare digest: kcs cannot say what it is) without signing"),
            ],
            summary:
                "Signs a 32-byte digest with the active key (or card): {digest, signature, r, s, v, yParity, signer, …}; recorded in the history.",
            example: "sign 0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8"
        ) { args in
            let session = try args.session()
            guard case .bytes(let digest)? = args["digest"], digest.count == 32 else {
                let n = if case .bytes(let b)? = args["digest"] { b.count } else { 0 }
                throw KeyCommandError.digestLength(got: n)
            }
            if args.flag("dry-run") {
                return .map(
                    ValueMap([
                        ("digest", .bytes(digest)), ("review", reviewText(SigningReview.rawDigest(digest), args)),
                    ]))
            }
            if args.flag("schnorr") { return try schnorrValue(args, digest: digest) }
            let signed = try sign(args, SigningRequest(digest: digest, payload: .digest, kind: .hash))
            return .map(ValueMap([("digest", .bytes(digest))] + signatureFields(signed)))
        },

        Builtin(
            "history",
            options: [
                OptionSpec("key", .string, "only this key's signatures"),
                OptionSpec("since", .string, "only from this date on (YYYY-MM-DD, or ISO 8601)"),
                OptionSpec(
                    "kind", .string,
                    "hash, message, typed, transaction, authorization, bitcoin; signer: the local signer's requests and their outcomes",
                    choices: SignatureKind.allCases.map(\.rawValue) + ["signer"]),
                OptionSpec("limit", .int, "at most this many, newest first (default 50)", in: 1...10_000_000),
                OptionSpec("json", nil, "as JSON text"),
                OptionSpec("csv", nil, "as CSV text"),
            ],
            summary:
                "The signing history, newest first: id, time, key, kind, digest, digestName (ERC-8213's name for it), signature, signer, verified, chainId (the same fields in --json and --csv); --kind signer: the local signer's requests (method, caller, outcome, decidedBy, …).",
            example: "history --key savings --since 2026-01-01 --csv"
        ) { args in
            let store = try args.session().store()
            var query = HistoryQuery(keyName: args.string("key"), limit: 50)
            if let n = args.int("limit") { query.limit = n }
            if let since = args.string("since") { query.since = try parseDate(since) }
            if args.string("kind") == "signer" {
                if args.flag("csv") {
                    throw BuiltinError.outOfRange(name: "--csv", expected: "--json with --kind signer", got: "--csv")
                }
                let records = try store.signerRequests(since: query.since).filter { r in
                    query.keyName.map { $0.lowercased() == r.request.keyName.lowercased() } ?? true
                }.prefix(query.limit ?? .max).map(signerRequestValue)
                return args.flag("json") ? .string(Value.list(Array(records)).json) : .list(Array(records))
            }
            query.kind = args.string("kind").flatMap(SignatureKind.init(rawValue:))  // the table declares the choices
            let records = try store.history(query)
            if args.flag("csv") { return .string(HistoryExport.csv(records)) }
            // One shape for the value, --json and --csv: the same fields under the same names.
            if args.flag("json") { return .string(Value.list(records.map { historyValue($0) }).json) }
            return .list(records.map { historyValue($0) })
        },

        Builtin(
            "sign.message", traits: [.mayOpenVault], params: [ParamSpec("message", .oneOf([.string, .bytes]))],
            options: [
                OptionSpec(
                    "key", givenKeyType,
                    "sign with this stored key (a name) or this key value (an HD key, a secret private key) instead of the active one"
                ),
                OptionSpec("dry-run", nil, "show the prefix, payload, digest and the review without signing"),
            ],
            summary:
                "EIP-191 personal_sign of text (a quoted string, even 0x-looking) or bytes (0x…): {prefix, digest, signature, r, s, v, yParity, signer, …}.",
            example: "sign message \"hello\""
        ) { args in
            let message = args.textOrBytes("message")
            let prefix = PersonalMessage.prefix(forLength: message.count)
            let digest = PersonalMessage.digest(message)
            let shown: [(String, Value)] = [
                ("prefix", .bytes(prefix)), ("message", .bytes(message)), ("digest", .bytes(digest)),
            ]
            if args.flag("dry-run") {
                return .map(ValueMap(shown + [("review", reviewText(SigningReview.message(message), args))]))
            }
            let signed = try sign(args, SigningRequest(digest: digest, payload: .message(message), kind: .message))
            return .map(ValueMap(shown + signatureFields(signed)))
        },

        Builtin(
            "sign.typed", traits: [.mayOpenVault], params: [ParamSpec("data", .oneOf([.string, .map]))],
            options: [
                OptionSpec(
                    "key", givenKeyType,
                    "sign with this stored key (a name) or this key value (an HD key, a secret private key) instead of the active one"
                ),
                OptionSpec(
                    "dry-run", nil, "show the Domain Hash, Message Hash, EIP-712 Digest and the review without signing"),
                descriptorOption,
                OptionSpec(
                    "expect-digest", .oneOf([.string, .bytes]),
                    "sign only if the EIP-712 Digest is this one (computed on another device: ERC-8213)"),
            ],
            summary:
                "EIP-712 v4 typed data from a JSON file or a map {types, primaryType, domain, message}: {domainSeparator, structHash, digest, signature, r, s, v, yParity, signer, …}.",
            example: "sign typed mail.json --dry-run"
        ) { args in
            let document = try typedDocument(args.value("data"))
            let typed = try TypedData(json: document)
            let domainSeparator = try typed.domainSeparator()
            let structHash = try typed.messageHash()
            let digest = try typed.digest()
            let chainID = typedChainID(typed)
            var shown: [(String, Value)] = [
                ("primaryType", .string(typed.primaryType)), ("domainSeparator", .bytes(domainSeparator)),
                ("structHash", .bytes(structHash)), ("digest", .bytes(digest)),
            ]
            if let chainID { shown.append(("chainId", uintValue(UInt256(chainID)))) }
            if args.flag("dry-run") {
                return .map(ValueMap(shown + [("review", reviewText(try typedReview(typed, args), args))]))
            }
            var request = SigningRequest(digest: digest, payload: .typed(document), kind: .typed, chainID: chainID)
            request.expected = try expectedDigest(args, "expect-digest", name: Digest.eip712, actual: digest)
            return .map(ValueMap(shown + signatureFields(try sign(args, request))))
        },

        Builtin(
            "sign.tx", traits: [.mayOpenVault], params: [ParamSpec("tx", .map)],
            options: [
                OptionSpec(
                    "key", givenKeyType,
                    "sign with this stored key (a name) or this key value (an HD key, a secret private key) instead of the active one"
                ),
                OptionSpec("dry-run", nil, "show the unsigned RLP, the signing hash and the review without signing"),
                OptionSpec("full-data", nil, "with --dry-run: the review shows the call data in full hex"),
                descriptorOption,
                OptionSpec(
                    "allow-no-chain-id", nil,
                    "sign a legacy transaction without chainId (pre-EIP-155: valid on every chain)"),
                rpcOption,
                OptionSpec("offline", nil, "fill nothing from the node, even when one is configured"),
                OptionSpec(
                    "expect-calldata-digest", .oneOf([.string, .bytes]),
                    "sign only if the call data's Calldata Digest is this one (computed on another device: ERC-8213)"),
            ],
            summary:
                "Signs a transaction map (type 0–4, chainId, nonce, to, value, gas, gasPrice | maxFeePerGas + maxPriorityFeePerGas, data, accessList, maxFeePerBlobGas + blobVersionedHashes, authorizationList; quantities as 21000, \"20 gwei\", \"1.5 ether\"): {raw, hash, signature, r, s, v, yParity, networkV (legacy), signer, …}.",
            example:
                "sign tx {\"type\": 2, \"chainId\": 1, \"nonce\": 0, \"to\": \"0x3535353535353535353535353535353535353535\", \"value\": \"1.5 ether\", \"gas\": 21000, \"maxFeePerGas\": \"20 gwei\", \"maxPriorityFeePerGas\": \"1 gwei\"}"
        ) { args in
            let chosen = ChosenSigner(args)
            let (tx, filled) = try filledTransaction(args, signer: chosen)
            var shown: [(String, Value)] = [
                ("type", .string(tx.type.description)), ("unsigned", .bytes(tx.signingPayload)),
                ("signingHash", .bytes(tx.signingHash)),
            ]
            // ERC-8213: the call data's digest, for comparing with another device (docs/signing-review.md).
            let calldataDigest = CallData.digest(tx.data)
            if !tx.data.isEmpty { shown.append(("calldataDigest", .bytes(calldataDigest))) }
            if !filled.isEmpty { shown.append(("filled", .map(ValueMap(filled)))) }
            if let dryRun = try reviewOrRefuse(tx, args) { return .map(ValueMap(shown + [("review", dryRun)])) }
            var request = SigningRequest(
                digest: tx.signingHash, payload: .transaction(tx.signingPayload), kind: .transaction,
                chainID: tx.chainID?.uint64)
            request.expected = try expectedDigest(
                args, "expect-calldata-digest", name: Digest.calldata, actual: calldataDigest)
            let signed = try sign(args, request, with: chosen)
            let stx = tx.signed(with: signed.signature.signature, yParity: signed.signature.recoveryID)
            // The transaction's own v: EIP-155's for a legacy transaction (the 27/28 of `v` otherwise).
            let networkV: [(String, Value)] = tx.type == .legacy ? [("networkV", uintValue(stx.v))] : []
            let sent: [(String, Value)] = [("raw", .bytes(stx.rawBytes)), ("hash", .bytes(stx.hash))]
            return .map(ValueMap(shown + sent + signatureFields(signed, networkV: networkV)))
        },

        Builtin(
            "verify", params: [ParamSpec("digest", .bytes), ParamSpec("signature", .bytes, default: .null)],
            options: [
                OptionSpec(
                    "message", .oneOf([.string, .bytes]),
                    "verify an EIP-191 message instead of a digest (then the one argument is the signature)"),
                OptionSpec(
                    "typed", .oneOf([.string, .map]),
                    "verify EIP-712 typed data (a JSON file or a map) instead of a digest"),
                OptionSpec(
                    "address", .oneOf([.string, .bytes, .domain("address")]), "the address that should have signed"),
                OptionSpec("public-key", .bytes, "the public key that should have signed (33 or 65 bytes)"),
                OptionSpec("allow-high-s", nil, "accept a high-S (malleable, pre-EIP-2) signature"),
            ],
            summary:
                "verify DIGEST SIG | verify SIG --message TEXT | verify SIG --typed FILE, with --address A or --public-key P: {valid, recovered, digest}.",
            example: "verify $sig --message \"hello\" --address 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
        ) { args in
            let (digest, signature) = try digestAndSignature(args)
            let address: EthereumAddress
            switch (args.value("address"), args.value("public-key")) {
            case (let a?, nil): address = try addressArgument(a)
            case (nil, .bytes(let p)?): address = EthereumAddress(publicKey: try PublicKey(bytes: p))
            case (nil, _): throw EthCommandError.needsSigner
            default: throw EthCommandError.bothSigners
            }
            let valid = try signature.verify(digest: digest, address: address, allowHighS: args.flag("allow-high-s"))
            let recovered = (try? signature.recoverAddress(digest: digest))?.checksummed
            return .map(
                ValueMap([
                    ("valid", .bool(valid)), ("address", .string(address.checksummed)),
                    ("recovered", recovered.map(Value.string) ?? .null), ("digest", .bytes(digest)),
                    ("lowS", .bool(signature.isLowS)),
                ]))
        },

        Builtin(
            "recover", params: [ParamSpec("digest", .bytes), ParamSpec("signature", .bytes, default: .null)],
            options: [
                OptionSpec(
                    "message", .oneOf([.string, .bytes]),
                    "recover from an EIP-191 message (then the one argument is the signature)"),
                OptionSpec("typed", .oneOf([.string, .map]), "recover from EIP-712 typed data (a JSON file or a map)"),
            ],
            summary:
                "recover DIGEST SIG | recover SIG --message TEXT | recover SIG --typed FILE: the signer's address (EIP-55).",
            example: "recover $sig --message \"hello\""
        ) { args in
            let (digest, signature) = try digestAndSignature(args)
            return .string(try signature.recoverAddress(digest: digest).checksummed)
        },
    ]
}

extension Builtins {

    // MARK: - Signing with the active signer

    /// Why `sign --schnorr` takes no option that chooses another signer.
    static let schnorrSigner = "--schnorr signs with the logged-in 4.0 card (--path chooses its key)"

    /// Which key a signing command means — `--key` (a stored key's name or a key value), else
    /// the active key — and where under it: `--pinless`, `--path P [--make-current]` on the
    /// commands that have them (`Session.signer(for:)` decides the rest).
    static func signerChoice(_ args: CallArguments) throws -> SignerChoice {
        let key: SignerChoice.Key = try givenKey(args) ?? args.string("key").map { .stored($0) } ?? .active
        // The table's rules have refused --pinless with --path or --make-current, and
        // --make-current without --path.
        if args.flag("pinless") { return SignerChoice(key: key, place: .pinless) }
        guard let path = args.value("path") else { return SignerChoice(key: key) }
        return SignerChoice(key: key, place: .cardPath(try parseCardPath(path), makeCurrent: args.flag("make-current")))
    }

    /// `request` signed by the key the command's options choose (`Session.sign`), the one
    /// `chosen` already resolved when there is one.
    static func sign(
        _ args: CallArguments, _ request: SigningRequest, with chosen: ChosenSigner? = nil
    ) throws -> Signed {
        let r = request
        var chosenRequest = SigningRequest(
            digest: r.digest, payload: r.payload, kind: r.kind, chainID: r.chainID, signer: try signerChoice(args))
        chosenRequest.expected = r.expected
        return try args.session().sign(chosenRequest, with: try chosen?.signer())
    }

    /// The signer a command's options choose, resolved once however often it is asked: `sign tx`
    /// asks for its address (the sender whose nonce the node fills), then has it sign.
    final class ChosenSigner {
        private let args: CallArguments
        private var chosen: (any Signer)?

        init(_ args: CallArguments) { self.args = args }

        func signer() throws -> any Signer {
            if let chosen { return chosen }
            let signer = try args.session().signer(for: signerChoice(args))
            chosen = signer
            return signer
        }

        func address() throws -> EthereumAddress { EthereumAddress(publicKey: try signer().publicKey()) }
    }

    /// `sign tx`'s transaction, checked: the map given, with what it lacks filled from the node
    /// (nonce, fees, gas, chain id for `signer`'s address) when there is one and not `--offline`;
    /// and the fields filled, as shown.
    static func filledTransaction(
        _ args: CallArguments, signer: ChosenSigner
    ) throws
        -> (EthereumTransaction, [(String, Value)])
    {
        let fields = try jsonMap(args.map("tx"), "tx")
        var tx = try EthereumTransaction(fields: fields)
        var filled: [(String, Value)] = []
        let node = args.flag("offline") ? nil : try optionalNode(args)
        if let node {
            filled = try args.session().fill(&tx, given: Set(fields.keys), sender: { try signer.address() }, node: node)
                .map { ($0.field, uintValue($0.value)) }
        }
        try tx.validate()
        // A set-code transaction's tuples are checked before it is signed (a wrong nonce is skipped silently).
        if tx.type == .setCode && !args.flag("dry-run") {
            try args.session().checkAuthorizations(of: tx, sender: try signer.address(), node: node)
        }
        return (tx, filled)
    }

    /// `sign tx`: with `--dry-run` the review (returned); else nil, after refusing a transaction
    /// without a chain id unless `--allow-no-chain-id`.
    static func reviewOrRefuse(_ tx: EthereumTransaction, _ args: CallArguments) throws -> Value? {
        if args.flag("dry-run") {
            let session = try args.session()
            let names = try session.ownKeyNames()
            var review = SigningReview.transaction(
                tx, name: names, fullData: args.flag("full-data"), delegates: try session.delegateList())
            if let path = args.string("descriptor"), let to = tx.to {
                let d = try session.clearSigningDescriptor(path)
                review.addClearSigned(
                    d.call(tx.data, to: to, chainID: tx.chainID, value: tx.value, from: nil, name: names),
                    descriptor: d,
                    what: "call")
            }
            return reviewText(review, args)
        }
        if tx.chainID == nil && !args.flag("allow-no-chain-id") { throw EthCommandError.noChainID }
        return nil
    }

    /// A review as a `--dry-run` shows it, with the signer when one is known (the key given, else
    /// `--key`'s stored key or the active key, found without the card).
    /// `--expect-digest 0x…`: the digest a person computed on another device, 32 bytes, which
    /// `Session.sign` compares before anything is signed (docs/signing-review.md, "Digests by name").
    static func expectedDigest(
        _ args: CallArguments, _ option: String, name: String, actual: [UInt8]
    ) throws -> ExpectedDigest? {
        let given: [UInt8]?
        switch args.value(option) {
        case .bytes(let b)?: given = b
        case .string(let text)?:
            given = try? Hex.decode(text.hasPrefix("0x") || text.hasPrefix("0X") ? String(text.dropFirst(2)) : text)
        default: return nil
        }
        guard let given, given.count == 32 else {
            let got: String =
                switch args.value(option) {
                case .string(let text)?: text
                case .bytes(let b)?: "0x" + Hex.encode(b)
                default: ""
                }
            throw BuiltinError.outOfRange(
                name: "--\(option)", expected: "a 32-byte digest (0x and 64 hex digits)", got: got)
        }
        return ExpectedDigest(name: name, actual: actual, expected: given)
    }

    static func reviewText(_ review: SigningReview, _ args: CallArguments) -> Value {
        var review = review
        if let session = try? args.session(), let choice = try? signerChoice(args) {
            review.addSigner(session.signerSummary(choice))
        }
        return .string(review.rendered())
    }

    /// `--descriptor FILE`: an ERC-7730 descriptor that labels the review (docs/eth-signing.md).
    static let descriptorOption = OptionSpec(
        "descriptor", .string, "with --dry-run: an ERC-7730 clear-signing descriptor (JSON) labels the review")

    /// `sign typed --dry-run`'s review, with the descriptor's labels when `--descriptor` is given.
    static func typedReview(_ typed: TypedData, _ args: CallArguments) throws -> SigningReview {
        let session = try args.session()
        let names = try session.ownKeyNames()
        var review = try SigningReview.typedData(typed, name: names)
        if let path = args.string("descriptor") {
            let d = try session.clearSigningDescriptor(path)
            review.addClearSigned(d.message(typed, name: names), descriptor: d, what: "message")
        }
        return review
    }

    /// What `--key` of a signing command takes: a stored key's name, or a key value (an HD key,
    /// a secret, or a private key written out: 32 bytes, a WIF, an xprv).
    static let givenKeyType = ValueType.oneOf([.string, .bytes, .domain("hdkey"), .secret(nil)])

    /// A key given as a value to `--key` (an HD key with its private key, a secret private key
    /// or xprv), or nil when `--key` names a stored key or is absent.
    static func givenKey(_ args: CallArguments) throws -> SignerChoice.Key? {
        switch args.value("key") {
        case .domain(let d)?:
            guard let hd = d as? HDKeyValue else { return nil }
            guard let key = hd.key.privateKey else { throw KeyCommandError.publicKeyGiven }
            return .given(key, path: hd.path)
        case .secret(let s)? where s.kind == SecretKind.xprv.rawValue:
            guard let key = try ExtendedKey(try secretText(s)).privateKey else { throw KeyCommandError.publicKeyGiven }
            return .given(key, path: nil)
        case .secret(let s)?:
            return .given(try privateKeyArgument(.secret(s)), path: nil)
        case .bytes(let b)?:
            // A private key written out, as `cast wallet sign --private-key 0x…` takes one.
            return .given(try privateKeyArgument(.bytes(b)), path: nil)
        case .string(let text)?
        where SecretShape.of(text) != nil && (try? args.session().existingStore()?.key(named: text)) == nil:
            // Key text (a WIF, an xprv, 0x hex in quotes) that is not a stored key's name.
            if SecretShape.of(text) == .extendedPrivateKey {
                guard let key = try ExtendedKey(text).privateKey else { throw KeyCommandError.publicKeyGiven }
                return .given(key, path: nil)
            }
            return .given(try privateKey(text: text), path: nil)
        default:
            return nil
        }
    }

    /// The one shape of a signature in every signing result (docs/language.md, "Signatures"):
    /// `signature` (r ‖ s ‖ v, 65 bytes), `r`, `s`, `v` (27 or 28), `yParity` (0 or 1),
    /// `networkV` (a legacy transaction's EIP-155 v, when given), `signer`, `publicKey`, `key`,
    /// `path` (when known), `verified`, `checkedAgainst`, and `warning` while the card's keys
    /// differ from the recorded ones.
    static func signatureFields(_ s: Signed, networkV: [(String, Value)] = []) -> [(String, Value)] {
        var fields: [(String, Value)] = [
            ("signature", .bytes(s.signature.bytes)), ("r", .bytes(s.signature.r)), ("s", .bytes(s.signature.s)),
            ("v", .int(Int(s.signature.v))), ("yParity", .int(Int(s.signature.recoveryID))),
        ]
        fields += networkV
        fields += [
            ("signer", .string(s.signer)), ("publicKey", .bytes(s.publicKey.compressed)), ("key", .string(s.keyName)),
        ]
        if let path = s.path { fields.append(("path", .string(path.description))) }
        fields += [("verified", .bool(s.verified)), ("checkedAgainst", .string(s.checkedAgainst))]
        if let warning = s.warning { fields.append(("warning", .string(warning))) }
        return fields
    }

    // MARK: - Arguments

    /// The digest (positional, or from --message / --typed) and the 65-byte signature.
    static func digestAndSignature(_ args: CallArguments) throws -> ([UInt8], EthereumSignature) {
        let first: [UInt8] = if case .bytes(let b)? = args.value("digest") { b } else { [] }
        let second: [UInt8]? = if case .bytes(let b)? = args.value("signature") { b } else { nil }
        let message = args.value("message"), typed = args.value("typed")
        if message != nil && typed != nil { throw EthCommandError.digestSources }
        let digest: [UInt8]
        let sigBytes: [UInt8]
        if message != nil || typed != nil {
            if second != nil { throw EthCommandError.digestSources }
            sigBytes = first
            if case .bytes(let b)? = message {
                digest = PersonalMessage.digest(b)
            } else if case .string(let s)? = message {
                digest = PersonalMessage.digest(text: s)
            } else {
                digest = try typedDataArgument(typed).digest()
            }
        } else {
            guard let second else { throw EthCommandError.needsSignature }
            guard first.count == 32 else { throw EthereumError.digestLength(got: first.count) }
            digest = first
            sigBytes = second
        }
        return (digest, try EthereumSignature(bytes: sigBytes))
    }

    static func addressArgument(_ value: Value) throws -> EthereumAddress {
        switch value {
        case .bytes(let b): try EthereumAddress(bytes: b)
        case .string(let s): try EthereumAddress(s)
        case .domain(let d): try EthereumAddress(d.text)  // an address value from derive or key.show
        default: try EthereumAddress("")
        }
    }

    /// A typed-data document from a JSON file path or a map.
    static func typedDataArgument(_ value: Value?) throws -> TypedData {
        try TypedData(json: typedDocument(value))
    }

    /// The typed data's JSON as given: a file's bytes, or a map as JSON. What is signed, read
    /// once: the digest is computed from it and a co-signer is shown it.
    static func typedDocument(_ value: Value?) throws -> [UInt8] {
        switch value {
        case .string(let path)?:
            guard let data = FileManager.default.contents(atPath: path) else {
                throw EthCommandError.unreadableFile(path: path)
            }
            return Array(data)
        case .map(let m)?:
            return Array(
                try JSONSerialization.data(withJSONObject: try jsonMap(m, "typed data"), options: [.sortedKeys]))
        default:
            throw EthCommandError.unreadableFile(path: "")
        }
    }

    static func typedChainID(_ typed: TypedData) -> UInt64? {
        switch typed.domain["chainId"] {
        case .integer(let s)?: UInt64(s)
        case .string(let s)?: (try? EthereumUnits.parse(s))?.uint64
        default: nil
        }
    }

    /// A console map as a JSON-like `[String: Any]` (bytes become 0x hex text, big integers
    /// decimal text, addresses their text).
    static func jsonMap(_ m: ValueMap, _ what: String) throws -> [String: Any] {
        var out: [String: Any] = [:]
        for (k, v) in m.pairs { out[k] = try jsonAny(v, what + "." + k) }
        return out
    }

    static func jsonAny(_ v: Value, _ path: String) throws -> Any {
        switch v {
        case .null: return NSNull()
        case .bool(let b): return b
        case .int(let n): return n
        case .bigInt(let n): return String(n)
        case .string(let s): return s
        case .bytes(let b): return Hex.encodePrefixed(b)
        case .list(let l): return try l.enumerated().map { try jsonAny($1, "\(path)[\($0)]") }
        case .map(let m): return try jsonMap(m, path)
        case .domain(let d): return d.text
        case .secret(let s): throw EthCommandError.secretValue(path: path, kind: s.kind)
        }
    }

    static func uintValue(_ n: UInt256) -> Value {
        if let small = n.uint64, let i = Int(exactly: small) { return .int(i) }
        return .bigInt(BigInt(n.description) ?? 0)
    }

    static func decodedFields(_ stx: SignedEthereumTransaction) throws -> [(String, Value)] {
        let tx = stx.transaction
        var f: [(String, Value)] = [("type", .string(tx.type.description))]
        f.append(("chainId", tx.chainID.map(uintValue) ?? .null))
        f.append(("nonce", uintValue(tx.nonce)))
        if let p = tx.gasPrice { f.append(("gasPrice", uintValue(p))) }
        if let p = tx.maxPriorityFeePerGas { f.append(("maxPriorityFeePerGas", uintValue(p))) }
        if let p = tx.maxFeePerGas { f.append(("maxFeePerGas", uintValue(p))) }
        f.append(("gas", uintValue(tx.gasLimit)))
        f.append(("to", tx.to.map { .string($0.checksummed) } ?? .null))
        f.append(("value", uintValue(tx.value)))
        f.append(("data", .bytes(tx.data)))
        f += newTypeFields(tx)
        if tx.type != .legacy {
            f.append(
                (
                    "accessList",
                    .list(
                        tx.accessList.map { e in
                            .map(
                                ValueMap([
                                    ("address", .string(e.address.checksummed)),
                                    ("storageKeys", .list(e.storageKeys.map(Value.bytes))),
                                ]))
                        })
                ))
        }
        f += [("r", .bytes(stx.signature.r)), ("s", .bytes(stx.signature.s))]
        f.append(tx.type == .legacy ? ("v", uintValue(stx.v)) : ("yParity", .int(Int(stx.yParity))))
        f += [
            ("sender", .string(try stx.sender().checksummed)), ("hash", .bytes(stx.hash)),
            ("signingHash", .bytes(tx.signingHash)), ("lowS", .bool(stx.isLowS)),
        ]
        return f
    }
}

extension Builtins {
    /// `sign DIGEST --schnorr [--tweak taproot|BYTES] [--path P]` on a 4.0 card.
    static func schnorrValue(_ args: CallArguments, digest: [UInt8]) throws -> Value {
        // A Schnorr signature comes from the logged-in 4.0 card: an option that would choose another
        // signer is refused by the table's rules (`schnorrSigner`), not silently ignored.
        let session = try args.session()
        let tweak: SchnorrTweak
        switch args.value("tweak") {
        case nil: tweak = .none
        case .string("taproot")?: tweak = .taproot
        case .bytes(let b)? where b.count == 32: tweak = .bytes(b)
        case .bytes(let b)?:
            throw BuiltinError.outOfRange(name: "--tweak", expected: "taproot or 32 bytes", got: "\(b.count) bytes")
        case .string(let text)?:
            throw BuiltinError.outOfRange(name: "--tweak", expected: "taproot or 32 bytes", got: text)
        case let other?:
            throw BuiltinError.outOfRange(name: "--tweak", expected: "taproot or 32 bytes", got: other.typeName)
        }
        let path = try args.value("path").map { try session.requireCard().absolutePath(try parseCardPath($0)) }
        let s = try session.signSchnorrOnCard(digest: digest, tweak: tweak, path: path)
        return .map(
            ValueMap([
                ("digest", .bytes(digest)), ("algorithm", .string("schnorr")), ("signature", .bytes(s.signature)),
                ("path", .string(s.path.description)), ("publicKey", .bytes(s.publicKey.compressed)),
                ("outputKey", .bytes(s.outputKey.bytes)), ("tweak", .bytes(s.tweak)), ("verified", .bool(true)),
            ]))
    }
}
