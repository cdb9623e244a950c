import KCSRuntime
import Testing
import WalletCore

@testable import KCSBuiltins

/// No text or JSON rendering of anything the wallet builtins return may contain a mnemonic
/// word, a private key, a seed or an xprv (docs/habits.md §4). Every value a wallet call returns
/// for one mnemonic is rendered in every way the language can render it, and searched.
@Suite struct SecretLeakTests {
    /// The renderings of `v`: text, JSON, `str`, inside a list and a map, its fields, and
    /// the Swift descriptions a debugging session would print.
    func renderings(_ v: Value) throws -> [String] {
        var out = [
            v.text, v.json, Value.list([v]).text, Value.map(ValueMap([("k", v)])).text,
            String(describing: v), String(reflecting: v),
        ]
        out.append(try Call.run("str", [v]).text)
        if case .domain(let d) = v {
            out.append(d.text)
            for f in d.fields { out += try renderings(f.value) }
        }
        return out
    }

    @Test(arguments: [
        Vectors.abandon, Vectors.hardhat, "legal winner thank year wave sausage worth useful legal winner thank yellow",
    ])
    func walletValues_neverRenderSecrets(phrase: String) throws {
        let mnemonic = try Mnemonic(phrase: phrase)
        let words = Set(phrase.split(separator: " ").map(String.init))
        let seed = mnemonic.seed()
        let root = try ExtendedKey.master(seed: seed)
        let leaf = try root.derive("m/44'/60'/0'/0/0")
        let forbidden: [String] =
            Array(words) + [
                seed.withUnsafeBytes { Hex.encode($0) },
                try root.serialized(.xprv), try leaf.serialized(.xprv),
                root.privateKey!.secret.withUnsafeBytes { Hex.encode($0) },
                leaf.privateKey!.secret.withUnsafeBytes { Hex.encode($0) },
            ]

        let m = Value.mnemonic(mnemonic)
        let rootValue = try Call.run("hd.master", [m])
        let leafValue = try Call.run("derive", [.string("m/44'/60'/0'/0/0")], [("from", rootValue)])
        let values: [Value] = [
            m,
            try Call.run("mnemonic.check", [m]),
            try Call.run("mnemonic.check", [.string(phrase)]),
            try Call.run("mnemonic.seed", [m]),
            rootValue, leafValue,
            try Call.run("address", [leafValue]),
            try Call.run("address", [leafValue], [("coin", .string("BTC")), ("kind", .string("p2tr"))]),
            try Call.run("xkey.encode", [rootValue]),
            try Call.run("xkey.encode", [leafValue], [("private", nil)]),
            try Call.run("xkey.decode", [Call.run("xkey.encode", [rootValue], [("private", nil)])]),
            .list([rootValue, leafValue]),
        ]
        for value in values {
            for text in try renderings(value) {
                let lower = text.lowercased()
                for secret in forbidden {
                    // Words are matched as words: "test" must not appear as a word, but may be part of one.
                    let leaked =
                        words.contains(secret)
                        ? lower.split(whereSeparator: { !$0.isLetter }).contains { $0 == Substring(secret) }
                        : lower.contains(secret.lowercased())
                    #expect(!leaked, "\(value.typeName) rendering leaks a secret")
                }
            }
        }
    }

    @Test func secretPayload_comparesInConstantTimeAndRendersRedacted() {
        let a = Secret(utf8: "one"), b = Secret(utf8: "one"), c = Secret(utf8: "two")
        #expect(a.isEqual(to: b))
        #expect(!a.isEqual(to: c))
        #expect(a.byteCount == 3)
        let v = SecretKind.passphrase.value(a)
        #expect(v.text == "<secret passphrase>")
        #expect(v == SecretKind.passphrase.value(b))
        #expect(v != SecretKind.mnemonic.value(b))
    }
}
