// Every `help` example runs (docs/language.md §4): each builtin's example is run through the
// real binary in a batch run with an empty kcs home, after a prelude that sets up what its words
// take for granted — a mnemonic in `$m`, a stored key called `savings`, a simulated card that is
// logged in, a file called `mail.json` — and must succeed. Only what needs a node or a PC/SC
// reader may end with the error that says so, and only that error.
import Foundation
import KCSBuiltins
import KCSRuntime
import KCSTestSupport
import Testing
import WalletSession

private let phrase = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
/// MetaMask's first key of `phrase` (m/44'/60'/0'/0/0, 0x9858…da94).
private let firstKey = "0x1ab42cc412b618bdea3a599e3c9bae199ebf030895b039e9db1e30dafb12b727"

/// Lines that define what an example may use. Each is added when the example mentions its word.
private let preludes: [(uses: String, code: String)] = [
    ("$m", "let m = env \"KCS_MNEMONIC\" --secret mnemonic"),
    ("$root", "let root = hd.master $m"),
    ("$peer", "let peer = (hd.master $m).publicKey"),
    ("$key", "let key = derive \"m/44'/60'/0'/0/0\" --from (hd.master $m)"),
    ("$sig", "let sig = (sign message \"hello\" --key (derive \"m/44'/60'/0'/0/0\" --from (hd.master $m))).signature"),
    ("savings", "import mnemonic \"\(phrase)\" --name savings"),
    (
        "hot-wallet",
        "import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318 --name hot-wallet"
    ),
    ("eth-9858-da94", "import privkey \(firstKey) --name eth-9858-da94"),
    ("old-key", "import address 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 --name old-key"),
]

/// Three pending rotations (ids 1, 2, 3): a batch run without --yes leaves each pending.
private let threeRotations =
    "for n in range(3) { import privkey (bytes (1000 + n) --length 32) --name \"r{n}\"; try { key rotate \"r{n}\" } catch e { } }"
private let savings = "import mnemonic \"\(phrase)\" --name savings"

/// The card an example finds: connected, initialized, logged in, with a key loaded — or less,
/// as the command needs.
private enum CardState {
    case none, connected, initialized, paired, loggedIn, keyLoaded, pinBlocked, version4KeyLoaded, version4LEE
}

private let connect = "card.connect"
private let initialize = "card.init --pin \"123456\" --puk \"111122223333\" --pairing \"KeycardDefaultPairing\""
private let login = "card.login \"123456\" --default"
private let loadKey = "card.load mnemonic \"\(phrase)\""

private func cardPrelude(_ state: CardState) -> [String] {
    switch state {
    case .none: []
    case .connected: [connect]
    case .initialized: [connect, initialize]
    case .paired: [connect, initialize, "card.pair --default"]
    case .loggedIn: [connect, initialize, login]
    case .keyLoaded: [connect, initialize, login, loadKey]
    case .pinBlocked:
        [
            connect, initialize, login, "card.logout",
            "for i in range(3) { try { card.login \"000000\" --force } catch e { } }", "card.open",
        ]
    case .version4KeyLoaded:
        [
            "card.connect --sim four --profile 4.0",
            "card.init --pin \"123456\" --puk \"111122223333\" --duress \"654321\"",
            "card.login \"123456\"", loadKey,
        ]
    case .version4LEE: cardPrelude(.version4KeyLoaded) + [loadKey + " --lee --force"]
    }
}

/// What the card must be for each card command's example (the rest need none).
private let cardStates: [String: CardState] = [
    "card.info": .connected, "card.status": .loggedIn, "card.init": .connected, "card.pair": .initialized,
    "card.open": .paired, "card.verify": .paired, "card.login": .initialized, "card.logout": .loggedIn,
    "card.pairings": .loggedIn, "card.unpair": .loggedIn, "card.unblock": .pinBlocked, "card.change": .loggedIn,
    "card.reset": .loggedIn, "card.mnemonic": .loggedIn, "card.load": .loggedIn, "card.generate": .loggedIn,
    "card.remove-key": .keyLoaded, "card.path": .keyLoaded, "card.derive": .keyLoaded, "card.pinless": .keyLoaded,
    "card.export": .keyLoaded, "use.card": .keyLoaded, "card.disconnect": .connected,
    "card.bip85": .version4KeyLoaded, "card.ecdh": .version4KeyLoaded, "card.challenge": .version4KeyLoaded,
    "card.lee": .version4LEE, "card.ndef": .loggedIn,
]

/// A PSBT of "abandon … about"'s first BIP-84 testnet key, in tx.psbt, that key active.
private let psbtFile = [
    "import mnemonic \"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\" --name btc",
    "use key btc-0",
    "let p = psbt.create [{\"prevtx\": \"\(BitcoinOracle.fundingTransaction)\", \"vout\": 0, \"path\": \"m/84'/1'/0'/0/0\"}] [{\"address\": \"tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx\", \"amount\": 99000}] --chain test",
    "psbt.combine [p] --out \"tx.psbt\"",
]
private let signedPSBTFile = psbtFile + ["psbt.sign \"tx.psbt\" --out \"signed.psbt\" --chain test"]

/// More lines some examples need before them.
private let extraPrelude: [String: [String]] = [
    "psbt.read": psbtFile, "psbt.show": psbtFile, "psbt.sign": psbtFile, "psbt.finalize": signedPSBTFile,
    "psbt.extract": signedPSBTFile,
    "psbt.combine": psbtFile + [
        "psbt.sign \"tx.psbt\" --out \"a.psbt\" --chain test", "psbt.combine [p] --out \"b.psbt\"",
    ],
    // card.open after a pairing made by another run: the channel is not open yet.
    "card.open": ["card.disconnect", connect],
    "card.verify": ["card.open"],
    "sign": [savings, "use key savings-0"], "sign.message": [savings, "use key savings-0"],
    "sign.tx": [savings, "use key savings-0"], "sign.typed": [savings, "use key savings-0"],
    "sign.auth": [savings, "use key savings-0"],
    "safe.combine": [
        "let tx = {\"to\": \"0x7b79995e5f793A07Bc00c21412e50Ecae098E7f9\", \"nonce\": 6}",
        "let a = sign safe $tx --safe 0x86D46EcD553d25da0E3b96A9a1B442ac72fa9e9F --chain 11155111 --key 0x\(String(repeating: "11", count: 32))",
        "let b = sign safe $tx --safe 0x86D46EcD553d25da0E3b96A9a1B442ac72fa9e9F --chain 11155111 --key 0x\(String(repeating: "22", count: 32))",
        "let h = a.safeTxHash",
    ],
    "eth.send": [savings, "use key savings-0"],
    "eth.receipt": ["let sent = {\"hash\": keccak256(\"a transaction\")}"],
    "vault.change-passphrase": [savings],
    // A trace saved by a session on the simulator.
    "trace.explain": ["card.trace wire", connect, "card.trace save \"session.trace\""],
    "qr.read": ["qr.save 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 \"address.png\""],
    "qr.export": [savings, "use key savings-0"],
    "import.qr": ["qr.save \"UR:CRYPTO-SEED/OEADGDSTASLPLABGHYDRPFMKBGGUFGLUDPRFGMAOTPIECFFLTNLPQDENOS\" \"seed.png\""],
    "rotation.resume": [threeRotations], "rotation.rollback": [threeRotations],
    // A joint key with the test's co-signer (see `cosignerAddress`).
    "mpc.derive": [pairCosigner, "key.generate --two-party --type hd --name vault"],
    "mpc.status": [pairCosigner, "key.generate --two-party --type hd --name vault"],
    "mpc.unlock": [pairCosigner, "key.generate --two-party --type hd --name vault"],
    "mpc.export": [pairCosigner, "key.generate --two-party --type hd --name vault"],
    "mpc.import": [
        pairCosigner, "key.generate --two-party --type hd --name vault",
        "mpc.export vault vault-share.json (env \"BACKUP_PASSPHRASE\" --secret passphrase) --light",
        "key.delete vault --yes",
    ],
]

/// The address the examples name a co-signer by, and the one this test's co-signer listens on.
private let exampleCosigner = "127.0.0.1:7000"
private let pairCosigner = "mpc.pair \"\(exampleCosigner)\" --name laptop --yes"

/// The only errors an example may end with, and why: a node or a reader this test has none of,
/// a confirmation only a terminal can give, a short UID that changes with every card.
private let allowedErrors: [String: Set<String>] = [
    "eth.node": ["rpc.noConnection"], "eth.chain-id": ["rpc.noNode"], "eth.balance": ["rpc.noNode"],
    "eth.gas-price": ["rpc.noNode"],
    "eth.nonce": ["rpc.noNode"], "eth.fees": ["rpc.noNode"], "eth.send": ["rpc.noNode", "eth.command.noChainID"],
    "eth.receipt": ["rpc.noNode"],
    // wallet.select picks an address wallet.discover found, which needs a node.
    "wallet.discover": ["rpc.noNode"], "wallet.select": ["builtin.outOfRange"],
    "card.connect": ["transport.noService", "transport.noReader"],
    "key.generate": ["key.backupNeedsTerminal"], "key.rotate": ["rotation.backupNotConfirmed"],
    "card.reset": ["card.resetNotConfirmed"],
    // A signing request is made by another wallet (Tests/ConsoleTests/AirGapTests.swift draws some).
    "qr.sign": ["qr.unreadable"],
    // What the watch-only wallet shows back is a picture this test has none of.
    "qr.verify": ["qr.unreadable"],
    // No camera here.
    "qr.scan": ["qr.notACamera", "qr.noCamera"],
    // Comparing fingerprints needs a person at a terminal; the co-signer's address is taken (by it).
    "mpc.pair": ["mpc.fingerprintsRejected"], "mpc.serve": ["mpc.cannotListen"],
]

/// Files the examples read, in the folder they run in.
private func writeFixtures(in folder: URL) throws {
    try (phrase + "\n").write(to: folder.appendingPathComponent("phrase.txt"), atomically: true, encoding: .utf8)
    let scripts = TestPaths.root.appendingPathComponent("Tests/TranscriptTests/Scripts")
    for (from, to) in [("eth/mail.json", "mail.json"), ("keystore/mycrypto.json", "wallet.json")] {
        try FileManager.default.copyItem(
            at: scripts.appendingPathComponent(from), to: folder.appendingPathComponent(to))
    }
}

@Suite("Help examples")
struct HelpExampleTests {
    @Test func everyHelpExample_runsInAWorldItsWordsAssume() throws {
        let builtins = Builtins.registry().builtins
        #expect(builtins.count > 90)
        // A co-signer for the two-party examples: the address they name is this one's.
        let cosignerHome = try BatchHome()
        defer { cosignerHome.remove() }
        let (cosigner, cosignerAddress) = try cosignerHome.startCosigner()
        defer {
            cosigner.terminate()
            cosigner.waitUntilExit()
        }
        var failures: [String] = []
        var effects: [String: Set<String>] = [:]
        for b in builtins {
            var home = try BatchHome()
            defer { home.remove() }
            home.environment["KCS_MNEMONIC"] = phrase
            home.environment["KEYSTORE_PASSWORD"] = "foobartest121"  // mycrypto.json's (ethereum/tests)
            home.environment["KC_PIN"] = "123456"
            home.environment["KC_PUK"] = "111122223333"
            home.environment["KC_NEW_PIN"] = "654321"
            home.environment["KCS_VAULT_NEW_PASSPHRASE"] = "the new example vault passphrase"
            home.environment["BACKUP_PASSPHRASE"] = "the example backup passphrase"
            let work = home.folder.appendingPathComponent("work")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            try writeFixtures(in: work)
            var lines = cardPrelude(cardStates[b.name] ?? .none)
            var chosen = preludes.filter { b.example.contains($0.uses) }.map(\.code)
            if chosen.contains(where: { $0.contains("$m") }), !chosen.contains(preludes[0].code) {
                chosen.insert(preludes[0].code, at: 0)
            }
            lines += chosen
            lines += extraPrelude[b.name] ?? []
            let script =
                (lines + [b.example]).joined(separator: "\n").replacingOccurrences(
                    of: exampleCosigner, with: cosignerAddress) + "\n"
            let file = work.appendingPathComponent("example.kcs")
            try script.write(to: file, atomically: true, encoding: .utf8)
            let effectsLog = home.folder.appendingPathComponent("effects.log")
            home.environment[Session.effectsLogVariable] = effectsLog.path
            let r = try home.run(arguments: ["--json-errors", file.path], in: work)
            let logged = ((try? String(contentsOf: effectsLog, encoding: .utf8)) ?? "").split(separator: "\n")
            effects[b.name] = Set(
                logged.compactMap { line in
                    let parts = line.split(separator: " ")
                    return parts.count == 2 && parts[0] == b.name ? String(parts[1]) : nil
                })
            let ids = r.err.split(separator: "\n").compactMap { line -> String? in
                guard let data = line.data(using: .utf8),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                else { return nil }
                return object["error"] as? String
            }
            if r.code == 0 && ids.isEmpty { continue }
            if let id = ids.last, allowedErrors[b.name]?.contains(id) == true,
                let line = r.err.split(separator: "\n").last, line.contains("\"line\":\(lines.count + 1)")
            {
                continue  // the example itself, not its prelude, ended with the one allowed error
            }
            failures.append("\(b.name): `\(b.example)` → exit \(r.code) \(ids) \(r.err.prefix(300))")
        }
        #expect(
            failures.isEmpty,
            Comment(rawValue: "\(failures.count) help examples do not run:\n" + failures.joined(separator: "\n")))
        // What each example did to the vault and the card, as the effects log saw it, its table
        // entry declares, always or sometimes (docs/architecture.md §3, "How to add a builtin").
        // The other way round one example cannot tell: `card.unpair --others` with no other pairing
        // changes nothing.
        var undeclared: [String] = []
        for b in builtins {
            let did = effects[b.name] ?? []
            if did.contains("opensVault"), b.traits.isDisjoint(with: [.opensVault, .mayOpenVault]) {
                undeclared.append("\(b.name) opened the vault and declares neither opensVault nor mayOpenVault")
            }
            if did.contains("changesCard"), b.traits.isDisjoint(with: [.changesCard, .mayChangeCard]) {
                undeclared.append("\(b.name) changed the card and declares neither changesCard nor mayChangeCard")
            }
        }
        #expect(undeclared.isEmpty, Comment(rawValue: undeclared.joined(separator: "\n")))
    }
}
