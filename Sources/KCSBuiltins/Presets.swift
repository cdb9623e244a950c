import CardProtocol
import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `presets` namespace: the wallets' path presets side by side (docs/wallet-core.md).

extension Builtins {
    static let presets: [Builtin] = [
        Builtin(
            "presets.compare", params: [ParamSpec("mnemonic", mnemonicType, secret: true)],
            options: [
                OptionSpec("count", .int, "indexes per preset, from 0 (default 5)", in: 1...100),
                OptionSpec("passphrase", passphraseType, "BIP-39 passphrase (the \"25th word\")", secret: true),
            ],
            summary:
                "The addresses of one mnemonic under MetaMask, Ledger Live, Ledger legacy and BIP-44/49/84/86, index by index.",
            example:
                "presets.compare \"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\" --count 3"
        ) { args in
            let m = try parseMnemonic(args["mnemonic"], language: nil)
            let count = args.int("count") ?? 5
            // Cached by path: the presets share their first levels, so each node is derived once.
            var keys = PathSearch.NodeCache(master: try ExtendedKey.master(seed: seed(m, args)))
            let presets = PathPreset.all.filter { $0.addressKind != .none }
            var rows: [Value] = []
            for i in 0..<count {
                for preset in presets {
                    let path = try preset.path(UInt32(i))
                    let key = try keys.key(path)
                    rows.append(
                        .map(
                            ValueMap([
                                ("index", .int(i)), ("preset", .domain(PresetValue(preset: preset))),
                                ("path", .domain(PathValue(path: path))),
                                ("address", .domain(try pathAddress(key.publicKey, path: path, coin: nil))),
                            ])))
                }
            }
            return .list(rows)
        }
    ]
}
