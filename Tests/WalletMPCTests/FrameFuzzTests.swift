// The frame decoder and the message parsers under random damage (issue 16 §3): frames recorded
// from honest sessions, mutated thousands of times (bytes flipped, cut, repeated, spliced), must
// either parse into a frame and values of the right shape or be refused with an MPCError — never
// crash, never hang; a mutated frame delivered in a live session ends it with an MPCError (or,
// for a change the canonical form does not see, a valid signature) and no share is kept.
import Foundation
import Testing
import WalletCore
import WalletCrypto

@testable import WalletMPC

/// A small deterministic PRNG for the mutations (SplitMix64), so a failure can be replayed.
struct Mutator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }

    mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        switch below(6) {
        case 0: b[below(b.count)] ^= UInt8(1 << below(8))
        case 1: b = Array(b.prefix(below(b.count)))
        case 2:
            let i = below(b.count)
            b.insert(b[i], at: i)
        case 3:
            let i = below(b.count), j = below(b.count)
            b.swapAt(i, j)
        case 4:
            let i = below(b.count)
            b.replaceSubrange(i..<min(b.count, i + below(40)), with: [])
        default:
            b[below(b.count)] =
                [UInt8(ascii: "0"), UInt8(ascii: "f"), UInt8(ascii: "\""), UInt8(ascii: "{"), 0xff][below(5)]
        }
        return b
    }
}

@Suite("Two-party frames under random damage")
struct FrameFuzzTests {
    /// Every frame of an honest DKG and signing.
    static let recorded: [Frame] = {
        var frames: [Frame] = []
        let (s1, s2) = TwoPartyFixture.hdKey
        let digest = Hash.sha256(Array("fuzz".utf8))
        let request = SignRequest(
            key: s1.q, path: try! DerivationPath("m/0/3"), payloadKind: "digest", payload: digest, digest: digest)
        let p1 = try! SigningParty1(
            share: s1, group: sharedPairing, request: request, pid1: TwoPartyFixture.pid1, pid2: TwoPartyFixture.pid2)
        let p2 = SigningParty2(share: s2, group: sharedPairing, pid1: TwoPartyFixture.pid1, pid2: TwoPartyFixture.pid2)
        try! TwoPartyRun.run(
            p1, p2,
            tamper: {
                frames.append($0)
                return $0
            })
        let k1 = KeyGenerationParty1(kind: .ecdsa, pid1: TwoPartyFixture.pid1, pid2: TwoPartyFixture.pid2)
        let k2 = KeyGenerationParty2(pid1: TwoPartyFixture.pid1, pid2: TwoPartyFixture.pid2)
        try! TwoPartyRun.run(
            k1, k2,
            tamper: {
                frames.append($0)
                return $0
            })
        return frames
    }()

    /// Parses every field of a frame the way its receiver does.
    static func parseAll(_ frame: Frame) throws(MPCError) {
        let r = FieldReader(frame)
        func obj(_ key: String, _ names: Set<String>) throws(MPCError) -> FieldReader {
            try r.object(key, fields: names)
        }
        switch frame.type {
        case "dkg.k1":
            _ = (try r.bytes("com", count: 32), try r.fixed("n", width: 256), try r.fixed("c_key", width: 512))
        case "dkg.k2": _ = (try r.point("q2"), try DiscreteLogProof(try obj("dl", ["a", "z"])))
        case "dkg.k3":
            _ = try ValidPaillierProof(r, key: "vp")
            _ = try PaillierDiscreteLogProof(try obj("pdl", ["c_r", "r", "z", "r_z"]))
            _ = try PaillierPedersenEqualProof(try obj("pe", ["e", "d", "dd", "nu"]))
            _ = try PedersenRangeProof(try obj("rp", ["c", "d", "f"]))
        case "dkg.k4": _ = (try r.bytes("transcript", count: 32), try r.point("q"))
        case "sign.s3": _ = (try r.point("r2"), try DiscreteLogProof(try obj("dl", ["a", "z"])))
        case "sign.s4": _ = (try r.bytes("r1", count: 33), try r.bytes("rho", count: 32))
        case "sign.s5": _ = (try r.fixed("c", width: 512), try SignProof(try obj("proof", ["w", "e", "z", "u", "v"])))
        case "sign.s6": _ = (try r.bytes("r", count: 32), try r.int("recid"))
        default: break
        }
    }

    @Test func decoderAndParsers_refuseDamageCleanly() throws {
        var m = Mutator(state: 0x6b63732d32702d31)
        let frames = Self.recorded
        #expect(frames.count == 11)  // 7 of signing, 4 of the DKG
        var parsed = 0, refused = 0
        for i in 0..<2500 {
            let original = frames[i % frames.count].json
            var bytes = m.mutate(original)
            if m.below(4) == 0 { bytes = m.mutate(bytes) }
            do {
                let frame = try Frame(json: bytes)
                try Self.parseAll(frame)
                parsed += 1
            } catch {
                refused += 1
            }
        }
        #expect(parsed + refused == 2500)
        #expect(refused > 1250)  // most damage is refused by the decoder or a parser
        // Oversized and malformed frames.
        #expect(throws: MPCError.self) { try Frame(json: [UInt8](repeating: 0x20, count: Frame.maxSize + 1)) }
        #expect(throws: MPCError.self) { try Frame(json: Array(#"{"v":1,"type":"x","step":true,"sid":"00"}"#.utf8)) }
        #expect(throws: MPCError.self) { try Frame(json: Array(#"{"v":1.5,"type":"x","step":1,"sid":"00"}"#.utf8)) }
        #expect(throws: MPCError.self) { try Frame(json: Array(#"[1,2]"#.utf8)) }
    }

    /// Damage before the last frame leaves nobody a signature; damage to the last one (P1's report
    /// of the signature it already checked) leaves P1 a valid one and P2 none.
    func expectNoSignature(_ target: Int, _ p1: SigningParty1, _ p2: SigningParty2, _ digest: [UInt8]) {
        if target == 6 {
            #expect((try? p1.signature?.recoverPublicKey(digest: digest)) == p1.childKey)
            #expect(p2.signature == nil)
        } else {
            #expect(p1.signature == nil && p2.signature == nil)
        }
    }

    @Test func liveSessions_endCleanlyOnADamagedFrame() throws {
        var m = Mutator(state: 0x6c697665)
        let (s1, s2) = TwoPartyFixture.hdKey
        var outcomes: [String: Int] = [:]
        for i in 0..<24 {
            let digest = Hash.sha256(Array("live \(i)".utf8))
            let request = SignRequest(
                key: s1.q, path: try DerivationPath("m/0/\(i)"), payloadKind: "digest", payload: digest, digest: digest)
            let p1 = try SigningParty1(
                share: s1, group: sharedPairing, request: request, pid1: TwoPartyFixture.pid1,
                pid2: TwoPartyFixture.pid2)
            let p2 = SigningParty2(
                share: s2, group: sharedPairing, pid1: TwoPartyFixture.pid1, pid2: TwoPartyFixture.pid2)
            let target = i % 7
            var seen = 0
            var decoderRefused = false
            do {
                try TwoPartyRun.run(
                    p1, p2,
                    tamper: { frame in
                        defer { seen += 1 }
                        guard seen == target else { return frame }
                        guard let damaged = try? Frame(json: m.mutate(frame.json)) else {
                            decoderRefused = true
                            return nil
                        }
                        return damaged
                    })
                if decoderRefused {
                    outcomes["decoder", default: 0] += 1
                    expectNoSignature(target, p1, p2, digest)
                } else {
                    // The damage did not change the frame's meaning: the signature is still right.
                    let sig = try #require(p1.signature)
                    #expect(try sig.recoverPublicKey(digest: digest) == p1.childKey)
                    outcomes["harmless", default: 0] += 1
                }
            } catch {
                outcomes[(error as? TwoPartyRun.Failure)?.error.check ?? "other", default: 0] += 1
                expectNoSignature(target, p1, p2, digest)
            }
        }
        #expect(outcomes.values.reduce(0, +) == 24)
    }
}
