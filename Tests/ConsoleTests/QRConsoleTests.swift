// The "QR code" way to create a key, with images made by code kcs did not write: segno draws the
// published URs (BCR-2020-006's crypto-seed, Keystone's Ethereum crypto-hdkey), a SeedQR and a
// CompactSeedQR, an EIP-681 URI, and every part foundation-ur-py made for a multi-part UR; the kcs
// binary reads them (a shuffled subset of the frames, with repeats) and stores or shows what they
// hold. Bad input names the file and stores nothing (docs/qr.md).
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

@Suite("QR codes at the console, from images made by segno")
struct QRConsoleTests {
    static let abandon = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

    /// segno draws `payload` into `name` in the home's folder (TEXT: segno picks segments; BYTES: byte mode).
    func draw(_ payload: [UInt8], _ mode: String, _ name: String, in home: BatchHome) throws -> String {
        let file = home.path(name)
        _ = try QROracle.run(["make", Hex.encode(payload), mode, file, "L"])
        return file
    }

    @Test func seedUR_seedQR_compactSeedQR_andWords_becomeTheSameKindOfKey() throws {
        var home = try BatchHome()
        defer { home.remove() }
        // BCR-2020-006's crypto-seed (entropy c7098580…2dbc52), upper case as QR codes carry URs.
        let seedUR = "UR:CRYPTO-SEED/OEADGDSTASLPLABGHYDRPFMKBGGUFGLUDPRFGMAOTPIECFFLTNLPQDENOS"
        _ = try draw(Array(seedUR.utf8), "TEXT", "seed.png", in: home)
        // SeedQR of "abandon … about": each word's index, 4 digits (11 × 0000, then 0003).
        _ = try draw(Array((String(repeating: "0000", count: 11) + "0003").utf8), "TEXT", "seedqr.png", in: home)
        // CompactSeedQR: the 16 bytes of entropy themselves, zero bytes and all (zbar's binary mode).
        _ = try draw([UInt8](repeating: 0, count: 16), "BYTES", "compact.png", in: home)
        _ = try draw(Array(Self.abandon.utf8), "TEXT", "words.png", in: home)
        let r = try home.run(
            """
            for f in ["seed.png", "seedqr.png", "compact.png", "words.png"] {
              let s = qr.read $f
              let k = import qr $f --name $f
              print f, s.form, s.words, k[0].kind, k[1].address
            }
            """)
        #expect(r.code == 0, "\(r.err)")
        let expected = try Mnemonic(entropy: Hex.decode("c7098580125e2ab0981253468b2dbc52"))
        let seedAddress = try EthereumAddress(
            publicKey: ExtendedKey.master(seed: expected.seed()).derive("m/44'/60'/0'/0/0").publicKey
        ).checksummed
        #expect(
            r.out == """
                seed.png crypto-seed 12 HD-MASTER \(seedAddress)
                seedqr.png SeedQR 12 HD-MASTER 0x9858EfFD232B4033E47d90003D41EC34EcaEda94
                compact.png CompactSeedQR 12 HD-MASTER 0x9858EfFD232B4033E47d90003D41EC34EcaEda94
                words.png words 12 HD-MASTER 0x9858EfFD232B4033E47d90003D41EC34EcaEda94

                """)
        #expect(!r.out.contains("abandon") && !r.err.contains("abandon"), "the words are a secret")
    }

    @Test func hdkeyUR_andEIP681_becomeWatchOnlyKeys() throws {
        var home = try BatchHome()
        defer { home.remove() }
        // Keystone's Ethereum crypto-hdkey: "abandon … about" at m/44'/60'/0' (keystone-sdk-base tests).
        let hdkey =
            "UR:CRYPTO-HDKEY/OXAXHDCLAOWDVEROKOPDINHSEEROISYALKSAYKCTJSHEDPRNUYJYFGROVAWEWFTYGHCEGLRPKGAAHDCXTPLFJSLUKNFWLAISAXWYPALBJYLSWZAMCXHSCYUYLOZTMWFNLDLGSKPYPTGSDECFAMTAADDYOEADLNCSDWYKCSFNYKAEYKAOCYWLCSCEWFAYCYTEDMFEAYGHLPTNIN"
        _ = try draw(Array(hdkey.utf8), "TEXT", "hdkey.png", in: home)
        _ = try draw(Array("ethereum:0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0@1".utf8), "TEXT", "uri.png", in: home)
        let r = try home.run(
            """
            let x = qr.read "hdkey.png"
            print x.kind, x.form, x.path, x.masterFingerprint, x.address
            print x.xpub
            let w = import qr "hdkey.png" --name metamask-watch
            print w[0].kind, w[0].address
            let a = import qr "uri.png"
            print a[0].kind, a[0].address
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(
            r.out == """
                xpub crypto-hdkey m/44'/60'/0' e9181cf3 0x9858EfFD232B4033E47d90003D41EC34EcaEda94
                xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt
                WATCH 0x9858EfFD232B4033E47d90003D41EC34EcaEda94
                WATCH 0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0

                """)
    }

    /// foundation-ur-py's parts of a 1000-byte message (Vectors of WalletCoreTests), drawn by segno
    /// as frames: a shuffled 80 % with repeats is enough; half of them is not; a frame of another
    /// UR among them is named.
    @Test func multiPartUR_fromFramesInAnyOrder() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let file = TestPaths.root.appendingPathComponent("Tests/WalletCoreTests/Vectors/ur-multipart-bytes.json")
        let vectors = JSON(try JSONSerialization.jsonObject(with: Data(contentsOf: file))).objects("cases")
        let psbt = try #require(vectors.first { $0.string("label") == "psbt-like" })
        let parts = psbt.strings("parts")
        let frames = try home.path("frames")
        try FileManager.default.createDirectory(atPath: frames, withIntermediateDirectories: true)
        var rng = Xoshiro256(string: "frames")
        let order = FountainCode.shuffled(Array(parts.indices), random: &rng, count: parts.count * 4 / 5)
        for (n, i) in (order + order.prefix(3)).enumerated() {
            _ = try draw(Array(parts[i].uppercased().utf8), "TEXT", String(format: "frames/%03d.png", n), in: home)
        }
        for i in 0..<3 { _ = try draw(Array(parts[i].uppercased().utf8), "TEXT", "few-\(i).png", in: home) }
        let other = vectors.first { $0.string("label") == "seed-like" }!.strings("parts")[0]
        _ = try draw(Array(other.uppercased().utf8), "TEXT", "other.png", in: home)
        _ = try draw(Array("just text".utf8), "TEXT", "text.png", in: home)
        // The same frames as one animated GIF (pillow), in a shuffled order.
        let gifFrames = (order + order.prefix(3)).indices.map { String(format: "frames/%03d.png", $0) }
        _ = try QROracle.run(["gif", home.path("animated.gif")] + gifFrames.reversed().map { home.path($0) })
        let r = try home.run(
            """
            print (qr.read "animated.gif").cbor == (qr.read "frames/").cbor
            let u = qr.read "frames/"
            print u.kind, u.type, len(u.cbor), u.cbor == \(psbt.string("cbor_hex").hasPrefix("0x") ? "" : "0x")\(psbt.string("cbor_hex"))
            try { qr.read ["few-0.png", "few-1.png"] } catch e { print e.kind, e.message }
            try { qr.read ["few-0.png", "other.png"] } catch e { print e.kind, e.message }
            try { qr.read ["few-0.png", "text.png"] } catch e { print e.kind, e.message }
            try { import qr "frames/" } catch e { print e.kind, e.message }
            print len(key.list())
            """)
        #expect(r.code == 0, "\(r.err)")
        var lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "true", "the animated GIF gives the same message")
        lines.removeFirst()
        #expect(lines.first == "ur bytes \(psbt.string("cbor_hex").count / 2) true")
        #expect(
            lines.dropFirst().first?.hasPrefix("qr.incomplete the multi-part UR is incomplete: 2 of 6 fragments")
                == true, "\(lines)")
        #expect(
            lines.dropFirst(2).first
                == "ur.otherMessage \(home.path("other.png")): parts of two different URs are mixed: this part belongs to another message"
                || lines.dropFirst(2).first
                    == "ur.otherMessage other.png: parts of two different URs are mixed: this part belongs to another message",
            "\(lines)")
        #expect(lines.dropFirst(3).first?.hasPrefix("qr.mixed text.png") == true, "\(lines)")
        #expect(lines.dropFirst(4).first == "qr.notAKey the QR code holds a ur:bytes, not a key to import")
        #expect(lines.last == "0", "nothing stored")
    }

    /// The account MetaMask pairs with, from a software key and from the simulated card (3.1 and
    /// 4.0), read by urtypes (an independent reader of crypto-hdkey) as the account's xpub.
    @Test func exportedAccount_isReadByURTypes_fromTheSoftwareKeyAndTheCard() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            import mnemonic "\(Self.abandon)" --name hot
            use key hot-0
            let e = qr.export
            print (ur.decode $e.ur).cbor
            for p in ["3.1.0", "4.0"] {
              card.connect --sim "export-{p}" --profile $p
              if p == "4.0" { card.init --pin "123456" --puk "111122223333" --duress "654321" } else { card.init --pin "123456" --puk "111122223333" --pairing "pw"; card.pair --password "pw" }
              card.login "123456"
              card.load mnemonic "\(Self.abandon)" --name "kc-{p}"
              use card
              let c = qr.export
              print (ur.decode $c.ur).cbor
            }
            """)
        #expect(r.code == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map { String($0.dropFirst(2)) }
        #expect(lines.count == 3)
        for cbor in lines {
            #expect(
                try QROracle.run(["hdkey", cbor], script: "ur.py")
                    == "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt\n"
            )
            let key = try URHDKey(cbor: CBOR(decoding: Hex.decode(cbor)))
            #expect(
                key.origin?.sourceFingerprint == 0x73C5_DA0A && key.origin?.text == "m/44'/60'/0'"
                    && key.note == "account.standard")
        }
    }

    /// crypto-account for Sparrow (Bitcoin account 0: BIP-44/49/84/86) and for MetaMask's pubkey
    /// mode (5 Ledger Live accounts), read by urtypes; the taproot xpub is BIP-86's published one.
    @Test func accountExports_areReadByURTypes() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            import mnemonic "\(Self.abandon)" --name hot
            use key hot-0
            let s = qr.export --for sparrow
            print (ur.decode $s.ur).cbor
            let l = qr.export --for ledger-live
            print (ur.decode $l.ur).cbor
            try { qr.export --for trezor } catch e { print e.kind }
            """)
        #expect(r.code == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        try #require(lines.count == 3)
        #expect(lines[2] == "builtin.badChoice")
        let sparrow = try QROracle.run(["account", String(lines[0].dropFirst(2))], script: "ur.py").split(
            separator: "\n")
        #expect(sparrow.first == "73c5da0a" && sparrow.count == 5)
        #expect(
            sparrow[1].hasPrefix(
                "pkh([73c5da0a/44'/0'/0']xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj/0/*)"
            ))
        #expect(
            sparrow[2].hasPrefix("sh(wpkh([73c5da0a/49'/0'/0']") && sparrow[3].hasPrefix("wpkh([73c5da0a/84'/0'/0']"))
        #expect(
            sparrow[4].hasPrefix(
                "tr([73c5da0a/86'/0'/0']xpub6BgBgsespWvERF3LHQu6CnqdvfEvtMcQjYrcRzx53QJjSxarj2afYWcLteoGVky7D3UKDP9QyrLprQ3VCECoY49yfdDEHGCtMMj92pReUsQ/0/*)"
            ))
        let ledger = try QROracle.run(["account", String(lines[1].dropFirst(2))], script: "ur.py").split(
            separator: "\n")
        #expect(
            ledger.count == 6
                && ledger.dropFirst().enumerated().allSatisfy { $1.hasPrefix("[73c5da0a/44'/60'/\($0)'/0/0]") },
            "\(ledger)")
        let account = try URAccount(cbor: CBOR(decoding: Hex.decode(String(lines[1].dropFirst(2)))))
        let first = try #require(account.outputs.first?.hdKey)
        #expect(
            EthereumAddress(publicKey: try PublicKey(bytes: first.keyData.bytesCopy)).checksummed
                == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        #expect(first.note == "account.ledger_live")
    }

    /// A UR too long for one code a camera reads (Sparrow's crypto-account: 4 outputs) is shown
    /// as its parts: `qr.save … FILE.gif` writes them animated (pillow and zxing-cpp read every
    /// frame; kcs reads the account back), `--qr` plays them at a terminal, and in a batch run
    /// says how to show them instead of drawing one code too large to read.
    @Test func longUR_isAnimated_inAGIF_andAtATerminal() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            import mnemonic "\(Self.abandon)" --name hot
            use key hot-0
            let s = qr.export --for sparrow
            print "SAVED", len((qr.save $s.ur "account.gif").files)
            let back = qr.read "account.gif"
            print "BACK", back.kind, back.masterFingerprint, len(back.outputs), back.outputs[3].xpub
            let q = qr.export --for sparrow --qr
            print "QR", type(q)
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("SAVED", in: r.out) == ["1"])
        // BIP-86's published account xpub, read back from the GIF's frames.
        #expect(
            tagged("BACK", in: r.out) == [
                "crypto-account 73c5da0a 4 xpub6BgBgsespWvERF3LHQu6CnqdvfEvtMcQjYrcRzx53QJjSxarj2afYWcLteoGVky7D3UKDP9QyrLprQ3VCECoY49yfdDEHGCtMMj92pReUsQ"
            ], "\(r.out)")
        #expect(tagged("QR", in: r.out) == ["map"], "the value itself, not a code too large to read")
        #expect(r.err.contains("--qr: this UR needs "), "\(r.err)")
        let frames = try QROracle.run(["read-gif", home.path("account.gif")]).split(separator: "\n").map(String.init)
        let parts = frames.dropLast().map { String(decoding: try! Hex.decode($0), as: UTF8.self).lowercased() }
        #expect(
            parts.count >= 3
                && parts.enumerated().allSatisfy { $1.hasPrefix("ur:crypto-account/\($0 + 1)-\(parts.count)/") },
            "\(parts)")
        #expect(frames.last == "delay 200 loop 0", "\(frames.last ?? "")")

        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        try t.answer("kcs> ", with: "use key hot-0")
        try t.answer("kcs[hot-0]> ", with: "qr.export --for sparrow --qr")
        try t.answer("vault passphrase: ", with: BatchHome.vaultPassphrase)
        try t.expect("fragment 1 of \(parts.count)")
        t.type("\u{03}")
        try t.answer("kcs[hot-0]> ", with: ".quit")
        #expect(t.finish().status == 0)
    }

    /// 32 bytes in a code are a CompactSeedQR of 24 words or a private key: `import qr` names both
    /// addresses and stores nothing until `--as` says which (it imported the words silently).
    @Test func thirtyTwoBytes_needTheReadingSaid() throws {
        let home = try BatchHome()
        defer { home.remove() }
        // web3.js's documented example key (address 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23), written by segno
        // as one byte segment; and its first 16 bytes (a CompactSeedQR of 12 words, nothing else).
        let key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        _ = try QROracle.run(["make", key, "BYTES", home.path("k.png"), "L"])
        _ = try QROracle.run(["make", String(key.prefix(32)), "BYTES", home.path("s.png"), "L"])
        let r = try home.run(
            """
            try { import qr "k.png" } catch e { print "AMBIGUOUS", e.kind, contains(e.message, "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23") }
            print "KEYS", len(key.list())
            print "PRIV", (import qr "k.png" --as privkey --name k)[0].address
            print "SEED", (import qr "k.png" --as seedqr --name s)[0].kind
            try { import qr "s.png" --as privkey } catch e { print "SIXTEEN", e.kind }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("AMBIGUOUS", in: r.out) == ["qr.ambiguousKey true"], "\(r.out)")
        #expect(tagged("KEYS", in: r.out) == ["0"])
        #expect(tagged("PRIV", in: r.out) == ["0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"])
        #expect(tagged("SEED", in: r.out) == ["HD-MASTER"])
        #expect(tagged("SIXTEEN", in: r.out) == ["qr.readingNotApplicable"])
    }

    /// `qr.play` at a terminal: frames on the alternate screen, the fragments then fountain parts,
    /// until Ctrl-C, which leaves the terminal as it was and ends the run cleanly; in a pipe, the
    /// parts one per line, which decode back to the message.
    @Test func qrPlay_animatesUntilCtrlC_andPrintsThePartsInAPipe() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let message = "0x5901f4" + String(repeating: "a5", count: 500)
        let code = "qr.play (ur.encode \"bytes\" \(message)) --fragment 120 --fps 20"
        let t = try TerminalSession(environment: home.environment, folder: home.folder, arguments: ["-e", code])
        try t.expect("fragment 1 of 5")
        try t.expect("fountain part 6")
        t.type("\u{03}")
        let (text, status) = t.finish()
        #expect(status == 0, "\(text.suffix(300))")
        #expect(text.contains("\u{1B}[?1049h\u{1B}[?25l"), "the alternate screen, the cursor hidden")
        #expect(
            text.hasSuffix("\u{1B}[?25h\u{1B}[?1049l") || text.contains("\u{1B}[?25h\u{1B}[?1049l"), "both put back")
        #expect(text.contains("\u{1B}[?2026h\u{1B}[H█"), "each frame in one synchronized update")

        let r = try home.run(
            """
            let u = ur.encode "bytes" \(message) --fragment 120
            let played = qr.play $u --fragment 120
            let parts = split(played, "\\n")
            print len(parts), len((ur.decode $parts).cbor)
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out == "5 503\n")
    }

    @Test func imagesWithoutACode_andNotPNG_areNamed() throws {
        var home = try BatchHome()
        defer { home.remove() }
        _ = try home.write("not an image", to: "note.png")
        _ = try home.write("<svg/>", to: "drawing.svg")
        let r = try home.run(
            """
            qr.save "KCS" "blank.png" --scale 1 --margin 0
            try { qr.read "note.png" } catch e { print e.kind }
            try { qr.read "blank.png" } catch e { print e.kind }
            try { qr.read "drawing.svg" } catch e { print e.kind }
            try { qr.read "empty/" } catch e { print e.kind }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out == "qr.notPNG\nqr.noCode\nqr.notPNG\nqr.unreadable\n")
    }

    /// An EIP-681 payment request drawn by segno keeps its chain and amount when kcs reads it
    /// (they were dropped: only the address was kept).
    @Test func paymentRequest_keepsChainAndAmount() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let uri = "ethereum:0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359@137?value=2.014e18"
        _ = try QROracle.run(["make", Hex.encode(Array(uri.utf8)), "TEXT", home.path("pay.png"), "L"])
        let r = try home.run(
            """
            let p = qr.read "pay.png"
            print p.kind, p.address, p.chainId, p.value
            print p.chain, "|", p.amount
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(
            r.out == """
                payment 0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359 137 2014000000000000000
                Polygon PoS (137) | 2.014 POL (2,014,000,000,000,000,000 wei)

                """, "\(r.out)")
    }

    /// Secrecy by content: words or a key held as plain text are drawn only with --reveal, and
    /// then written owner-only, as a secret value is.
    @Test func plainTextKeyMaterial_needsReveal_andIsWrittenOwnerOnly() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let words = "legal winner thank year wave sausage worth useful legal winner thank yellow"
        let r = try home.run(
            """
            try { qr.save "\(words)" "w.png" } catch e { print "W", e.kind }
            try { qr.save 0x4646464646464646464646464646464646464646464646464646464646464646 "k.png" } catch e { print "K", e.kind }
            qr.save "\(words)" "w.png" --reveal
            qr.save "hello" "h.png"
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(
            tagged("W", in: r.out) == ["builtin.optionNotApplicable"]
                && tagged("K", in: r.out) == ["builtin.optionNotApplicable"])
        #expect(!FileManager.default.fileExists(atPath: home.path("k.png")))
        let mode = { (f: String) in
            try FileManager.default.attributesOfItem(atPath: home.path(f))[.posixPermissions] as? Int
        }
        #expect(try mode("w.png") == 0o600 && mode("h.png") == 0o644)
    }
}
