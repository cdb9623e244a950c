// The card trace as a user runs it (docs/card-explained.md), through the built kcs:
// - every console operation on a card, 3.1 and 4.0 — the card examples and a walk of every card
//   command of the tables — is traced with `--trace explain --json`, and every exchange decodes
//   with nothing unknown; the instructions seen cover each generation's command table;
// - a card whose PIN, PUK, pairing password and keys are known runs every card command at
//   `explain` and at `channel`, and none of those secrets is anywhere in standard output, standard
//   error, the store (history included) or a saved trace.
import Foundation
import KCSTestSupport
import Testing

private let words = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

/// Every card command of the tables on one card, as a user types them.
private func walk(_ v4: Bool, save: String) -> String {
    let setup =
        v4
        ? "card.init --pin \"123456\" --puk \"987654321098\" --duress \"654321\""
        : "card.init --pin \"123456\" --puk \"987654321098\" --pairing \"walk pairing\"\ncard.pair --password \"walk pairing\""
    let v4Only =
        v4
        ? """
        card.bip85 mnemonic --words 12 --index 0
        card.ecdh 0x02b0d0b881c3d677d5e87e7bc4669a9ad3d02b886e9fe98d1b45b4b835c52bf6b9 "m/44'/1237'/0'/0/0"
        card.challenge 16
        card.load mnemonic "\(words)" --lee --force
        card.lee "m/1/2/3"
        """
        : """
        card.pinless "m/44'/60'/0'/0/0"
        sign 0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8 --pinless
        card.unpair --others --yes
        """
    return """
        let c = card.connect --sim walk --profile \(v4 ? "4.0" : "3.1.0")
        \(setup)
        card.login "123456"
        card.status
        card.load mnemonic "\(words)"
        use card
        card.derive --coin ETH
        card.export "m/44'/60'/0'/0/0"
        card.export "m/44'/60'/0'" --xpub
        card.export "m/43'/60'/1581'/0'/0" --private
        sign message "walk"
        card.ndef write --uri "https://keycard.tech"
        card.ndef
        \(v4Only)
        card.mnemonic --words 12
        card.change pin "246802"
        card.change puk "123412341234"
        try { card.verify "000000" } catch e { print e.kind }
        try { card.verify "000000" } catch e { print e.kind }
        try { card.verify "000000" --force } catch e { print e.kind }
        card.unblock "123412341234" "135791"
        card.generate --name walked --force
        card.remove-key --force
        card.logout
        card.login "135791"
        card.trace save "\(save)"
        card.reset --confirm (card.info().shortUID)
        """
}

/// The JSON records a run printed on standard error.
private func records(_ err: String) throws -> [[String: Any]] {
    try err.split(separator: "\n").filter { $0.hasPrefix("{\"answer") || $0.hasPrefix("{\"card") }.map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
}

@Suite("Card trace through kcs")
struct CardTraceConsoleTests {
    @Test(arguments: [false, true])
    func everyCardOperation_decodesWithNothingUnknown(v4: Bool) throws {
        var home = try BatchHome()
        defer { home.remove() }
        home.environment["KCS_VAULT_PASSPHRASE"] = "walk passphrase"
        let saved = home.folder.appendingPathComponent("walk.trace").path
        var all: [[String: Any]] = []
        let r = try home.run(arguments: [
            "--trace", "explain", "--json", try home.write(walk(v4, save: saved), to: "walk.kcs"),
        ])
        #expect(r.code == 0, "\(r.out)\(r.err.suffix(2000))")
        all += try records(r.err)
        // The card examples, on the same profile where they take one.
        let examples = try FileManager.default.contentsOfDirectory(
            atPath: TestPaths.root.appendingPathComponent("examples").path
        )
        .filter { $0.hasPrefix("card") && $0.hasSuffix(".kcs") }.sorted()
        for example in examples {
            let path = TestPaths.root.appendingPathComponent("examples/" + example).path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            guard !v4 || text.contains("# card profiles: 3.1.0 4.0") else { continue }
            let e = try home.run(arguments: ["--trace", "explain", "--json", path] + (v4 ? ["4.0"] : []))
            #expect(e.code == 0, "\(example): \(e.err.suffix(500))")
            all += try records(e.err)
        }
        var seen = Set<String>()
        for record in all {
            let explained = (record["explained"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
            let unknown = explained.filter { $0.contains("unknown") }
            #expect(unknown.isEmpty, "\(record["number"] ?? "?"): \(unknown)")
            let header = (record["command"] as? [String: Any])?["header"] as? String ?? ""
            seen.insert(String(header.dropFirst(2).prefix(2)).uppercased())
        }
        let table =
            v4
            ? [
                "A4", "10", "FE", "F2", "20", "21", "22", "D0", "D2", "D3", "D4", "C0", "C2", "C3", "C4", "C5", "84",
                "CA", "E2", "FD",
            ]
            : [
                "A4", "10", "11", "12", "13", "FE", "F2", "20", "21", "22", "D0", "D1", "D2", "D3", "D4", "C0", "C1",
                "C2", "CA", "E2", "FD",
            ]
        #expect(
            Set(table).subtracting(seen).isEmpty,
            "instructions no operation sent: \(Set(table).subtracting(seen).sorted())")
        #expect(all.count > 150)
    }

    @Test func badArguments_areNamed_andChangeNothing() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            try { card.trace save } catch e { print e.kind, e.message }
            try { apdu.explain "80 2Z 00 00" } catch e { print e.kind, e.message }
            try { apdu.explain "80 20 00 00 06 31" } catch e { print e.kind, e.message }
            try { card.trace loud } catch e { print e.kind }
            print card.trace().level
            """, name: "bad.kcs")
        #expect(r.code == 0, "\(r.err)")
        #expect(
            r.out == """
                builtin.outOfRange card.trace: the file must be given: card.trace save FILE writes the trace to it, got none
                builtin.outOfRange apdu.explain: command must be hex bytes (spaces allowed), got 80 2Z 00 00
                apdu.malformed apdu.explain: Lc says 6 data bytes but 1 follow (expected CLA INS P1 P2 [Lc data] [Le])
                builtin.badChoice
                off

                """, "\(r.out)\(r.err)")
        let sim = try home.run(arguments: ["sim", "attach", "--trace", "off"])
        #expect(
            sim.code == 64 && sim.err.contains("--trace must be one of wire, channel, explain, got off"), "\(sim.err)")
    }

    @Test func underJSON_aScriptsTrace_isJSON_andTheValuesStayOnStandardOutput() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            arguments: [
                "--json", try home.write("card.trace wire\nprint card.connect(\"sim\", \"j\").card\n", to: "j.kcs"),
            ])
        #expect(r.code == 0 && r.out == "\"sim:j\"\n", "\(r.out)\(r.err)")
        let lines = r.err.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("{\"answer\":"), "\(r.err)")
        let record = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect((record?["command"] as? [String: Any])?["header"] as? String == "00a40400")
    }

    @Test(arguments: [("3.1.0", "explain"), ("3.1.0", "channel"), ("4.0", "explain"), ("4.0", "channel")])
    func knownSecrets_appearNowhere(profile: String, level: String) throws {
        var home = try BatchHome()
        defer { home.remove() }
        home.environment["KCS_VAULT_PASSPHRASE"] = "walk passphrase"
        let saved = home.folder.appendingPathComponent("walk.trace").path
        let r = try home.run(arguments: [
            "--trace", level, try home.write(walk(profile == "4.0", save: saved), to: "walk.kcs"),
        ])
        #expect(r.code == 0, "\(r.err.suffix(2000))")
        #expect(r.err.contains("PIN •••••• (never shown)") || level == "channel")
        var everything = r.out + r.err + (try String(contentsOfFile: saved, encoding: .utf8))
        // The store, history included, as bytes: the database, its write-ahead log, and the cards' files.
        let store = home.folder.appendingPathComponent("home")
        let files =
            FileManager.default.enumerator(at: store, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        let databases = files.filter { $0.lastPathComponent.hasPrefix("kcs.db") }
        #expect(!databases.isEmpty, "the store is where the test looks")
        for file in databases {
            everything += String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self)
        }
        let history = try home.run("for h in history() { print h }", name: "history.kcs")
        #expect(history.code == 0 && history.out.contains("message"), "\(history.out)\(history.err)")
        everything += history.out
        let secrets = [
            "123456", "987654321098", "654321", "246802", "123412341234", "135791", "walk pairing", "walk passphrase",
            "abandon abandon",
        ]
        // A 6-digit PIN is looked for as a word of its own: random hex around it (keys, MACs, shown at
        // this level) holds any six digits somewhere once in a while, and that is not the PIN.
        let words = Set(everything.split { !$0.isLetter && !$0.isNumber }.map(String.init))
        for secret in secrets {
            if secret.count == 6 {
                #expect(!words.contains(secret), "\(secret) is in the output, the store or the trace")
            } else {
                #expect(!everything.contains(secret), "\(secret) is in the output, the store or the trace")
            }
            let hex = secret.utf8.map { String(format: "%02x", $0) }.joined()
            #expect(
                !everything.lowercased().contains(hex), "\(secret) (as hex) is in the output, the store or the trace")
        }
        // The master seed and the EIP-1581 private key of "abandon … about" (BIP-39's vector, and
        // the key the card exported: computed by the BIP-32 reference, not by kcs).
        for value in [
            "5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4"
        ] {
            #expect(!everything.lowercased().contains(value))
        }
        #expect(r.err.contains("<masked 32 B>"))
    }
}
