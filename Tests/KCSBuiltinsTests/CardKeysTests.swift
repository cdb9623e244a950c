// The card's wallet commands (issue 6 §4–§8) in process: the builtins' side of the path helpers
// (a path value or string read for the card, refusals named for the command; the arithmetic
// itself is tested in CardProtocolTests/CardPathArithmeticTests.swift), and the
// commands themselves on a simulated card in a temporary kcs home, logged in through the
// protocol layer (the console's `card.login` is tested through the binary in ConsoleTests).
// Key vectors: docs/keycard-protocol.md §16.2 (the "legal winner …" mnemonic).
import CardProtocol
import Foundation
import KCSRuntime
import KCSSyntax
import Testing
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

@testable import KCSBuiltins
@testable import WalletSession

private func h(_ i: UInt32) -> ChildIndex { ChildIndex(i, hardened: true) }
private func n(_ i: UInt32) -> ChildIndex { ChildIndex(i) }
private let eth0 = [h(44), h(60), h(0), n(0), n(0)]

@Suite struct CardKeyHelperTests {
    // MARK: - Resolving and the depth limit

    @Test func parseCardPath_readsTheSDKSyntax() throws {
        #expect(try Builtins.parseCardPath(.string("m/44'/60'/0'/0/0")) == .init(source: .master, components: eth0))
        #expect(try Builtins.parseCardPath(.string("m")) == .init(source: .master, components: []))
        #expect(try Builtins.parseCardPath(.string("../5")) == .init(source: .parent, components: [n(5)]))
        #expect(try Builtins.parseCardPath(.string("./0/1")) == .init(source: .current, components: [n(0), n(1)]))
        #expect(try Builtins.parseCardPath(.string("2h/3")) == .init(source: .current, components: [h(2), n(3)]))
        #expect(throws: HDError.self) { try Builtins.parseCardPath(.string("../m/1")) }
    }

    // MARK: - The coin screen

    @Test func coinPath_startsAtAccountZero_andKeepsTheCurrentAddress() throws {
        #expect(
            try CardKeyPath.coinPath(current: [], coinType: 60, account: nil, newAccount: false, next: false) == eth0)
        let at3 = [h(44), h(60), h(2), n(0), n(3)]
        #expect(
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: nil, newAccount: false, next: false) == at3)
        // Another coin's tree starts at its account 0.
        #expect(
            try CardKeyPath.coinPath(current: at3, coinType: 0, account: nil, newAccount: false, next: false)
                == [h(44), h(0), h(0), n(0), n(0)])
    }

    @Test func coinPath_nextAndNewAccount() throws {
        let at3 = [h(44), h(60), h(2), n(0), n(3)]
        #expect(
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: nil, newAccount: false, next: true)
                == [h(44), h(60), h(2), n(0), n(4)])
        #expect(
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: nil, newAccount: true, next: false)
                == [h(44), h(60), h(3), n(0), n(0)])
        #expect(
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: 2, newAccount: false, next: true)
                == [h(44), h(60), h(2), n(0), n(4)])
        #expect(
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: 7, newAccount: false, next: true)
                == [h(44), h(60), h(7), n(0), n(0)])
        #expect(
            try CardKeyPath.coinPath(current: [], coinType: 2, account: nil, newAccount: true, next: false)
                == [h(44), h(2), h(0), n(0), n(0)])
        #expect(throws: CardPathError.conflictingOptions(first: "new-account", second: "next")) {
            try CardKeyPath.coinPath(current: at3, coinType: 60, account: nil, newAccount: true, next: true)
        }
        let last = [h(44), h(60), h(0), n(0), n(ChildIndex.hardenedOffset - 1)]
        #expect(throws: CardPathError.indexOverflow) {
            try CardKeyPath.coinPath(current: last, coinType: 60, account: nil, newAccount: false, next: true)
        }
    }
}

/// A simulated card in a temporary kcs home, initialized, paired and logged in through the
/// protocol layer (PIN 123456), with the session's interpreter.
final class CardFixture {
    static let pin = Secret(utf8: "123456")
    static let legalWinner =
        "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal will"

    let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-cardkeys-\(UUID().uuidString)").path
    let session: Session
    let host: ScriptedHost
    let card: CardLink
    var trace: [APDUTraceRecord] = []

    init() throws {
        session = Session(
            home: home, environment: ["KCS_VAULT_PASSPHRASE": "pw"], vaultParameters: .insecureForTesting())
        host = ScriptedHost(interactive: false, session: session)
        card = try Self.loggedInCard(named: "t", in: home)
        session.card = card
        card.commands.trace = { [weak self] in self?.trace.append($0) }
    }

    /// Simulated card `name` in the kcs home `home`, initialized (PIN 123456, PUK
    /// 987654321098, the default pairing password) and logged in.
    static func loggedInCard(named name: String, in home: String) throws -> CardLink {
        let card = try CardLink.simulator(
            named: name, in: (home as NSString).appendingPathComponent("cards"),
            random: SystemRandom())
        let secret = PairingSecret(password: PairingSecret.defaultPassword)
        try card.commands.initialize(
            try InitParameters(pin: pin, puk: Secret(utf8: "987654321098"), pairingSecret: secret))
        try card.select()
        try login(card)
        return card
    }

    /// SELECT, PAIR, OPEN SECURE CHANNEL, VERIFY PIN, as `card.login` does.
    static func login(_ card: CardLink) throws {
        let result = try CardSession(commands: card.commands).open(
            SessionOptions(
                pin: pin, pairingSecret: PairingSecret(password: PairingSecret.defaultPassword)))
        card.known.channelOpened(result.pairing)
        card.known.pinChecked(true)
    }

    /// Logs `card` in again.
    func login() throws { try Self.login(card) }

    /// SELECT: the channel closes and the PIN is no longer verified.
    func logout() throws { try card.select() }

    @discardableResult
    func run(_ code: String) throws(RuntimeError) -> Value {
        let interpreter = Interpreter(registry: Builtins.registry(), host: host)
        let source = Source(name: "t", text: code)
        let (program, diagnostics) = interpreter.parse(source)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        return try interpreter.run(program, source: source)
    }

    /// The printed lines of `code`.
    func lines(_ code: String) throws -> [String] {
        host.output = ""
        try run(code)
        return host.output.split(separator: "\n").map(String.init)
    }

    /// The error id `code` stops with, or nil.
    func errorID(_ code: String) -> String? {
        do {
            try run(code)
            return nil
        } catch { return error.id }
    }

    /// The software address at `path` of the "legal winner" mnemonic.
    func softwareAddress(_ path: String) throws -> String {
        let master = try ExtendedKey.master(seed: try Mnemonic(phrase: Self.legalWinner).seed())
        return EthereumAddress(publicKey: try master.derive(DerivationPath(path)).publicKey).checksummed
    }

    var sent: [String] { trace.map(\.commandText) }

    deinit { try? FileManager.default.removeItem(atPath: home) }
}

@Suite(.serialized) struct CardKeysCommandTests {
    static let digest = "0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8"

    @Test func loadMnemonic_recordsACardKey_andTheCardsAddressesMatchSoftware() throws {
        let f = try CardFixture()
        let out = try f.lines(
            """
            let k = card.load mnemonic "\(CardFixture.legalWinner)" --name kc
            print k.kind, k.storage, k.source, k.path, k.keyUID
            for i in 0..<5 {
                let a = card.export "m/44'/60'/0'/0/{i}" --address
                print a
            }
            for row in key.list() { print row.name, row.kind, row.storage }
            """)
        let uid = f.card.instanceUID
        #expect(
            out[0] == "CARD card:\(uid) mnemonic m 0xb98373b5f78c88bdd753fe8fc3e3300bc8060d8b723a10ea062ca63554a23e7a")
        for i in 0..<5 { #expect(out[1 + i] == (try f.softwareAddress("m/44'/60'/0'/0/\(i)")), "address \(i)") }
        #expect(out[6] == "kc CARD card:\(uid)")
    }

    @Test func derive_withTheCard_choosesTheShortestSource_andRefusesDepthBeforeSending() throws {
        let f = try CardFixture()
        try f.run("card.load mnemonic \"\(CardFixture.legalWinner)\"\nuse card")
        let out = try f.lines(
            """
            let a = derive "m/44'/60'/0'/0/0"
            print a.source, a.sent, a.address
            let b = derive "m/44'/60'/0'/0/1"
            print b.source, b.sent, b.path
            let c = derive "7"
            print c.source, c.sent, c.path
            print card.path()
            """)
        #expect(out[0] == "master m/44'/60'/0'/0/0 " + (try f.softwareAddress("m/44'/60'/0'/0/0")))
        #expect(out[1] == "parent ../1 m/44'/60'/0'/0/1")
        #expect(out[2] == "current ./7 m/44'/60'/0'/0/1/7")
        #expect(out[3] == "m/44'/60'/0'/0/1/7")
        f.trace.removeAll()
        #expect(f.errorID("derive \"1/2/3/4/5\"") == "cardKey.pathTooDeep")
        #expect(!f.sent.contains { $0.hasPrefix("80 D1") }, "no DERIVE KEY was sent: \(f.sent)")
        #expect(try f.lines("print card.path()") == ["m/44'/60'/0'/0/1/7"])
        // Software derivation with --from is unchanged.
        #expect(
            try f.lines("print (derive \"0\" --from (hd.master \"\(CardFixture.legalWinner)\")).path.text") == ["m/0"])
    }

    @Test func cardDerive_coinScreen_nextAndNewAccount_andBitcoinAddresses() throws {
        let f = try CardFixture()
        try f.run("card.load mnemonic \"\(CardFixture.legalWinner)\"")
        let out = try f.lines(
            """
            let a = card.derive --coin ETH
            print a.path, a.address
            let b = card.derive --coin ETH --next
            print b.path, b.index, b.sent
            let c = card.derive --coin ETH --new-account
            print c.path, c.account
            let d = card.derive --coin BTC
            print d.path, d.address
            """)
        #expect(out[0] == "m/44'/60'/0'/0/0 " + (try f.softwareAddress("m/44'/60'/0'/0/0")))
        #expect(out[1] == "m/44'/60'/0'/0/1 1 ../1")
        #expect(out[2] == "m/44'/60'/1'/0/0 1")
        let btc = try ExtendedKey.master(seed: try Mnemonic(phrase: CardFixture.legalWinner).seed())
            .derive(DerivationPath("m/44'/0'/0'/0/0"))
        #expect(
            out[3] == "m/44'/0'/0'/0/0 "
                + (try BitcoinAddress.make(.p2pkh, publicKey: btc.publicKey, network: .bitcoin)))
    }

    @Test func sign_onTheCard_verifiesRecordsAndAlwaysSendsP2Zero() throws {
        let f = try CardFixture()
        try f.run("card.load mnemonic \"\(CardFixture.legalWinner)\" --name kc\nuse card")
        let d = Self.digest
        let out = try f.lines(
            """
            let s = sign \(d)
            print s.key, s.verified, s.signer, len(s.signature), s.v == 27 or s.v == 28, s.checkedAgainst
            let t = sign \(d) --path "m/44'/60'/0'/0/0"
            print t.verified, t.signer, t.path
            print card.path()
            let u = sign \(d) --path "m/44'/60'/0'/0/2" --make-current
            print u.verified, u.signer
            print card.path()
            let h = history --key kc
            print len(h), h[0].verified, h[0].signer
            let r = sign \(d) --path "../7"
            print r.verified, r.signer, r.path
            print card.path()
            """)
        let master = try ExtendedKey.master(seed: try Mnemonic(phrase: CardFixture.legalWinner).seed())
        #expect(
            out[0]
                == "kc true \(EthereumAddress(publicKey: master.publicKey).checksummed) 65 true the key exported from the card"
        )
        #expect(out[1] == "true \(try f.softwareAddress("m/44'/60'/0'/0/0")) m/44'/60'/0'/0/0")
        #expect(out[2] == "m", "derive-and-sign leaves the current path")
        #expect(out[3] == "true \(try f.softwareAddress("m/44'/60'/0'/0/2"))")
        #expect(out[4] == "m/44'/60'/0'/0/2")
        #expect(out[5] == "3 true \(try f.softwareAddress("m/44'/60'/0'/0/2"))")
        #expect(
            out[6] == "true \(try f.softwareAddress("m/44'/60'/0'/0/7")) m/44'/60'/0'/0/7",
            "a relative path is named absolutely")
        #expect(out[7] == "m/44'/60'/0'/0/2")
        let signs = f.sent.filter { $0.hasPrefix("80 C0") }
        #expect(signs.count == 4)
        // P1: current key, derive, derive and make current, derive from the parent (0x40 | 0x01).
        #expect(signs.map { $0.split(separator: " ")[2] } == ["00", "01", "02", "41"], "\(signs)")
        #expect(
            signs.allSatisfy { $0.split(separator: " ")[3] == "00" },
            "SIGN always carries P2 = 00 (later applets read P2 as the algorithm): \(signs)")
    }

    /// A body never writes its own name: the interpreter passes it (`CallArguments.command`),
    /// so the error names the command in the dotted and in the namespace form alike.
    @Test func errors_nameTheCommand_inEveryCallForm() throws {
        let f = try CardFixture()
        for code in [
            "card.derive --coin ETH --new-account --account 1", "card derive --coin ETH --new-account --account 1",
        ] {
            do {
                try f.run(code)
                Issue.record("\(code) should be refused")
            } catch {
                #expect(error.id == "cardKey.conflictingOptions")
                #expect(error.message == "card.derive: --new-account and --account cannot go together", "\(code)")
            }
        }
        for code in ["card.export m --xpub", "card export m --xpub"] {
            do {
                try f.run(code)
                Issue.record("\(code) should be refused")
            } catch {
                #expect(
                    error.message.hasPrefix("card.export: the card does not export the master's chain code"), "\(code)")
            }
        }
    }

    /// A relative --path that would take the card past 10 levels is refused before SIGN.
    @Test func sign_relativePathTooDeep_isRefusedBeforeSign() throws {
        let f = try CardFixture()
        try f.run("card.load mnemonic \"\(CardFixture.legalWinner)\" --name kc\nuse card\nderive \"m/44'/60'/0'/0/0\"")
        f.trace.removeAll()
        let out = try f.lines(
            """
            try { sign \(Self.digest) --path "./1/2/3/4/5/6" } catch e { print e.kind; print e.message }
            print card.path()
            """)
        #expect(
            out == [
                "cardKey.pathTooDeep",
                "sign: m/44'/60'/0'/0/0/1/2/3/4/5/6 is 11 levels deep; the card derives at most 10 levels (nothing was sent)",
                "m/44'/60'/0'/0/0",
            ])
        #expect(!f.sent.contains { $0.hasPrefix("80 C0") }, "no SIGN was sent: \(f.sent)")
    }

    @Test func pinless_signsWithoutPINOrChannel_andChecksTheRecordedKey() throws {
        let f = try CardFixture()
        try f.run("card.load mnemonic \"\(CardFixture.legalWinner)\" --name kc")
        #expect(f.errorID("sign \(Self.digest) --pinless") == "card.referencedDataNotFound")
        let set = try f.lines("let p = card.pinless \"m/44'/60'/0'/0/0\"\nprint p.path, p.address")
        #expect(set == ["m/44'/60'/0'/0/0 " + (try f.softwareAddress("m/44'/60'/0'/0/0"))])
        #expect(f.card.known.pinlessPath?.description == "m/44'/60'/0'/0/0")
        try f.logout()
        f.trace.removeAll()
        let out = try f.lines(
            "let s = sign \(Self.digest) --pinless\nprint s.key, s.verified, s.signer, s.path, s.checkedAgainst")
        #expect(
            out == [
                "kc true \(try f.softwareAddress("m/44'/60'/0'/0/0")) m/44'/60'/0'/0/0 the PIN-less key recorded by card.pinless"
            ])
        #expect(f.trace.count == 1 && f.trace[0].secure == false && f.sent[0].hasPrefix("80 C0 03 00 20"), "\(f.sent)")
        // Without --pinless the card wants the PIN.
        #expect(f.errorID("use card\nsign \(Self.digest)") == "card.notOpen")
        try f.login()
        try f.run("card.pinless --clear")
        #expect(f.card.known.pinlessPath == nil)
        #expect(f.errorID("sign \(Self.digest) --pinless") == "card.referencedDataNotFound")
    }

    @Test func export_publicXpubAndEIP1581Private_byTheCardsRules() throws {
        let f = try CardFixture()
        try f.run("card.load mnemonic \"\(CardFixture.legalWinner)\"")
        let master = try ExtendedKey.master(seed: try Mnemonic(phrase: CardFixture.legalWinner).seed())
        let out = try f.lines(
            """
            let x = card.export "m/44'/60'/0'" --xpub
            print x.xpub
            let p = card.export "m/43'/60'/1581'/0'/0" --private
            print reveal(p.privateKey)
            let q = card.export "m/44'/0'/0'/0/0" --coin LTC
            print q.address
            """)
        #expect(out[0] == (try master.derive(DerivationPath("m/44'/60'/0'")).serialized(.xpub)))
        #expect(out[1] == "0xf95deac2b5a925a03d33c3894d87a6619dbcf2834c5b8ad376ca76089809dcbc")
        let ltcKey = try master.derive(DerivationPath("m/44'/0'/0'/0/0")).publicKey
        #expect(out[2] == (try BitcoinAddress.make(.p2pkh, publicKey: ltcKey, network: .litecoin)))
        f.trace.removeAll()
        #expect(f.errorID("card.export \"m/44'/60'/0'/0/0\" --private") == "cardKey.privateNotExportable")
        #expect(f.errorID("card.export \"m/43'/60'/1581'/0'/0\" --xpub") == "cardKey.xpubNotExportable")
        #expect(f.errorID("card.export m --xpub") == "cardKey.masterXpub")
        #expect(!f.sent.contains { $0.hasPrefix("80 C2") }, "refused before sending: \(f.sent)")
        #expect(f.errorID("card.export --public --xpub") == "cardKey.oneExportKind")
    }

    @Test func keypairWithoutChainCode_signsButCannotDerive() throws {
        let f = try CardFixture()
        let key = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        let out = try f.lines(
            "let k = card.load keypair \(key) --name raw\nuse card\nprint k.address\nprint (sign \(Self.digest)).signer"
        )
        #expect(out == ["0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"])
        #expect(f.errorID("derive \"m/44'/60'/0'/0/0\"") == "cardKey.notExtended")
        #expect(f.errorID("card.load keypair \(key) --chain-code 0x00") == "builtin.outOfRange")
    }

    @Test func replacingAndRemoving_needForce_andRetireTheStoredKey() throws {
        let f = try CardFixture()
        try f.run("card.load mnemonic \"\(CardFixture.legalWinner)\" --name first\nuse card")
        #expect(f.errorID("card.generate") == "cardKey.keyPresent")
        #expect(f.errorID("card.load seed 0x" + String(repeating: "ab", count: 64)) == "cardKey.keyPresent")
        let out = try f.lines("let g = card.generate --force --name second\nprint g.kind, g.source")
        #expect(out == ["CARD generated"])
        #expect(f.session.activeKey == "second", "the active signer follows the card's new key")
        let store = try f.session.store()
        #expect(try store.key(named: "first").retired)
        #expect(f.errorID("card.remove-key") == "cardKey.removeNeedsForce")
        #expect(try f.lines("print (card.remove-key --force).retired") == ["[\"second\"]"])
        #expect(f.session.activeKey == nil)
        #expect(f.errorID("use card") == "cardKey.noKey")
    }

    @Test func cardMnemonic_isASecret_andLoadShowsTheWordsOnce() throws {
        let f = try CardFixture()
        #expect(
            try f.lines("let m = card.mnemonic --words 24\nprint type(m), (mnemonic.check $m).words") == [
                "secret mnemonic 24"
            ])
        let out = try f.lines("let k = card.mnemonic --words 15 --load\nprint k.kind, k.source")
        #expect(out.first?.hasPrefix("Write these 15 words down") == true)
        #expect(out.count == 17 && out[16] == "CARD generated", "\(out)")
        #expect(f.errorID("card.mnemonic --load") == "cardKey.keyPresent")
        #expect(f.errorID("card.mnemonic --passphrase x") == "builtin.optionNotApplicable")
    }

    @Test func softwareSigner_keepsItsBehaviour_andRefusesCardOptions() throws {
        let f = try CardFixture()
        try f.run(
            "import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318 --name soft\nuse key soft"
        )
        #expect(try f.lines("print (sign \(Self.digest)).signer") == ["0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"])
        #expect(f.errorID("sign \(Self.digest) --path m/0") == "cardKey.needsCardSigner")
        #expect(f.errorID("derive \"m/0\"") == "builtin.noCurrentKey")
        // use key on a card key makes the card the signer too.
        try f.run("card.load mnemonic \"\(CardFixture.legalWinner)\" --name kc\nuse key kc")
        #expect(try f.lines("print (sign \(Self.digest)).checkedAgainst") == ["the key exported from the card"])
    }
}

/// Paths a person can reach that the batch tests in ConsoleTests do not walk, checked in
/// process where the APDUs sent can be seen: bad input refused before anything is sent, values
/// typed twice differently, a malformed PUK or new PIN (no try used), the card key of another
/// card, and which APDUs the factory reset and the unblock send.
@Suite(.serialized) struct CardAccessInProcessTests {
    static let digest = CardKeysCommandTests.digest

    @Test func load_badMaterialOrOptions_areRefusedBeforeAnythingIsSent() throws {
        let f = try CardFixture()
        let seed64 = "0x" + String(repeating: "ab", count: 64)
        for (code, id) in [
            ("card.load colour \"x\"", "builtin.badChoice"),
            ("card.load seed 0x00", "builtin.outOfRange"),
            ("card.load seed \(seed64)ab", "builtin.outOfRange"),
            ("card.load seed \(seed64) --passphrase x", "builtin.optionNotApplicable"),
            ("card.load mnemonic \"\(CardFixture.legalWinner)\" --chain-code 0x00", "builtin.optionNotApplicable"),
            ("card.load keypair 0x" + String(repeating: "11", count: 32) + " --chain-code 0x00", "builtin.outOfRange"),
            ("card.load keypair 0x00", "key.privateKeyLength"),
            ("card.load mnemonic \"legal winner thank\"", "mnemonic.wordCount"),
            ("card.load seed \"zz\"", "hex.invalidCharacter"),
        ] {
            #expect(f.errorID(code) == id, "\(code)")
        }
        #expect(f.trace.isEmpty, "nothing was sent: \(f.sent)")
    }

    @Test func signAndDeriveOptions_thatCannotGoTogether_sendNoSignOrDerive() throws {
        let f = try CardFixture()
        try f.run("card.load mnemonic \"\(CardFixture.legalWinner)\" --name kc\nuse card")
        f.trace.removeAll()
        #expect(f.errorID("sign \(Self.digest) --pinless --path m/0") == "builtin.optionNotApplicable")
        #expect(f.errorID("sign \(Self.digest) --make-current") == "builtin.optionNotApplicable")
        #expect(f.errorID("card.derive") == "builtin.optionNeeded", "no --coin, and the current path m is not BIP-44")
        #expect(f.errorID("card.derive --coin ETH --new-account --account 1") == "cardKey.conflictingOptions")
        #expect(!f.trace.contains { $0.command == .sign || $0.command == .deriveKey }, "\(f.sent)")
    }

    @Test func cardKeyOfAnotherCard_isRefusedBeforeSigning() throws {
        let f = try CardFixture()
        try f.run("card.load mnemonic \"\(CardFixture.legalWinner)\" --name kc\nuse card")
        // Another card in the reader, logged in: kc is not on it.
        let other = try CardFixture.loggedInCard(named: "u", in: f.home)
        f.session.card = other
        var sent: [CardCommand] = []
        other.commands.trace = { sent.append($0.command) }
        #expect(f.errorID("sign \(Self.digest)") == "cardKey.otherCard")
        #expect(f.errorID("derive \"m/44'/60'/0'/0/0\"") == "cardKey.otherCard")
        #expect(sent.isEmpty, "\(sent)")
    }

    @Test func newValue_typedTwiceDifferently_changesNothing_andNoAnswerCancels() throws {
        let f = try CardFixture()
        f.host.isInteractive = true
        f.host.secrets = ["111111", "222222"]
        #expect(f.errorID("card.change pin") == "card.valuesDiffer")
        #expect(f.host.prompts == ["new PIN: ", "the same PIN again: "])
        f.host.secrets = []
        #expect(f.errorID("card.change puk") == "session.cancelled")
        #expect(!f.trace.contains { $0.command == .changePIN || $0.command == .changePUK }, "\(f.sent)")
        try f.run("card.verify \"123456\"")
    }

    @Test func unblock_malformedPUKOrNewPIN_usesNoTry_andOneGetStatusIsRead() throws {
        let f = try CardFixture()
        try f.run(
            """
            for i in range(2) { try { card.verify "000000" } catch e { } }
            try { card.verify "000000" --force } catch e { }
            """)
        f.trace.removeAll()
        #expect(f.errorID("card.unblock \"12\" \"654321\"") == "card.invalidInput")
        #expect(f.trace.isEmpty, "a malformed PUK is refused before GET STATUS: \(f.sent)")
        #expect(f.errorID("card.unblock \"987654321098\" \"12\"") == "card.invalidInput")
        #expect(!f.trace.contains { $0.command == .unblockPIN }, "\(f.sent)")
        #expect(try f.lines("print card.status().pukTriesLeft") == ["5"])
        f.trace.removeAll()
        try f.run("card.unblock \"987654321098\" \"654321\"")
        #expect(f.trace.map(\.command) == [.getStatus, .unblockPIN], "\(f.sent)")
        #expect(try f.lines("print card.status().pinTriesLeft") == ["3"])
    }

    @Test func reset_sendsSelectFactoryResetSelect_withTheChannelOpenOrClosed() throws {
        let closed = try CardFixture()
        try closed.logout()
        closed.trace.removeAll()
        #expect(try closed.lines("print (card.reset --confirm \"\(closed.card.shortUID)\").initialized") == ["false"])
        #expect(closed.trace.map(\.command) == [.select, .factoryReset, .select], "\(closed.sent)")
        let open = try CardFixture()
        #expect(try open.lines("print (card.reset --confirm \"\(open.card.shortUID)\").initialized") == ["false"])
        #expect(open.trace.map(\.command) == [.select, .factoryReset, .select], "\(open.sent)")
    }
}
