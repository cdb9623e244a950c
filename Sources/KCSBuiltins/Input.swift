import Foundation
import KCSErrors
import KCSRuntime
import WalletCrypto

// Input from outside the program: `env NAME` (optionally as a secret) and `file.read PATH`.

extension Builtins {
    static let input: [Builtin] = [
        Builtin(
            "env", params: [ParamSpec("name", .string)],
            options: [
                OptionSpec(
                    "secret", .string, "return a secret of this kind (mnemonic, PIN, password, …) instead of a string")
            ],
            summary:
                "An environment variable's value, nil when it is not set (with --secret, an unset variable is an error that names it).",
            example: "mnemonic.check (env \"KCS_MNEMONIC\" --secret mnemonic)"
        ) { args in
            guard case .string(let name)? = args["name"] else { return .null }
            guard let value = ProcessEnvironment.current[name] else {
                if args.options["secret"] != nil { throw BuiltinError.unsetVariable(name: name) }
                return .null
            }
            if case .string(let kind)? = args.options["secret"] { return .secret(secret(kind: kind, text: value)) }
            return .string(value)
        },

        Builtin(
            "file.read", params: [ParamSpec("path", .string)],
            options: [OptionSpec("secret", .string, "return a secret of this kind instead of a string")],
            summary: "A text file's contents without the final line break.",
            example: "let m = file.read \"phrase.txt\" --secret mnemonic"
        ) { args in
            guard case .string(let path)? = args["path"] else { return .null }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw BuiltinError.outOfRange(name: "path", expected: "a readable file", got: path)
            }
            var text = String(decoding: data, as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            if case .string(let kind)? = args.options["secret"] { return .secret(secret(kind: kind, text: text)) }
            return .string(text)
        },
    ]
}

/// Ways a batch script gets a secret without a prompt: from the environment or from a file
/// (the error for a missing secret argument points here). With `--secret KIND` the value is a
/// secret from the start and never a printable string.
