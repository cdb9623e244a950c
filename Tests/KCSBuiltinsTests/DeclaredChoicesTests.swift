// Choices, ranges and aliases declared in the tables (docs/language.md §4): `bind` checks
// them with the message the bodies used to write, and `help` shows them.
import KCSRuntime
import Testing

@testable import KCSBuiltins

@Suite struct DeclaredChoicesTests {
    @Test func choicesAndRanges_areCheckedByBind() {
        #expect(
            Call.message("card.change", [.string("bogus")])
                == "card.change: --what must be one of pin, puk, pairing, got bogus")
        #expect(
            Call.message("card.load", [.string("colour")])
                == "card.load: --what must be one of mnemonic, seed, keypair, got colour")
        #expect(
            Call.message("key.generate", [], [("type", .string("rsa"))])
                == "key.generate: --type must be one of ecdsa, hd, hd-master, got rsa")
        #expect(
            Call.message("key.generate", [], [("words", .int(15))])
                == "key.generate: --words must be one of 12, 24, got 15")
        #expect(
            Call.message("mnemonic.generate", [], [("words", .int(13))])
                == "mnemonic.generate: --words must be one of 12, 15, 18, 21, 24, got 13")
        #expect(
            Call.message("card.init", [], [("pin-tries", .int(11))]) == "card.init: --pin-tries must be 2 to 10, got 11"
        )
        #expect(
            Call.message("card.init", [], [("puk-tries", .int(2))]) == "card.init: --puk-tries must be 3 to 12, got 2")
        #expect(
            Call.message("history", [], [("kind", .string("x"))])
                == "history: --kind must be one of hash, message, typed, transaction, authorization, bitcoin, signer, got x")
        do {
            _ = try Call.registry.lookup("card.change")!.bind([.string("bogus")], options: [])
            Issue.record("bound")
        } catch {
            #expect(error.id == "builtin.badChoice")
        }
    }

    /// Options that need another or exclude others are declared as rules in the tables: `bind`
    /// refuses them before any body runs (no session is needed here), with the sentences the
    /// bodies used to write.
    @Test func optionRules_areCheckedByBind_withTheBodiesOldWords() {
        let digest = Value.bytes([UInt8](repeating: 1, count: 32))
        #expect(
            Call.message("sign", [digest], [("tweak", .string("taproot"))])
                == "sign: --tweak does not apply here: it goes with --schnorr")
        #expect(
            Call.message("sign", [digest], [("make-current", nil)])
                == "sign: --make-current does not apply here: it goes with --path P")
        #expect(
            Call.message("sign", [digest], [("pinless", nil), ("path", .string("m/0"))])
                == "sign: --pinless does not apply here: the card signs with its PIN-less path; drop --path and --make-current"
        )
        #expect(
            Call.message("sign", [digest], [("schnorr", nil), ("key", .string("k"))])
                == "sign: --key does not apply here: --schnorr signs with the logged-in 4.0 card (--path chooses its key)"
        )
        #expect(
            Call.message("eth.node", [.string("http://127.0.0.1:1")], [("clear", nil)])
                == "eth.node: --clear does not apply here: it takes no URL")
        #expect(
            Call.message("eth.node", [], [("clear", nil), ("timeout", .int(3))])
                == "eth.node: --clear does not apply here: it forgets the node; drop --timeout")
        #expect(
            Call.message("key.flag", [.string("k")], [("clear", nil), ("exposed", nil)])
                == "key.flag: --exposed does not apply here: --clear removes the flag")
        #expect(
            Call.message("card.pinless", [.string("m/0")], [("clear", nil)])
                == "card.pinless: --clear does not apply here: give a PATH or --clear, not both")
        #expect(
            Call.message("card.mnemonic", [], [("passphrase", .string("x"))])
                == "card.mnemonic: --passphrase does not apply here: it goes with --load")
        #expect(
            Call.message("wallet.discover", [], [("card", nil), ("key", .string("k"))])
                == "wallet.discover: --card does not apply here: it discovers on the card; drop --key")
        #expect(
            Call.message("wallet.discover", [], [("api-key", .string("k"))])
                == "wallet.discover: --api-key does not apply here: it goes with --explorer URL")
    }

    /// What a batch run's pre-check and `--qr` need to know of a command is a fact of its table entry.
    @Test func traits_andQRForms_areDeclaredInTheEntries() {
        let registry = Builtins.registry()
        let vault = registry.builtins.filter { $0.traits.contains(.opensVault) }.map(\.name)
        let card = registry.builtins.filter { $0.traits.contains(.changesCard) }.map(\.name)
        #expect(vault.contains("card.pair") && vault.contains("keystore.save") && !vault.contains("card.init"))
        #expect(card.contains("card.init") && card.contains("card.pinless") && !card.contains("card.login"))
        #expect(registry.lookup("derive")?.qr == .field("address"))
        #expect(registry.lookup("derive")?.options.last?.name == "qr")
        #expect(registry.lookup("address")?.qr == .value)
        #expect(
            registry.lookup("sign")?.qr == nil && registry.lookup("sign")?.options.contains { $0.name == "qr" } == false
        )
    }

    @Test func help_showsChoicesRangesAndAliases() {
        let registry = Builtins.registry()
        #expect(
            registry.help("card.change") == """
                card.change WHAT [VALUE]
                  Changes the PIN, the PUK or the pairing password (asked twice at a terminal); needs card.login.
                  WHAT: one of pin, puk, pairing
                  example: card.change pin (env "KC_NEW_PIN" --secret pin)
                """)
        let generate = registry.help("key.generate") ?? ""
        #expect(
            generate.contains(
                "\n  --type (one of ecdsa, hd, hd-master)  ecdsa (one key) or hd (a mnemonic; the default; also written hd-master)\n"
            ))
        #expect(generate.contains("\n  --words (one of 12, 24)  12 or 24 words for --type hd (default 12)\n"))
        #expect(
            registry.help("card.init")?.contains("\n  --pin-tries (an int, 2 to 10)  PIN tries, 2 to 10 (default 3)\n")
                == true)
        #expect(registry.help("eth.chainId") == registry.help("eth.chain-id"))
        #expect(registry.help("eth.chain-id")?.hasPrefix("eth.chain-id [--rpc RPC]") == true)
        #expect(registry.help("eth.chain-id")?.contains("\n  also written: eth.chainId\n") == true)
    }

    @Test func aliases_resolveToTheSameBuiltin_namedAsWritten() {
        let registry = Builtins.registry()
        #expect(registry.lookup("eth.chainId")?.name == "eth.chainId")
        #expect(registry.canonicalName("eth.chainId") == "eth.chain-id")
        #expect(registry.canonicalName("eth.gasPrice") == "eth.gas-price")
        #expect(registry.allNames.contains("eth.chainId"))
        #expect(!registry.builtins.map(\.name).contains("eth.chainId"))
        #expect(registry.help("eth")?.contains("eth.chainId") == false)
        #expect(registry.lookup("key.list")?.options.map(\.name) == ["json", "active"])
    }
}
