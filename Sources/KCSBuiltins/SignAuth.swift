import KCSErrors
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession

// `sign auth`: an EIP-7702 authorization signed by any signer (docs/eth-signing.md). The session
// fills, checks and signs (WalletSession/Ethereum/Authorization.swift); this converts values.

extension Builtins {
    static let signAuth: [Builtin] = [
        Builtin(
            "sign.auth", traits: [.mayOpenVault], params: [],
            options: [
                OptionSpec(
                    "delegate", .oneOf([.string, .bytes, .domain("address")]),
                    "the contract the account's code will point at (0x00…00 revokes the delegation)"),
                OptionSpec(
                    "chain", .int, "the chain id (else the node's)", in: 0...Int.max,
                    rules: [.notWith(["any-chain"], because: "--any-chain is chain id 0")]),
                OptionSpec("any-chain", nil, "chain id 0: valid on every EVM chain (refused without this flag)"),
                OptionSpec(
                    "nonce", .int, "the authority's nonce when the tuple is processed (else the node's)",
                    in: 0...Int.max),
                OptionSpec(
                    "self-sponsored", nil,
                    "the authority also sends the set-code transaction: the node's nonce + 1",
                    rules: [.notWith(["nonce"], because: "--nonce is the tuple's nonce as given")]),
                OptionSpec(
                    "allow-unknown-delegate", nil,
                    "in batch, sign for a delegate not on the allowlist (a terminal asks twice)"),
                OptionSpec(
                    "key", givenKeyType,
                    "sign with this stored key (a name) or this key value (an HD key, a secret private key) instead of the active one"
                ),
                OptionSpec("path", pathType, "card: derive the key at this path and sign with it (one SIGN)"),
                rpcOption,
                OptionSpec("offline", nil, "read nothing from the node, even when one is configured"),
                OptionSpec("dry-run", nil, "show the preimage, the digest and the review without signing"),
            ],
            summary:
                "EIP-7702: signs an authorization for --delegate ADDR: {authorization {chainId, address, nonce, yParity, r, s}, tuple, json, authority, digest, …} for a type-4 transaction's authorizationList.",
            example: "sign auth --delegate 0x4Cd241E8d1510e30b2076397afc7508Ae59C66c9 --chain 1 --nonce 7"
        ) { args in
            let session = try args.session()
            let chosen = ChosenSigner(args)
            let node = args.flag("offline") ? nil : try optionalNode(args)
            let prepared = try session.prepareAuthorization(
                try authorizationRequest(args), authority: { try chosen.address() }, node: node)
            let auth = prepared.authorization
            let shown: [(String, Value)] = [
                ("chainId", uintValue(auth.chainID)), ("address", .string(auth.delegate.checksummed)),
                ("nonce", uintValue(UInt256(auth.nonce))), ("preimage", .bytes(auth.preimage)),
                ("digest", .bytes(auth.digest)),
            ]
            if args.flag("dry-run") { return .map(ValueMap(shown + [("review", reviewText(prepared.review, args))])) }
            let (tuple, signed) = try session.signAuthorization(
                prepared, signer: try chosen.signer(), choice: try signerChoice(args),
                allowUnknownDelegate: args.flag("allow-unknown-delegate"))
            return .map(
                ValueMap(shown + authorizationFields(tuple, authority: signed.signer) + signatureFields(signed)))
        }
    ]

    /// `sign auth`'s request: the delegate (required), the chain and the nonce as given.
    static func authorizationRequest(_ args: CallArguments) throws -> AuthorizationRequest {
        guard let delegate = args.value("delegate") else {
            throw BuiltinError.optionNeeded(
                option: "--delegate", reason: "an authorization names the contract it delegates to")
        }
        return AuthorizationRequest(
            delegate: try addressArgument(delegate), chainID: args.int("chain").map { UInt256(UInt64($0)) },
            anyChain: args.flag("any-chain"), nonce: args.int("nonce").map { UInt64($0) },
            selfSponsored: args.flag("self-sponsored"))
    }

    /// A signed tuple as `sign auth` answers it: the map a transaction's `authorizationList`
    /// takes, the RLP-ordered list, and its JSON-RPC text.
    static func authorizationFields(_ t: SignedAuthorization, authority: String) -> [(String, Value)] {
        let map = authorizationMap(t)
        let json = "{" + t.jsonFields.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",") + "}"
        return [
            ("authorization", .map(ValueMap(map))), ("tuple", .list(map.map(\.1))), ("json", .string(json)),
            ("authority", .string(authority)),
        ]
    }

    /// `{chainId, address, nonce, yParity, r, s}`: one entry of `authorizationList`.
    static func authorizationMap(_ t: SignedAuthorization) -> [(String, Value)] {
        let a = t.authorization
        return [
            ("chainId", uintValue(a.chainID)), ("address", .string(a.delegate.checksummed)),
            ("nonce", uintValue(UInt256(a.nonce))), ("yParity", .int(Int(t.yParity))),
            ("r", .bytes(t.signature.r)), ("s", .bytes(t.signature.s)),
        ]
    }
}
