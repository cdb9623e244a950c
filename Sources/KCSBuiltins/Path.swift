import CardProtocol
import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `path` namespace: derivation paths read, explained level by level, and found from an
// address (docs/wallet-core.md, docs/card.md for card paths).

extension Builtins {
    static let path: [Builtin] = [
        Builtin(
            "path.parse", params: [ParamSpec("text", pathType)],
            summary: "A derivation path from text: m/44'/60'/0'/0/0 (h or H also mark hardened), or relative 0/5.",
            example: "let p = path.parse \"m/44h/60h/0h/0/0\""
        ) { args in
            .domain(PathValue(path: try pathArgument(args["text"])))
        },

        Builtin(
            "path.explain", params: [ParamSpec("path", pathType)],
            summary:
                "Each level of a path: raw index, hardened offset, meaning (purpose, SLIP-44 coin, account, change, index) and the presets it matches.",
            example: "path.explain \"m/44'/60'/0'/0/0\""
        ) { args in
            .domain(pathExplanation(try pathArgument(args["path"])))
        },

        Builtin(
            "path.find", params: [ParamSpec("address", .oneOf([.string, .bytes]))],
            options: [
                OptionSpec("mnemonic", mnemonicType, "the phrase whose paths are searched", secret: true),
                OptionSpec("max-index", .int, "the largest index and account tried (default 20, at most 100)"),
                OptionSpec("passphrase", passphraseType, "BIP-39 passphrase (the \"25th word\")", secret: true),
                OptionSpec(
                    "card", nil, "search the connected card's key instead (one xpub EXPORT per hardened node)",
                    rules: [
                        .notWith(
                            ["mnemonic", "passphrase"],
                            because: "it searches the card's key; drop --mnemonic and --passphrase")
                    ]),
            ],
            summary:
                "Names the path that made an address: searches the presets and accounts × indexes 0…N offline (a mnemonic, or the card).",
            example: "path.find 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 --mnemonic $m"
        ) { args in
            let onCard = args.flag("card")
            guard onCard || args.value("mnemonic") != nil else { throw TeachingError.needsMnemonic }
            let limit = Int(PathSearch.maxIndexLimit)
            let maxIndex = try args.integer("max-index").map { try smallInt($0, "--max-index", in: 0...limit) } ?? 20
            let target = try pathSearchTarget(args["address"])
            let outcome: PathSearch.Outcome
            if onCard {
                outcome = try args.session().requireLoggedIn().findPath(target, maxIndex: UInt32(maxIndex))
            } else {
                let m = try parseMnemonic(args.value("mnemonic"), language: nil)
                let master = try ExtendedKey.master(seed: seed(m, args))
                outcome = try PathSearch.search(target, master: master, maxIndex: UInt32(maxIndex))
            }
            guard let path = outcome.path, let key = outcome.key else {
                throw TeachingError.addressNotFound(
                    address: target.description, searched: outcome.searched,
                    presets: outcome.presets.map(\.name), grid: outcome.grid,
                    maxIndex: maxIndex)
            }
            return try pathMatchValue(target, path: path, key: key, searched: outcome.searched)
        },
    ]
}
