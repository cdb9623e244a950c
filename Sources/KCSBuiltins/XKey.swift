import CardProtocol
import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `xkey` namespace: extended keys as text (xpub/xprv and their SLIP-132 cousins) and
// explained field by field (docs/wallet-core.md).

extension Builtins {
    static let xkey: [Builtin] = [
        Builtin(
            "xkey.encode", qr: .value, params: [ParamSpec("key", .domain("hdkey"))],
            options: [
                OptionSpec(
                    "version", .string, "xpub, ypub, zpub, tpub, … (default: the key's own family)",
                    choices: ExtendedKeyVersion.allCases.map(\.rawValue)),
                OptionSpec("private", nil, "serialise the private key (xprv, …), returned as a secret"),
            ],
            summary: "The Base58Check serialisation of an HD key: xpub text, or with --private a secret xprv.",
            example: "xkey.encode $key --version zpub"
        ) { args in
            guard let key = args.domain("key", as: HDKeyValue.self)?.key else { return .null }
            let command = "xkey.encode"
            var version = key.version.publicVersion
            if let v = args.string("version").flatMap(ExtendedKeyVersion.init(rawValue:)) {  // the table declares the choices
                guard !v.isPrivate || args.flag("private") else {
                    throw BuiltinError.privateNeedsFlag(version: v.rawValue)
                }
                version = v
            }
            guard args.flag("private") else { return .string(try key.serialized(version)) }
            let privateVersion = ExtendedKeyVersion(rawValue: String(version.rawValue.dropLast(3)) + "prv") ?? .xprv
            var text = Array(try key.serialized(privateVersion).utf8)
            return SecretKind.xprv.value(Secret(consuming: &text))
        },

        Builtin(
            "xkey.decode",
            params: [ParamSpec("text", .oneOf([.string, .secret(SecretKind.xprv.rawValue)]), secret: true)],
            summary: "The HD key of an xpub/xprv (or SLIP-132 ypub, zpub, …) serialisation.",
            example:
                "let acct = xkey.decode \"xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt\""
        ) { args in
            guard let text = try extendedKeyText(args["text"]) else { return .null }
            return .domain(HDKeyValue(try ExtendedKey(text), path: nil))
        },

        Builtin(
            "xkey.explain",
            params: [ParamSpec("text", .oneOf([.string, .secret(SecretKind.xprv.rawValue)]), secret: true)],
            options: [OptionSpec("reveal", nil, "show the private key of an xprv instead of masking it")],
            summary:
                "An xpub/xprv (or ypub, zpub, tpub, …) field by field: version bytes and their meaning, depth, parent fingerprint, child number, chain code, key, checksum.",
            example:
                "xkey.explain \"xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8\""
        ) { args in
            guard let text = try extendedKeyText(args["text"]) else {
                throw ArgumentError.missing(position: 1, name: "text", type: .string)
            }
            let fields = try ExtendedKeyFields(text)
            return .domain(xkeyExplanation(fields, reveal: args.flag("reveal")))
        },
    ]
}
