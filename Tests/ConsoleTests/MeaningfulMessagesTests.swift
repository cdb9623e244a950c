// Warnings that mean something and errors that say what to do (issue 26 §2–§3), through the
// binary: the `-e` warning only for secret text written out, key values given to --key sign,
// a nil result prints nothing, and the hints a new user needed. Each of these failed before.
import Foundation
import KCSTestSupport
import Testing

@Suite("Messages a new user can act on")
struct MeaningfulMessagesTests {
    static let abandon = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
    static let warning = "this -e program holds a secret"

    @Test func eWarning_onlyForSecretTextWrittenOut() throws {
        var home = try BatchHome()
        defer { home.remove() }
        home.environment["KCS_TEST_MNEMONIC"] = Self.abandon
        let phrase = try home.write(Self.abandon, to: "phrase.txt")
        // The recommended forms: a secret read from the environment or a file.
        for program in [
            "mnemonic.check (env \"KCS_TEST_MNEMONIC\" --secret mnemonic)",
            "print (mnemonic.check (file.read \"\(phrase)\" --secret mnemonic)).valid",
        ] {
            let r = try home.run(arguments: ["-e", program])
            #expect(r.code == 0 && !r.err.contains(Self.warning), "\(program): \(r.err)")
        }
        let digest = try home.run(arguments: [
            "-e", "sign 0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8 --dry-run",
        ])
        #expect(digest.code == 0 && !digest.err.contains(Self.warning), "a digest is not a key: \(digest.err)")
        // Secret text on the command line: warned.
        for program in [
            "mnemonic.check \"\(Self.abandon)\"",
            "sign message \"x\" --key 0x4646464646464646464646464646464646464646464646464646464646464646",
        ] {
            let r = try home.run(arguments: ["-e", program])
            #expect(r.err.contains(Self.warning), "\(program): \(r.err)")
        }
        // An unset variable read as a secret is named.
        let unset = try home.run(arguments: [
            "-e", "mnemonic.check (env \"KCS_TEST_UNSET_VARIABLE\" --secret mnemonic)",
        ])
        #expect(unset.err.contains("environment variable KCS_TEST_UNSET_VARIABLE is not set"), "\(unset.err)")
        #expect(!unset.err.contains("got nil"))
    }

    /// `--key` takes a private key written out, as `cast wallet sign --private-key` does: 32
    /// bytes of hex, a WIF, an xprv. EIP-155's example key signs as its published address.
    @Test func keyValuesGivenToKey_sign() throws {
        let home = try BatchHome()
        defer { home.remove() }
        // Bitcoin wiki's WIF example and its private key in hex: one key, one signer.
        let r = try home.run(
            """
            print "HEX", (sign message "x" --key 0x4646464646464646464646464646464646464646464646464646464646464646).signer
            print "WIF", (sign message "x" --key "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ").signer
            print "WIFHEX", (sign message "x" --key 0x0C28FCA386C7A227600B2FE50B7CAE11EC86D3BF1FBE471BE89827E19D72AA1D).signer
            print "XPRV", (sign message "x" --key "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi").verified
            try { sign message "x" } catch e { print "NOKEY", e.message }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("HEX", in: r.out) == ["0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F"])
        let wif = tagged("WIF", in: r.out)
        #expect(wif.count == 1 && wif == tagged("WIFHEX", in: r.out), "\(r.out)")
        #expect(tagged("XPRV", in: r.out) == ["true"])
        let noKey = try #require(tagged("NOKEY", in: r.out).first)
        #expect(noKey.contains("`use card`") && noKey.contains("--key VALUE"), "\(noKey)")
    }

    @Test func hints_forWhatANewUserTried() throws {
        let home = try BatchHome()
        defer { home.remove() }
        func err(_ program: String) throws -> String { try home.run(arguments: ["-e", program]).err }
        #expect(
            try err("let x = 1\nif x == 1 { print 1 }\nelse { print 2 }").contains(
                "hint: `else` goes on the line of the `}` it follows"))
        #expect(try err("print card.lee").contains("`card.lee` is a command, not a variable's field"))
        let signed =
            "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83"
        #expect(try err("print (tx.decode \"\(signed)\").from").contains("hint: its fields: type, chainId, nonce"))
        #expect(
            try err("import mnemonic \"\(Self.abandon)\" --preset custom --path \"m/44'/60'/{i}'/0/0\"")
                .contains("`*` stands for the account"))
        let master = try err("import mnemonic \"\(Self.abandon)\" --name hot\nuse key hot")
        #expect(master.contains("hot is an HD master: it signs through a child, such as `use key hot-0`"), "\(master)")
        // kcs check --json keeps the hint the text shows.
        let file = try home.write("if true { print 1 }\nelse { print 2 }\n", to: "else.kcs")
        let check = try home.run(arguments: ["check", "--json", file])
        #expect(
            check.err.contains("\"hint\":\"`else` goes on the line of the `}` it follows: `} else {`\""), "\(check.err)"
        )
        // A statement whose value is nil prints nothing (as sqlite3 prints nothing).
        let lock = try home.run(arguments: ["-e", "vault.lock\nprint \"after\""])
        #expect(lock.code == 0 && lock.out == "after\n", "\(lock.out)")
    }

    /// The values a script reads are data: full addresses, one history shape.
    @Test func keyListAndHistory_areData_inOneShape() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            import mnemonic "\(Self.abandon)" --name hot
            sign message "one" --key hot-0
            sign tx {"chainId": 1, "to": "0x3535353535353535353535353535353535353535", "gas": 21000, "maxFeePerGas": "1 gwei", "maxPriorityFeePerGas": "1 gwei"} --key hot-0 --offline
            print "ADDR", key.list()[1].address
            print "VALUE", json(history())
            print "JSON", (history --json)
            print "CSV", (history --csv)
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("ADDR", in: r.out) == ["0x9858EfFD232B4033E47d90003D41EC34EcaEda94"])
        let value = try #require(tagged("VALUE", in: r.out).first), json = try #require(tagged("JSON", in: r.out).first)
        #expect(value == json, "the value and --json are one shape")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        // CSV: its header is the JSON's keys in order, and each line the same values.
        let csvStart = try #require(r.out.range(of: "CSV "))
        let csv = r.out[csvStart.upperBound...].split(separator: "\r\n").map(String.init).filter {
            !$0.hasPrefix("\n") && !$0.isEmpty
        }
        let header = csv[0].split(separator: ",").map(String.init)
        #expect(
            header == [
                "id", "time", "key", "kind", "digest", "digestName", "signature", "signer", "verified", "chainId",
            ])
        let order = try #require(json.firstRange(of: "{").map { json[$0.lowerBound...] })
        #expect(header.allSatisfy { order.contains("\"\($0)\":") })
        #expect(records.count == 2 && csv.count == 3)
        for (record, line) in zip(records, csv.dropFirst()) {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            for (name, cell) in zip(header, cells) {
                let expected: String =
                    switch record[name] {
                    case let n as NSNumber where name == "verified": n.boolValue ? "true" : "false"
                    case let n as NSNumber: n.stringValue
                    case let s as String: s
                    default: ""
                    }
                #expect(cell == expected, "\(name): csv \(cell), json \(expected)")
            }
        }
        #expect(records[0]["chainId"] as? Int == 1 && records[1]["chainId"] is NSNull)
    }

    /// `kcs cosigner serve --socket PATH` removes only a stale socket at PATH, never a file.
    @Test func cosignerSocket_neverDeletesAFile() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let file = try home.write("precious\n", to: "notes.txt")
        let r = try home.run(arguments: ["cosigner", "serve", "--socket", file, "--sessions", "1"])
        #expect(
            r.code != 0 && r.err.contains("exists and is not a socket; kcs removes only a stale socket"), "\(r.err)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "precious\n")
        // The subcommand calls the co-signer itself: its error names it, and no script made from
        // its options shows (a `{` or a newline in an address is taken as written).
        #expect(r.err.hasPrefix("kcs cosigner serve: error: cannot listen on unix:\(file): "), "\(r.err)")
        #expect(!r.err.contains("mpc.serve"), "\(r.err)")
        let odd = try home.run(arguments: ["cosigner", "serve", "--listen", "127.0.0.1:{x}\n", "--sessions", "1"])
        #expect(
            odd.code == 70
                && odd.err
                    == "kcs cosigner serve: error: expected HOST:PORT (IPv4) or unix:PATH, got 127.0.0.1:{x}\n\n",
            "\(odd.err)")
    }

    /// A refused `vault.change-passphrase --new "…"` shows the new passphrase nowhere.
    @Test func refusedNewPassphrase_isNotInTheErrorExcerpt() throws {
        let home = try BatchHome()
        defer { home.remove() }
        _ = try home.run("key.generate --type ecdsa --name k", name: "k.kcs")
        let r = try home.run("vault.change-passphrase --new \"brand new secret passphrase\"\n", name: "v.kcs")
        #expect(r.code != 0 && r.err.contains("--new <secret>"), "\(r.err)")
        #expect(!r.err.contains("brand new secret"))
    }

    /// `card.readers` with no PC/SC service lists the simulated cards and says that PC/SC is
    /// unavailable (it said nothing, as if no reader were attached).
    @Test func readers_sayWhenPCSCIsUnavailable() throws {
        var home = try BatchHome()
        defer { home.remove() }
        home.environment["PCSCLITE_CSOCK_NAME"] = home.path("no-pcscd-here.comm")
        let r = try home.run(arguments: [
            "-e", "card.connect\nprint \"R\", len(card.readers()), (card.readers())[0].kind",
        ])
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("R", in: r.out) == ["1 sim"], "\(r.out)")
        #expect(r.err.contains("card.readers: PC/SC is unavailable, so no reader is listed"), "\(r.err)")
    }

    /// `kcs sim attach` on a card file it cannot open is an error (said on standard error, exit
    /// 76), not a clean exit 0; `kcs cosigner …` is a subcommand even beside a file so named.
    @Test func simAttachErrors_exitWithACardStatus_andCosignerIsASubcommand() throws {
        let home = try BatchHome()
        defer { home.remove() }
        try FileManager.default.createDirectory(atPath: home.path("home/cards"), withIntermediateDirectories: true)
        _ = try home.write("{not json", to: "home/cards/broken.json")
        let r = try home.run(arguments: ["sim", "attach", "--card", "broken"])
        #expect(r.code == 76, "\(r.out)\(r.err)")
        #expect(r.err.hasPrefix("kcs sim: error: "), "\(r.err)")
        // A home whose cards folder cannot be made: the same, not the argument parser's raw error and 1.
        let noHome = try home.run(arguments: ["sim", "list", "--home", "/proc/self/no-such-home"])
        #expect(noHome.code == 76 && noHome.err.hasPrefix("kcs sim: error: "), "\(noHome.code) \(noHome.err)")
        _ = try home.write("print \"A SCRIPT RAN\"", to: "cosigner")
        let help = try home.run(arguments: ["cosigner", "--help"])
        #expect(!help.out.contains("A SCRIPT RAN") && help.out.contains("serve"), "\(help.out)\(help.err)")
    }
}
