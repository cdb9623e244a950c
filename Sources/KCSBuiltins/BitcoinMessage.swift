import Foundation
import KCSErrors
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession

// The `bitcoin` namespace (docs/bitcoin.md, "Messages"): a message signed for a Bitcoin address —
// BIP-322 simple for P2WPKH and P2TR, the legacy form for P2PKH — and such a signature checked.

extension Builtins {
    static let bitcoinMessage: [Builtin] = [
        Builtin(
            "bitcoin.sign-message", traits: [.mayOpenVault], params: [ParamSpec("message", .oneOf([.string, .bytes]))],
            options: [
                OptionSpec(
                    "path", pathType,
                    "the key's path (its purpose chooses the address: 44' legacy, 84' P2WPKH, 86' P2TR)"),
                OptionSpec("type", .string, "the address type instead: p2pkh, p2wpkh or p2tr"),
                chainOption, psbtKeyOption,
                OptionSpec("yes", nil, "sign without asking at a terminal"),
            ],
            summary:
                "Signs a message for a Bitcoin address: BIP-322 simple (P2WPKH, P2TR) or legacy signmessage (P2PKH): {address, signature (base64), form, path}.",
            example:
                "bitcoin.sign-message \"Hello World\" --path \"m/84'/0'/0'/0/0\" --key (hd.master \"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\")"
        ) { args in
            let message = args.textOrBytes("message")
            let kind: BitcoinAddressKind? = try args.string("type").map { t in
                guard let k = BitcoinAddressKind(rawValue: t), k != .p2shP2wpkh else {
                    throw BuiltinError.badChoice(option: "type", expected: ["p2pkh", "p2wpkh", "p2tr"], got: t)
                }
                return k
            }
            let signed = try args.session().signBitcoinMessage(
                message, keys: try bitcoinKeyChoice(args) ?? .active, path: try pathField(args.value("path"), "--path"),
                kind: kind, chain: try Session.bitcoinChain(args.string("chain"), for: nil), yes: args.flag("yes"))
            return .map(
                ValueMap([
                    ("address", .string(signed.address)), ("signature", .string(signed.signature)),
                    ("form", .string(signed.form)), ("path", signed.path.map { .string($0.description) } ?? .null),
                ]))
        },

        Builtin(
            "bitcoin.verify-message",
            params: [
                ParamSpec("address", .string), ParamSpec("message", .oneOf([.string, .bytes])),
                ParamSpec("signature", .string),
            ],
            options: [chainOption],
            summary:
                "True when SIGNATURE signs MESSAGE for ADDRESS: BIP-322 simple (P2WPKH, P2TR; `smp` prefix accepted) or legacy (P2PKH).",
            example:
                "bitcoin.verify-message \"bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l\" \"Hello World\" \"AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=\""
        ) { args in
            let address = args.string("address") ?? ""
            let message = args.textOrBytes("message")
            let network =
                try args.string("chain").map { try Session.bitcoinChain($0, for: nil).network }
                ?? addressNetwork(address)
            return .bool(
                try BitcoinMessage.verify(
                    address: address, message: message, signature: args.string("signature") ?? "", network: network))
        },
    ]

    /// The network an address belongs to, by its prefix (mainnet, test chains, regtest).
    static func addressNetwork(_ address: String) -> BitcoinNetwork {
        [BitcoinNetwork.bitcoin, .regtest, .testnet].first { (try? $0.script(of: address)) != nil } ?? .bitcoin
    }
}
