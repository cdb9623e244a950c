// Two-party ECDSA in one process (docs/two-party-protocol.md): pairing, DKG of both kinds,
// signing plain and HD children; the joint key reconstructed (here only) from both shares; every
// signature checked by libsecp256k1's verify and recovery, an HD child against ordinary BIP-32
// derivation and the published BIP-32 vector 2; Paillier against Python's integers.
import Foundation
import Testing
import WalletCore
import WalletCrypto

@testable import WalletMPC

/// One pairing for the whole suite (two safe-prime searches take a second or two).
let sharedPairing: UnknownOrderGroup = {
    let p1 = PairingParty1(pid1: TwoPartyFixture.pid1, pid2: TwoPartyFixture.pid2)
    let p2 = PairingParty2(pid1: TwoPartyFixture.pid1, pid2: TwoPartyFixture.pid2)
    try! TwoPartyRun.run(p1, p2)
    precondition(p1.group == p2.group && p1.group != nil)
    return p1.group!
}()

enum TwoPartyFixture {
    static let pid1 = Hash.sha256(Array("identity of P1".utf8))
    static let pid2 = Hash.sha256(Array("identity of P2".utf8))

    static func dkg(_ kind: TwoPartyKind) throws -> (Party1Share, Party2Share) {
        let p1 = KeyGenerationParty1(kind: kind, pid1: pid1, pid2: pid2)
        let p2 = KeyGenerationParty2(pid1: pid1, pid2: pid2)
        try TwoPartyRun.run(p1, p2)
        return (try #require(p1.share), try #require(p2.share))
    }

    static let ecdsaKey: (Party1Share, Party2Share) = try! dkg(.ecdsa)
    static let hdKey: (Party1Share, Party2Share) = try! dkg(.hdMaster)

    /// x = x1 + x2 mod q — only a test may do this.
    static func reconstruct(_ s1: Party1Share, _ s2: Party2Share) throws -> PrivateKey {
        try PrivateKey(bytes: Curve.scalar(try BigNum.modAdd(s1.x1, s2.x2, Curve.q)))
    }

    static func sign(
        _ s1: Party1Share, _ s2: Party2Share, path: String = "m", kind: String = "digest", payload: [UInt8],
        tamper: ((Frame) -> Frame?)? = nil
    ) throws -> (SigningParty1, SigningParty2) {
        let digest = try PayloadDigest.standard(kind: kind, payload: payload)
        let request = SignRequest(
            key: s1.q, path: try DerivationPath(path), payloadKind: kind, payload: payload, digest: digest)
        let p1 = try SigningParty1(share: s1, group: sharedPairing, request: request, pid1: pid1, pid2: pid2)
        let p2 = SigningParty2(share: s2, group: sharedPairing, pid1: pid1, pid2: pid2)
        try TwoPartyRun.run(p1, p2, tamper: tamper)
        return (p1, p2)
    }
}

@Suite("Two-party ECDSA: the protocol in one process")
struct TwoPartyProtocolTests {
    @Test func pairing_givesBothPartiesTheSameCheckedGroup() throws {
        let group = sharedPairing
        #expect(group.n.bitCount == 2048)
        #expect(try BigNum.gcd(group.g, group.n) == BigNum(1))
        #expect(group.h != (try BigNum(1)))
    }

    @Test(arguments: [TwoPartyKind.ecdsa, .hdMaster])
    func dkg_bothSharesMakeTheJointKey(_ kind: TwoPartyKind) throws {
        let (s1, s2) = kind == .ecdsa ? TwoPartyFixture.ecdsaKey : TwoPartyFixture.hdKey
        #expect(s1.q == s2.q)
        #expect(s1.transcript == s2.transcript)
        #expect(s1.cKey == s2.cKey)
        #expect(s1.paillier.publicKey.n == s2.paillier.n)
        #expect(s1.paillier.publicKey.n.bitCount == 2048)
        #expect(try TwoPartyFixture.reconstruct(s1, s2).publicKey == s1.q)
        #expect(try Curve.add(s1.q1, s2.q2) == s1.q)
        #expect(try Curve.mulG(s1.x1) == s1.q1 && (try Curve.mulG(s2.x2)) == s2.q2)
        // c_key decrypts to x1.
        #expect(try s1.paillier.decrypt(s1.cKey) == s1.x1)
        if kind == .hdMaster {
            #expect(s1.chainCode != nil && s1.chainCode == s2.chainCode)
        } else {
            #expect(s1.chainCode == nil && s2.chainCode == nil)
        }
    }

    @Test func sign_digestAndMessage_verifyAndRecoverTheJointKey() throws {
        let (s1, s2) = TwoPartyFixture.ecdsaKey
        for (kind, payload) in [("digest", Hash.sha256(Array("pay 1 ETH".utf8))), ("eth-message", Array("hello".utf8))]
        {
            let (p1, p2) = try TwoPartyFixture.sign(s1, s2, kind: kind, payload: payload)
            let sig = try #require(p1.signature)
            let digest = try PayloadDigest.standard(kind: kind, payload: payload)
            #expect(Secp256k1.verify(sig.signature, digest: digest, publicKey: s1.q))
            #expect(try sig.recoverPublicKey(digest: digest) == s1.q)
            #expect(try BigNum(bytes: sig.signature.s) <= Curve.halfQ)  // low s (EIP-2)
            #expect(p2.signature == sig)
            // The reconstructed key signs the same digest too (another nonce, the same key).
            let own = try TwoPartyFixture.reconstruct(s1, s2).sign(digest: digest)
            #expect(try own.recoverPublicKey(digest: digest) == s1.q)
        }
        // The Ethereum address of the joint key is the recovered signer's.
        let (p1, _) = try TwoPartyFixture.sign(s1, s2, kind: "eth-message", payload: Array("address".utf8))
        let recovered = try #require(p1.signature).recoverPublicKey(
            digest: PersonalMessage.digest(Array("address".utf8)))
        #expect(EthereumAddress(publicKey: recovered) == EthereumAddress(publicKey: s1.q))
    }

    @Test func sign_manyDigests_allVerify() throws {
        let (s1, s2) = TwoPartyFixture.ecdsaKey
        for i in 0..<12 {
            let digest = Hash.sha256(Array("digest \(i)".utf8))
            let (p1, _) = try TwoPartyFixture.sign(s1, s2, payload: digest)
            let sig = try #require(p1.signature)
            #expect(Secp256k1.verify(sig.signature, digest: digest, publicKey: s1.q))
            #expect(try sig.recoverPublicKey(digest: digest) == s1.q)
        }
    }

    @Test func hdChild_isOrdinaryBIP32OfTheReconstructedMaster() throws {
        let (s1, s2) = TwoPartyFixture.hdKey
        let master = try ExtendedKey(
            privateKey: TwoPartyFixture.reconstruct(s1, s2), chainCode: try #require(s1.chainCode))
        let xpub = try ExtendedKey(publicKey: s1.q, chainCode: try #require(s1.chainCode))
        for path in ["m/0/7", "m/1/3", "m/44/60/0/0/7"] {
            let digest = Hash.sha256(Array(path.utf8))
            let (p1, _) = try TwoPartyFixture.sign(s1, s2, path: path, payload: digest)
            let expected = try master.derive(path).publicKey
            #expect(p1.childKey == expected)
            #expect(try xpub.derive(path).publicKey == expected)  // watch-only wallets derive the same
            let sig = try #require(p1.signature)
            #expect(try sig.recoverPublicKey(digest: digest) == expected)
        }
    }

    @Test func hdChild_hardenedStepRefused_withTheReason() throws {
        let (s1, s2) = TwoPartyFixture.hdKey
        #expect {
            try TwoPartyFixture.sign(s1, s2, path: "m/44'/60'/0'/0/0", payload: Hash.sha256([1]))
        } throws: { error in
            guard case .checkFailed(let check, let reason) = error as? MPCError else { return false }
            return check == "sign.path" && reason.contains("hardened step 44'") && reason.contains("m/0/7-style")
        }
        // A plain key has no children.
        let (e1, e2) = TwoPartyFixture.ecdsaKey
        #expect(throws: MPCError.self) { try TwoPartyFixture.sign(e1, e2, path: "m/0", payload: Hash.sha256([2])) }
    }

    /// BIP-32 test vector 2 (bip32.json in WalletCoreTests' vectors): the master private key split
    /// into random shares by a test dealer; the 2P derivation of m/0 gives the vector's xpub, and a
    /// 2P signature with it verifies under the vector's public key.
    @Test func bip32Vector2_splitByADealer_childMatchesTheVector() throws {
        let seed = try Hex.decode(
            "fffcf9f6f3f0edeae7e4e1dedbd8d5d2cfccc9c6c3c0bdbab7b4b1aeaba8a5a29f9c999693908d8a8784817e7b7875726f6c696663605d5a5754514e4b484542"
        )
        let master = try ExtendedKey.master(seed: Secret(bytes: seed))
        #expect(
            try master.serialized(.xpub)
                == "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB"
        )
        let x = try BigNum(bytes: try #require(master.privateKey).secret.withUnsafeBytes { Array($0) }, secret: true)
        let x1 = try BigNum.modAdd(try BigNum.random(below: Curve.q), Curve.one, Curve.q)
        let x2 = try BigNum.modSub(x, x1, Curve.q)
        let paillier = try PaillierSecretKey.generate()
        let cKey = try paillier.publicKey.encrypt(x1, r: try MPCRandom().unit(paillier.publicKey.n))
        let q1 = try Curve.mulG(x1), q2 = try Curve.mulG(x2), q = master.publicKey
        let s1 = Party1Share(
            kind: .hdMaster, q: q, q1: q1, q2: q2, x1: x1, paillier: paillier, cKey: cKey,
            chainCode: master.chainCode, sid: [UInt8](repeating: 0, count: 32), transcript: [])
        let s2 = Party2Share(
            kind: .hdMaster, q: q, q1: q1, q2: q2, x2: x2, paillier: paillier.publicKey, cKey: cKey,
            chainCode: master.chainCode, sid: [UInt8](repeating: 0, count: 32), transcript: [])
        let digest = Hash.sha256(Array("vector 2".utf8))
        let (p1, _) = try TwoPartyFixture.sign(s1, s2, path: "m/0", payload: digest)
        let child = try ExtendedKey(
            "xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH"
        )
        #expect(p1.childKey == child.publicKey)
        #expect(try #require(p1.signature).recoverPublicKey(digest: digest) == child.publicKey)
    }

    @Test func paillier_agreesWithPythonIntegers() throws {
        let key = try PaillierSecretKey.generate()
        let pk = key.publicKey, random = MPCRandom()
        let m = try random.below(pk.n, secret: false), r = try random.unit(pk.n, secret: false)
        let c = try pk.encrypt(m, r: r)
        let program = """
            import sys
            n, m, r = (int(x, 16) for x in sys.argv[1:4])
            print(format((1 + m * n) * pow(r, n, n * n) % (n * n), "x"))
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", program] + [pk.n, m, r].map { Hex.encode($0.bytes) }
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(
            try BigNum(
                bytes: Hex.decode(
                    text.trimmingCharacters(in: .whitespacesAndNewlines).count % 2 == 1
                        ? "0" + text.trimmingCharacters(in: .whitespacesAndNewlines)
                        : text.trimmingCharacters(in: .whitespacesAndNewlines))) == c)
        #expect(try key.decrypt(c) == m)
        // Homomorphic: Enc(a)·Enc(b) = Enc(a + b), Enc(a)^k = Enc(k·a).
        let a = try BigNum(12345), b = try BigNum(67890), k = try BigNum(1000)
        let ca = try pk.encrypt(a, r: r), cb = try pk.encrypt(b, r: try random.unit(pk.n))
        #expect(try key.decrypt(try pk.mul(ca, cb)) == (try a + b))
        #expect(try key.decrypt(try pk.pow(ca, k)) == (try a * k))
    }

    @Test func encoding_itemsAndFrames_areCanonical() throws {
        var items = Items()
        items.s("ab")
        items.b([1, 2])
        try items.f(try BigNum(5), 4)
        items.u(try BigNum(0))
        #expect(Hex.encode(items.data) == "530000000261624200000002010246000000040000000555000000010" + "0")
        let frame = Frame(
            type: "dkg.k4", step: 4, sid: [UInt8](repeating: 0xab, count: 32),
            fields: ["result": .string("confirm"), "q": .hex([2, 3]), "list": .list([.int(1), .string("a/b")])])
        let text = String(decoding: frame.json, as: UTF8.self)
        #expect(
            text
                == #"{"list":[1,"a/b"],"q":"0203","result":"confirm","sid":"\#(String(repeating: "ab", count: 32))","step":4,"type":"dkg.k4","v":1}"#
        )
        #expect(try Frame(json: frame.json) == frame)
    }
}
