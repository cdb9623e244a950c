import KCSErrors
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession

// The `descriptor` namespace (docs/bitcoin.md, "Descriptors"): the wallet's accounts as output
// descriptors for a coordinator, and the addresses of any descriptor, its checksum checked.

extension Builtins {
    static let descriptor: [Builtin] = [
        Builtin(
            "descriptor.export", traits: [.mayOpenVault],
            options: [
                OptionSpec(
                    "account", .int, "the account number (default 0)", in: 0...Int(ChildIndex.hardenedOffset - 1)),
                chainOption, psbtKeyOption,
            ],
            summary:
                "The account's descriptors with key origins and checksums — pkh (BIP-44), sh(wpkh) (49), wpkh (84), tr (86, when the signer signs Taproot): {receive, change, multipath, fingerprint}.",
            example:
                "descriptor.export --account 0 --chain test --key (hd.master \"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\")"
        ) { args in
            let chain = try Session.bitcoinChain(args.string("chain"), for: nil)
            let d = try args.session().accountDescriptors(
                keys: try bitcoinKeyChoice(args) ?? .active, account: UInt32(args.int("account") ?? 0), chain: chain)
            let texts = { (list: [Descriptor]) in Value.list(try list.map { .string(try $0.text(version: d.version)) })
            }
            return .map(
                ValueMap([
                    ("receive", try texts(d.receive)), ("change", try texts(d.change)),
                    ("multipath", try texts(d.multipath)),
                ]))
        },

        Builtin(
            "descriptor.addresses", params: [ParamSpec("descriptor", .string)],
            options: [
                OptionSpec(
                    "range", .oneOf([.string, .int]), "indexes: A..B (inclusive), or N for 0..N (default 0..19)"),
                OptionSpec("change", nil, "a multipath descriptor's second path (…/<0;1>/* → …/1/*)"),
                chainOption,
                OptionSpec(
                    "key", givenKeyType,
                    "check the keys whose origin is this wallet's against it (a stored key's name or a key value)"),
            ],
            summary:
                "The addresses of a descriptor (checksum checked; keys with this wallet's fingerprint checked against it when --key is given): [{index, address, script}].",
            example:
                "descriptor.addresses \"wpkh([73c5da0a/84h/1h/0h]tpubDC8msFGeGuwnKG9Upg7DM2b4DaRqg3CUZa5g8v2SRQ6K4NSkxUgd7HsL2XVWbVm39yBA4LAxysQAm397zwQSQoQgewGiYZqrA9DsP4zbQ1M/0/*)#evh9fu0w\" --range 0..2 --chain test"
        ) { args in
            let d = try Descriptor(args.string("descriptor") ?? "")
            let session = try args.session()
            if args.value("key") != nil, let choice = try bitcoinKeyChoice(args) {
                _ = try session.checkDescriptor(d, keys: choice)
            }
            let chain = try Session.bitcoinChain(args.string("chain") ?? descriptorChain(d), for: nil)
            let range = try indexRange(args.value("range"))
            let alternative = args.flag("change") ? 1 : 0
            guard alternative < d.pathCount else {
                throw BuiltinError.optionNotApplicable(
                    option: "change", reason: "the descriptor has one path, not <0;1>")
            }
            return .list(
                try range.map { i in
                    let script = try d.script(index: i, alternative: alternative)
                    return .map(
                        ValueMap([
                            ("index", .int(Int(i))),
                            ("address", chain.network.address(of: script).map(Value.string) ?? .null),
                            ("script", .bytes(script)),
                        ]))
                })
        },
    ]

    /// A descriptor's chain by its extended keys: tpub (and the other test versions) are test.
    static func descriptorChain(_ d: Descriptor) -> String? {
        guard let e = d.keys.compactMap(\.extended).first else { return nil }
        return [.tpub, .tprv, .upub, .uprv, .vpub, .vprv].contains(e.version) ? "test" : "main"
    }

    /// `--range`: `A..B` inclusive, or N for 0..N; at most 10,000 indexes.
    static func indexRange(_ v: Value?) throws -> [UInt32] {
        let bounds: (Int, Int)?
        switch v {
        case nil: bounds = (0, 19)
        case .int(let n)?: bounds = (0, n)
        case .string(let s)?:
            let parts = s.components(separatedBy: "..")
            bounds = parts.count == 2 ? Int(parts[0]).flatMap { a in Int(parts[1]).map { (a, $0) } } : nil
        default: bounds = nil
        }
        guard let (a, b) = bounds, a >= 0, b >= a, b < Int(ChildIndex.hardenedOffset), b - a < 10_000 else {
            throw BuiltinError.outOfRange(
                name: "--range", expected: "A..B with 0 ≤ A ≤ B < 2^31, at most 10000 indexes",
                got: "\(v.map { "\($0)" } ?? "")")
        }
        return (a...b).map(UInt32.init)
    }
}
