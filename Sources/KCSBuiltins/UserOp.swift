import KCSErrors
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession

// `sign userop`: an ERC-4337 user operation's owner signature (docs/eth-signing.md, "ERC-4337").
// The EntryPoint's address decides the hash; one kcs does not know is refused, not guessed.

extension Builtins {
    static let userOp: [Builtin] = [
        Builtin(
            "sign.userop", traits: [.mayOpenVault], params: [ParamSpec("op", .map)],
            options: [
                OptionSpec(
                    "entrypoint", .oneOf([.string, .bytes, .domain("address")]),
                    "the EntryPoint: v0.7 0x0000000071727De22E5E9d8BAf0edAc6f37da032, v0.8 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108, v0.9 0x433709009B8330FDa32311DF1C2AFA402eD8D009"
                ),
                OptionSpec("chain", .int, "the chain id", in: 1...Int.max),
                OptionSpec(
                    "key", givenKeyType,
                    "sign with this stored key (a name) or this key value (an HD key, a secret private key) instead of the active one"
                ),
                OptionSpec("path", pathType, "card: derive the key at this path and sign with it (one SIGN)"),
                OptionSpec("dry-run", nil, "show the packed fields, the userOpHash and the review without signing"),
                OptionSpec(
                    "expect-digest", .oneOf([.string, .bytes]),
                    "sign only if the userOpHash is this one (computed on another device)"),
            ],
            summary:
                "An ERC-4337 user operation (unpacked: sender, nonce, factory, factoryData, callData, gas limits and fees, paymaster…) signed for its owner: {userOpHash, entryPointVersion, initCode, accountGasLimits, gasFees, paymasterAndData, signature (v 27/28), …}.",
            example:
                "sign userop {\"sender\": \"0x1234567890123456789012345678901234567890\", \"nonce\": 0, \"callData\": \"0x\", \"callGasLimit\": 6942069, \"verificationGasLimit\": 6942069, \"preVerificationGas\": 6942069, \"maxFeePerGas\": 69420, \"maxPriorityFeePerGas\": 69} --entrypoint 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108 --chain 1 --dry-run"
        ) { args in
            let (op, entryPoint, chain, version) = try userOperation(args)
            let hash = op.hash(entryPoint: entryPoint, chainID: chain, version: version)
            let shown: [(String, Value)] = [
                ("userOpHash", .bytes(hash)), ("entryPointVersion", .string(version.rawValue)),
                ("initCode", .bytes(op.initCode)), ("accountGasLimits", .bytes(op.accountGasLimits)),
                ("gasFees", .bytes(op.gasFees)), ("paymasterAndData", .bytes(op.paymasterAndData)),
            ]
            if args.flag("dry-run") {
                let review = SigningReview.userOperation(
                    op, entryPoint: entryPoint, chainID: chain, version: version, name: try args.session().ownKeyNames()
                )
                return .map(ValueMap(shown + [("review", reviewText(review, args))]))
            }
            var request =
                version.isTypedData
                ? SigningRequest(
                    digest: hash,
                    payload: .typed(op.typedDataJSON(entryPoint: entryPoint, chainID: chain, version: version)),
                    kind: .typed, chainID: chain.uint64)
                : SigningRequest(digest: PersonalMessage.digest(hash), payload: .message(hash), kind: .message)
            request.expected = try expectedDigest(args, "expect-digest", name: "userOpHash", actual: hash)
            return .map(ValueMap(shown + signatureFields(try sign(args, request))))
        }
    ]

    /// `sign userop`'s operation, EntryPoint (a known one), chain and version.
    static func userOperation(
        _ args: CallArguments
    ) throws -> (UserOperation, EthereumAddress, UInt256, EntryPointVersion) {
        guard let given = args.value("entrypoint") else {
            throw BuiltinError.optionNeeded(option: "--entrypoint", reason: "the EntryPoint's version decides the hash")
        }
        let entryPoint = try addressArgument(given)
        guard let version = EntryPointVersion.at(entryPoint) else {
            throw BuiltinError.outOfRange(
                name: "--entrypoint",
                expected: "an EntryPoint kcs knows (v0.7, v0.8, v0.9: see help sign.userop)",
                got: entryPoint.checksummed)
        }
        guard let chain = args.int("chain") else {
            throw BuiltinError.optionNeeded(option: "--chain", reason: "the userOpHash commits to the chain")
        }
        let op = try UserOperation(fields: try jsonMap(args.map("op"), "op"))
        return (op, entryPoint, UInt256(UInt64(chain)), version)
    }
}
