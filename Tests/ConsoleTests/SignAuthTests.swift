// `sign auth` at the console (docs/eth-signing.md): what is refused and why, in batch and at a
// terminal (two questions for a delegate not on the allowlist), with a software key, a key given
// as a value, the simulated 4.0 card and a two-party key (its co-signer shows the review).
import Foundation
import KCSTestSupport
import Testing

private let simple7702 = "0x4Cd241E8d1510e30b2076397afc7508Ae59C66c9"
private let unknown = "0x5ce9454909639D2D17A3F753ce7d93fa0b9aB12E"
private let keyA = "0x" + String(repeating: "aa", count: 32)
/// The address of `keyA`.
private let authorityA = "0x8fd379246834eac74B8419FfdA202CF8051F7A03"

@Suite("sign auth: EIP-7702 authorizations at the console")
struct SignAuthTests {
    /// Every refusal names its reason; nothing is signed or recorded by any of them.
    @Test func refusals_sayWhy_andSignNothing() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let setup = try home.run("import privkey \(keyA) --name a", name: "setup.kcs")
        #expect(setup.code == 0, "\(setup.err)")
        let cases: [(String, String)] = [
            ("sign auth --chain 1 --nonce 0 --key a", "--delegate"),
            (
                "sign auth --delegate \(simple7702) --chain 0 --nonce 0 --key a",
                "chain id 0 makes the authorization valid on every EVM chain"
            ),
            ("sign auth --delegate \(simple7702) --nonce 0 --key a", "expected --chain N (or --any-chain), or a node"),
            ("sign auth --delegate \(simple7702) --chain 1 --key a", "expected --nonce N"),
            (
                "sign auth --delegate \(unknown) --chain 1 --nonce 0 --key a",
                "is not on the allowlist for Ethereum mainnet (1)"
            ),
            // The shipped entry is for chain 1: every chain is another matter.
            (
                "sign auth --delegate \(simple7702) --any-chain --nonce 0 --key a",
                "is not on the allowlist for every chain"
            ),
            ("sign auth --delegate \(simple7702) --any-chain --chain 1 --nonce 0 --key a", "--any-chain is chain id 0"),
            ("sign auth --delegate 0x1234 --chain 1 --nonce 0 --key a", "0x1234"),
        ]
        for (i, (line, reason)) in cases.enumerated() {
            let r = try home.run(line, name: "refused\(i).kcs")
            #expect(r.code != 0, "\(line) was not refused")
            #expect(r.err.contains(reason), "\(line): \(r.err)")
            #expect(r.err.contains("refused\(i).kcs:1:"), "\(r.err)")
        }
        let history = try home.run("print \"H\", len((history))", name: "history.kcs")
        #expect(tagged("H", in: history.out) == ["0"], "\(history.out)\(history.err)")
    }

    /// A delegate on the allowlist and a revocation sign in batch without a flag; an unknown one
    /// with --allow-unknown-delegate; every chain with --any-chain. The tuples recover to the key.
    @Test func allowlisted_revocation_anyChain_signInBatch() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            import privkey \(keyA) --name a
            use key a
            let s = sign auth --delegate \(simple7702) --chain 1 --nonce 7
            print "S", s.chainId, s.address, s.nonce, s.authority, s.verified, s.authorization.yParity == s.yParity
            print "J", s.json
            let r = sign auth --delegate 0x0000000000000000000000000000000000000000 --chain 1 --nonce 8
            print "R", r.authority, r.verified
            let u = sign auth --delegate \(unknown) --any-chain --nonce 0 --allow-unknown-delegate
            print "U", hex(u.preimage), hex(u.digest), u.yParity, hex(u.r)
            let d = sign auth --delegate \(unknown) --any-chain --nonce 0 --dry-run
            print d.review
            print "H", len((history --kind authorization))
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("S", in: r.out) == ["1 \(simple7702) 7 \(authorityA) true true"])
        #expect(
            tagged("J", in: r.out).first?.hasPrefix(
                #"{"chainId":"0x1","address":"\#(simple7702)","nonce":"0x7","yParity":"#) == true)
        #expect(tagged("R", in: r.out) == ["\(authorityA) true"])
        // The spec's any-chain vector (eth-account 0.14, same key).
        #expect(
            tagged("U", in: r.out) == [
                "0x05d780945ce9454909639d2d17a3f753ce7d93fa0b9ab12e80 0xdc45477aefc34717d6825423cb2cbd90afa792da0d0ab4a9484b1b362f5854bf 1 0xef672935d873fb905418f29e5cc16261712a207994ec8bac0bda512f8cf5229c"
            ])
        for shown in [
            "EIP-7702 authorization: delegate the account's code", "chain                 ALL CHAINS (chain id 0)",
            "! chain id 0: this signature is valid on EVERY EVM chain", "is not on the allowlist for this chain",
            "signer                \(authorityA) (a)", "authorization digest  0xdc45477aefc34717",
        ] {
            #expect(r.out.contains(shown), "missing \(shown): \(r.out)")
        }
        #expect(tagged("H", in: r.out) == ["3"])
    }

    /// A delegate in the person's delegates.json is on the allowlist for its chain; a malformed
    /// file is an error naming it.
    @Test func delegatesFile_extendsTheAllowlist_andABadOneIsNamed() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let dir = home.folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(
            at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = dir.appendingPathComponent("delegates.json")
        try #"[{"chainId": 1337, "address": "\#(unknown)", "name": "my delegate"}]"#.write(
            to: file, atomically: true, encoding: .utf8)
        let r = try home.run(
            """
            print (sign auth --delegate \(unknown) --chain 1337 --nonce 1 --dry-run).review
            print "A", (sign auth --delegate \(unknown) --chain 1337 --nonce 1 --key \(keyA)).authority
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.contains("\(unknown) (my delegate, on your allowlist,"), "\(r.out)")
        #expect(tagged("A", in: r.out) == [authorityA])
        try #"[{"chainId": 1337, "address": "0x12"}]"#.write(to: file, atomically: true, encoding: .utf8)
        let bad = try home.run("sign auth --delegate \(unknown) --chain 1337 --nonce 1 --key \(keyA)", name: "bad.kcs")
        #expect(bad.code != 0)
        #expect(bad.err.contains("delegates file \(file.path): entry 0 must be {chainId, address, name}"), "\(bad.err)")
    }

    /// The simulated 4.0 card signs an authorization; it recovers to the card's current key.
    @Test func card40_signsAnAuthorization() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            card.connect --sim auth4 --profile 4.0
            card.init --pin "123456" --puk "111122223333" --duress "654321"
            card.login "123456"
            card.load mnemonic "\(testMnemonic)" --name kc
            use card
            derive "m/44'/60'/0'/0/0"
            let s = sign auth --delegate \(simple7702) --chain 1 --nonce 0
            print "S", s.authority, s.verified, s.key
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("S", in: r.out) == ["0x9858EfFD232B4033E47d90003D41EC34EcaEda94 true kc"])
    }

    /// At a terminal, an unknown delegate is shown and asked twice; a "no" to the second signs nothing.
    @Test func terminal_unknownDelegate_isAskedTwice() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        try t.answer("kcs> ", with: "sign auth --delegate \(unknown) --chain 1337 --nonce 1 --key \(keyA)")
        try t.answer("The delegate is not on the allowlist. Sign it? [y/N] ", with: "y")
        try t.expect(
            "Its code will control \(authorityA) on local development chain (1337), with everything the account holds.")
        try t.answer("Really sign? [y/N] ", with: "n")
        try t.answer("kcs> ", with: "sign auth --delegate \(unknown) --chain 1337 --nonce 1 --key \(keyA)")
        try t.answer("Sign it? [y/N] ", with: "y")
        try t.answer("Really sign? [y/N] ", with: "y")
        try t.expect("authority")
        let text = try t.quit()
        #expect(text.contains("EIP-7702 authorization: delegate the account's code"))
        #expect(text.contains("! the delegate \(unknown) is not on the allowlist for this chain"))
        #expect(text.contains("cancelled"), "\(text)")
        // Vector A of docs/eth-signing.md's sources: eth-account's docstring tuple.
        #expect(text.contains("0x735375048fc96b87390b5a11c411fc57245d8e55038bf49e659d048a0d1a3f87"), "\(text)")
    }
}

@Suite("sign auth with a two-party key")
struct SignAuthTwoPartyTests {
    /// The co-signer reads the authorization from its preimage and shows the review (delegate,
    /// chain, nonce, digest) before it co-signs; the tuple recovers to the joint key.
    @Test func cosigner_showsTheAuthorization_andTheTupleRecovers() throws {
        let cosignerHome = try BatchHome()
        defer { cosignerHome.remove() }
        var console = try BatchHome()
        defer { console.remove() }
        let (t, joint) = try TwoPartyConsoleTests.terminalCosigner(cosignerHome, console: console)
        let script = try console.write(
            """
            use key joint
            let a = sign auth --delegate \(simple7702) --chain 8453 --nonce 4
            print "A", a.authority, a.verified, hex(a.digest)
            """, to: "auth.kcs")
        console.environment["KCS_RPC_URL"] = nil
        let signing = try console.start(script, stdout: console.path("auth.out"), stderr: console.path("auth.err"))
        try t.answer("Co-sign it? [y/N] ", with: "y")
        signing.waitUntilExit()
        t.type("\u{03}")
        let text = t.finish().text
        let out = try String(contentsOfFile: console.path("auth.out"), encoding: .utf8)
        #expect(
            signing.terminationStatus == 0,
            "\(out)\((try? String(contentsOfFile: console.path("auth.err"), encoding: .utf8)) ?? "")")
        let fields = try #require(tagged("A", in: out).first).split(separator: " ").map(String.init)
        #expect(fields.prefix(2) == [joint, "true"])
        for shown in [
            "EIP-7702 authorization: delegate the account's code", "Base (8453)",
            "\(simple7702) (Simple7702Account", "nonce                 4", "authorization digest  \(fields[2])",
        ] {
            #expect(text.contains(shown), "missing \(shown): \(text)")
        }
    }
}

@Suite("Blob transactions at the console")
struct BlobConsoleTests {
    /// `sign tx` of a type-3 transaction: eth-account's zero-blob vector (docs/eth-signing.md), its
    /// review, and tx.decode's fields.
    @Test func signReviewAndDecode() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let tx =
            #"{"chainId": 1337, "nonce": 0, "maxFeePerGas": "1 gwei", "maxPriorityFeePerGas": "1 gwei", "gas": 21000, "to": "0x45Ae5777c9b35Eb16280e423b0d7c91C06C66B58", "maxFeePerBlobGas": "1 gwei", "blobVersionedHashes": ["0x010657f37554c781402a22917dee2f75def7ab966d7b770905398eba3c444014"]}"#
        let key = "0x" + String(repeating: "756e69636f726e73", count: 4)
        let r = try home.run(
            """
            print (sign tx \(tx) --dry-run).review
            let s = sign tx \(tx) --key \(key)
            print "H", hex(s.hash)
            let d = tx.decode(s.raw)
            print "D", d.type, d.maxFeePerBlobGas, d.blobVersionedHashes, d.sender
            try { sign tx {"type": 3, "chainId": 1, "gas": 21000, "maxFeePerGas": 1, "maxPriorityFeePerGas": 1, "to": "0x45Ae5777c9b35Eb16280e423b0d7c91C06C66B58", "blobVersionedHashes": ["0x020657f37554c781402a22917dee2f75def7ab966d7b770905398eba3c444014"]} --key \(key) } catch e { print "E", e.message }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("H", in: r.out) == ["0x038d766bcfc614387438bf5af2ba53444405e836470f3f4285eb7404177917b8"])
        #expect(
            tagged("D", in: r.out) == [
                "EIP-4844 1000000000 [0x010657f37554c781402a22917dee2f75def7ab966d7b770905398eba3c444014] 0xa79F6f349C853F9Ea0B29636779ae3Cb4E3BA729"
            ])
        for shown in ["EIP-4844 blob transaction (type 3)", "blobs", "max fee per blob gas", "worst-case blob fee"] {
            #expect(r.out.contains(shown), "missing \(shown): \(r.out)")
        }
        #expect(
            tagged("E", in: r.out) == [
                "transaction blobVersionedHashes[0] must start with 0x01 (VERSIONED_HASH_VERSION_KZG), got 0x02"
            ], "\(r.out)")
    }
}
