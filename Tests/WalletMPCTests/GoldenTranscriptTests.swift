// Golden transcripts (docs/two-party-protocol.md §2, "Deterministic randomness"): with each
// party's randomness an HMAC_DRBG from a fixed seed and the primes given, pairing, an hd-master
// DKG and a signature produce the same frames, byte for byte, whoever plays each role — kcs
// against kcs, kcs's console against the independent Python party's co-signer, and the other way
// round; the transcripts' hashes are pinned, so any drift of the wire format shows.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

@testable import WalletMPC

@Suite("Two-party golden transcripts", .serialized)
struct GoldenTranscriptTests {
    static let seed1 = Hash.sha256(Array("kcs golden p1".utf8)), seed2 = Hash.sha256(Array("kcs golden p2".utf8))
    static let pid1 = Hash.sha256(Array("kcs golden pid1".utf8)), pid2 = Hash.sha256(Array("kcs golden pid2".utf8))
    static let fixtures = TestPaths.root.appendingPathComponent("tools/mpc-ref/fixtures")

    static func primes(_ file: String) -> (BigNum, BigNum) {
        let o =
            try! JSONSerialization.jsonObject(with: Data(contentsOf: fixtures.appendingPathComponent(file)))
            as! [String: String]
        func n(_ s: String) -> BigNum { try! BigNum(bytes: Hex.decode(s.count % 2 == 1 ? "0" + s : s)) }
        return (n(o["p"]!), n(o["q"]!))
    }

    static func drbg(_ role: String) -> MPCRandom {
        MPCRandom(HMACDRBG(seed: role == "p1" ? seed1 : seed2, personalization: "kcs-2pecdsa/1 drbg " + role))
    }

    /// The parties of each phase, fresh, with their deterministic randomness.
    static func pairing() -> (PairingParty1, PairingParty2) {
        (
            PairingParty1(pid1: pid1, pid2: pid2, random: drbg("p1"), primes: { primes("safe-primes.json") }),
            PairingParty2(pid1: pid1, pid2: pid2, random: drbg("p2"))
        )
    }

    static func dkg() -> (KeyGenerationParty1, KeyGenerationParty2) {
        (
            KeyGenerationParty1(
                kind: .hdMaster, pid1: pid1, pid2: pid2, random: drbg("p1"),
                paillier: { () throws(MPCError) in
                    let (p, q) = primes("paillier-primes.json")
                    return try PaillierSecretKey(p: p, q: q)
                }), KeyGenerationParty2(pid1: pid1, pid2: pid2, random: drbg("p2"))
        )
    }

    static func signing(
        _ s1: Party1Share, _ s2: Party2Share, _ group: UnknownOrderGroup
    ) throws -> (SigningParty1, SigningParty2) {
        let payload = Array("golden".utf8)
        let request = SignRequest(
            key: s1.q, path: try DerivationPath("m/0/7"), payloadKind: "eth-message", payload: payload,
            digest: PersonalMessage.digest(payload))
        return (
            try SigningParty1(share: s1, group: group, request: request, pid1: pid1, pid2: pid2, random: drbg("p1")),
            SigningParty2(share: s2, group: group, pid1: pid1, pid2: pid2, random: drbg("p2"))
        )
    }

    /// Frames as the transcript files hold them: canonical JSON, one per line.
    static func text(_ frames: [Frame]) -> [UInt8] { frames.flatMap { $0.json + [0x0a] } }

    /// kcs against kcs: the three transcripts.
    static let kcsOnly: (pair: [UInt8], dkg: [UInt8], sign: [UInt8]) = {
        var pairFrames: [Frame] = [], dkgFrames: [Frame] = [], signFrames: [Frame] = []
        let (a1, a2) = pairing()
        try! TwoPartyRun.run(
            a1, a2,
            tamper: {
                pairFrames.append($0)
                return $0
            })
        let (k1, k2) = dkg()
        try! TwoPartyRun.run(
            k1, k2,
            tamper: {
                dkgFrames.append($0)
                return $0
            })
        let (s1, s2) = try! signing(k1.share!, k2.share!, a1.group!)
        try! TwoPartyRun.run(
            s1, s2,
            tamper: {
                signFrames.append($0)
                return $0
            })
        return (text(pairFrames), text(dkgFrames), text(signFrames))
    }()

    @Test func hmacDRBG_matchesNISTsCAVPVector() throws {
        // CAVP HMAC_DRBG.rsp, [SHA-256], no prediction resistance, no reseed, COUNT 0: the second
        // 1024-bit Generate after Instantiate(EntropyInput ‖ Nonce).
        let drbg = HMACDRBG(
            seed: try Hex.decode(
                "ca851911349384bffe89de1cbdc46e6831e44d34a4fb935ee285dd14b71a7488659ba96c601dc69fc902940805ec0ca8"),
            personalization: "")
        _ = drbg.generate(128)
        #expect(
            Hex.encode(drbg.generate(128))
                == "e528e9abf2dece54d47c7e75e5fe302149f817ea9fb4bee6f4199697d04d5b89d54fbb978a15b5c443c9ec21036d2460b6f73ebad0dc2aba6e624abf07745bc107694bb7547bb0995f70de25d6b29e2d3011bb19d27676c07162c8b5ccde0668961df86803482cb37ed6d5c0bb8d50cf1f50d476aa0458bdaba806f48be9dcb8"
        )
    }

    @Test func kcsAgainstKcs_isDeterministicAndPinned() throws {
        var again: [Frame] = []
        let (k1, k2) = Self.dkg()
        try TwoPartyRun.run(
            k1, k2,
            tamper: {
                again.append($0)
                return $0
            })
        #expect(Self.text(again) == Self.kcsOnly.dkg)
        let hashes = [Self.kcsOnly.pair, Self.kcsOnly.dkg, Self.kcsOnly.sign].map { Hex.encode(Hash.sha256($0)) }
        #expect(hashes == GoldenHashes.all, "\(hashes)")
    }

    /// Plays kcs's `party` against one run of the reference party, recording every frame.
    func play(_ phase: String, role: String, _ party: TwoPartyStep, state: String, extra: [String]) throws -> [Frame] {
        let (pidSelf, pidPeer) = role == "p1" ? (Self.pid1, Self.pid2) : (Self.pid2, Self.pid1)
        let seed = role == "p1" ? Self.seed1 : Self.seed2
        let py = try ReferenceParty(
            phase, role: role, pidSelf: pidSelf, pidPeer: pidPeer, state: state,
            extra: ["--drbg-seed", Hex.encode(seed)] + extra)
        var frames: [Frame] = []
        let kcsStarts = role == "p2"
        if kcsStarts, let f = try party.next(nil) {
            frames.append(f)
            py.send(f)
        }
        while !party.isDone {
            let incoming = try py.receive()
            frames.append(incoming)
            if let f = try party.next(incoming) {
                frames.append(f)
                py.send(f)
            }
        }
        let result = py.finish()
        #expect(result.status == 0, "\(phase) \(role): \(result.log)")
        return frames
    }

    @Test func kcsConsole_withReferenceCoSigner_sameBytes() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-golden-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (a1, _) = Self.pairing()
        #expect(Self.text(try play("pair", role: "p2", a1, state: state, extra: [])) == Self.kcsOnly.pair)
        let (k1, _) = Self.dkg()
        #expect(Self.text(try play("dkg", role: "p2", k1, state: state, extra: [])) == Self.kcsOnly.dkg)
        let (s1, _) = try Self.signing(try #require(k1.share), try #require(Self.p2Share()), a1.group!)
        #expect(
            Self.text(try play("sign", role: "p2", s1, state: state, extra: ["--approve-all"])) == Self.kcsOnly.sign)
    }

    @Test func referenceConsole_withKcsCoSigner_sameBytes() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-golden-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (_, a2) = Self.pairing()
        #expect(
            Self.text(
                try play(
                    "pair", role: "p1", a2, state: state,
                    extra: ["--safe-primes", Self.fixtures.appendingPathComponent("safe-primes.json").path]))
                == Self.kcsOnly.pair)
        let (_, k2) = Self.dkg()
        #expect(
            Self.text(
                try play(
                    "dkg", role: "p1", k2, state: state,
                    extra: [
                        "--kind", "hd-master", "--paillier-primes",
                        Self.fixtures.appendingPathComponent("paillier-primes.json").path,
                    ]))
                == Self.kcsOnly.dkg)
        let (_, s2) = try Self.signing(try #require(Self.p1Share()), k2.share!, a2.group!)
        #expect(
            Self.text(
                try play(
                    "sign", role: "p1", s2, state: state,
                    extra: [
                        "--path", "m/0/7", "--payload-kind", "eth-message", "--payload",
                        Hex.encode(Array("golden".utf8)),
                    ]))
                == Self.kcsOnly.sign)
    }

    /// P2's share of the deterministic DKG (kcs's own run), for building a signing P2 value.
    static func p2Share() -> Party2Share? {
        let (k1, k2) = dkg()
        try? TwoPartyRun.run(k1, k2)
        return k2.share
    }

    /// P1's share of the deterministic DKG (kcs's own run), for building a signing P1 value.
    static func p1Share() -> Party1Share? {
        let (k1, k2) = dkg()
        try? TwoPartyRun.run(k1, k2)
        return k1.share
    }
}

/// SHA-256 of the pairing, DKG and signing transcripts (frames as canonical JSON lines), as the
/// independent Python party prints them (`tools/mpc-ref/golden.py`): kcs must reproduce them.
enum GoldenHashes {
    static let all: [String] = [
        "427d63e810284f795fc8a5cf18bcaeef1c29cdbc1cfed878e733aa49c1425d4b",
        "06ed60f1827cd765aeea9d6bed4dd3aab649bb7e2920368456e98f6baea3e90a",
        "accd1c34fefa28abf500b0aab31166758081329aa6d48b58bb1af96c667c71cc",
    ]
}
