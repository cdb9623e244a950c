// A cheating party is caught (docs/two-party-protocol.md §5–6): every proof of the DKG and of
// signing tampered, a bad Paillier modulus, a wrong opening, a co-signer with a wrong share,
// frames of another session — each stops the session with the check's name, and neither side
// keeps a key or a signature.
import Testing
import WalletCore
import WalletCrypto

@testable import WalletMPC

/// Frame surgery for the tests.
enum Tamper {
    /// Changes the hex number at `path` (object keys, or "#i" for a list index) by adding one.
    static func bump(_ value: WireValue, _ path: ArraySlice<String>) -> WireValue {
        guard let head = path.first else {
            guard case .string(let hex) = value, let bytes = try? Hex.decode(hex) else { return value }
            var out = bytes
            out[out.count - 1] ^= 1
            return .hex(out)
        }
        switch value {
        case .object(var o):
            o[head] = bump(o[head]!, path.dropFirst())
            return .object(o)
        case .list(var l):
            let i = Int(head.dropFirst())!
            l[i] = bump(l[i], path.dropFirst())
            return .list(l)
        default: return value
        }
    }

    static func field(_ type: String, _ path: String) -> (Frame) -> Frame? {
        { frame in
            guard frame.type == type else { return frame }
            var f = frame
            let parts = path.split(separator: ".").map(String.init)
            f.fields[parts[0]] = bump(f.fields[parts[0]]!, parts.dropFirst())
            return f
        }
    }

    static func replace(_ type: String, _ key: String, _ value: WireValue) -> (Frame) -> Frame? {
        { frame in
            guard frame.type == type else { return frame }
            var f = frame
            f.fields[key] = value
            return f
        }
    }
}

func failure(_ body: () throws -> Void) -> TwoPartyRun.Failure? {
    do { try body() } catch let f as TwoPartyRun.Failure { return f } catch { return nil }
    return nil
}

@Suite("Two-party ECDSA: a cheating party is caught")
struct TwoPartyAttackTests {
    let pid1 = TwoPartyFixture.pid1, pid2 = TwoPartyFixture.pid2

    func dkg(tamper: @escaping (Frame) -> Frame?) -> (TwoPartyRun.Failure?, KeyGenerationParty1, KeyGenerationParty2) {
        let p1 = KeyGenerationParty1(kind: .hdMaster, pid1: pid1, pid2: pid2)
        let p2 = KeyGenerationParty2(pid1: pid1, pid2: pid2)
        let f = failure { try TwoPartyRun.run(p1, p2, tamper: tamper) }
        return (f, p1, p2)
    }

    @Test(arguments: [
        ("dkg.k3", "rho", "dkg.opening"), ("dkg.k3", "dl.z", "dkg.dl"), ("dkg.k3", "vp.#3", "dkg.vp"),
        ("dkg.k3", "pdl.z", "dkg.pdl"), ("dkg.k3", "pdl.r_z", "dkg.pdl"), ("dkg.k3", "pdl.c_r", "dkg.pdl"),
        ("dkg.k3", "pe.d.#0", "dkg.pe"), ("dkg.k3", "pe.dd.#9", "dkg.pe"), ("dkg.k3", "pe.nu", "dkg.pe"),
        ("dkg.k3", "pe.e", "dkg.pe"),
        ("dkg.k3", "rp.d.#5", "dkg.rp"), ("dkg.k3", "rp.f.#127", "dkg.rp"), ("dkg.k3", "rp.c.#0", "dkg.rp"),
        ("dkg.k3", "com_ped", "dkg.pe"), ("dkg.k1", "c_key", "dkg.pdl"), ("dkg.k2", "dl.z", "dkg.dl"),
    ])
    func dkg_tamperedField_isCaughtByItsCheck(_ type: String, _ path: String, _ check: String) throws {
        let (f, p1, p2) = dkg(tamper: Tamper.field(type, path))
        let failure = try #require(f)
        #expect(failure.error.check == check, "\(type).\(path): \(failure.error)")
        #expect(failure.party == (type == "dkg.k2" ? 1 : 2))
        #expect(p1.share == nil && p2.share == nil)
    }

    @Test func dkg_badModulus_isRefusedBeforeItsProofs() throws {
        // A 2048-bit N with the factor 3, and a 2047-bit N.
        let three = try BigNum(3)
        let smooth = try three * (try BigNum.power2(2045) + BigNum(1234567))
        let short = try BigNum.power2(2046) + BigNum(12345)
        for n in [smooth, short] {
            let wire = try n.wire(256)
            let (f, p1, p2) = dkg(tamper: { frame in
                guard frame.type == "dkg.k1" else { return frame }
                var g = frame
                g.fields["n"] = wire
                g.fields["c_key"] = .hex([UInt8](repeating: 0, count: 511) + [2])  // in range, so the modulus check is reached
                return g
            })
            let failure = try #require(f)
            #expect(failure.error.check == "dkg.n", "\(failure.error)")
            #expect(p1.share == nil && p2.share == nil)
        }
        // A c_key outside Z_N² is refused at once.
        let (f, _, _) = dkg(tamper: Tamper.replace("dkg.k1", "c_key", .hex([UInt8](repeating: 0xff, count: 512))))
        #expect(f?.error.check == "dkg.c-key")
    }

    @Test func dkg_frameOfAnotherSession_isRefused() throws {
        let (f, _, p2) = dkg(tamper: { frame in
            guard frame.type == "dkg.k3" else { return frame }
            var g = frame
            g.sid = [UInt8](repeating: 7, count: 32)
            return g
        })
        #expect(f?.error == .badFrame(reason: "dkg.k3: a frame of another session"))
        #expect(p2.share == nil)
        // An extra field, a missing one.
        let (g, _, _) = dkg(tamper: Tamper.replace("dkg.k2", "extra", .string("x")))
        #expect(g?.error.id == "mpc.badFrame")
    }

    func sign(_ s2: Party2Share? = nil, tamper: ((Frame) -> Frame?)?) throws -> (TwoPartyRun.Failure?, SigningParty1?) {
        let (s1, honest2) = TwoPartyFixture.hdKey
        let digest = Hash.sha256(Array("attack".utf8))
        let request = SignRequest(
            key: s1.q, path: try DerivationPath("m/0/1"), payloadKind: "digest", payload: digest, digest: digest)
        let p1 = try SigningParty1(share: s1, group: sharedPairing, request: request, pid1: pid1, pid2: pid2)
        let p2 = SigningParty2(share: s2 ?? honest2, group: sharedPairing, pid1: pid1, pid2: pid2)
        let f = failure { try TwoPartyRun.run(p1, p2, tamper: tamper) }
        return (f, p1)
    }

    @Test(arguments: [
        ("sign.s5", "proof.z.#0", "sign.proof", 1), ("sign.s5", "proof.z.#2", "sign.proof", 1),
        ("sign.s5", "proof.u.#1", "sign.proof", 1),
        ("sign.s5", "proof.w.#0", "sign.proof", 1), ("sign.s5", "proof.e", "sign.proof", 1),
        ("sign.s5", "proof.v", "sign.proof", 1),
        ("sign.s5", "c", "sign.proof", 1), ("sign.s3", "dl.z", "sign.dl", 1), ("sign.s3", "r2", "sign.dl", 1),
        ("sign.s4", "rho", "sign.opening", 2), ("sign.s4", "dl.z", "sign.opening", 2),
        ("sign.s0", "m", "sign.payload", 2),
    ])
    func sign_tamperedField_isCaughtBeforeDecryption(
        _ type: String, _ path: String, _ check: String, _ party: Int
    ) throws {
        let (f, p1) = try sign(tamper: Tamper.field(type, path))
        let failure = try #require(f)
        #expect(
            failure.error.check == check || (path == "r2" && failure.error.id == "mpc.badFrame"),
            "\(type).\(path): \(failure.error)")
        #expect(failure.party == party)
        #expect(p1?.signature == nil)
    }

    @Test func sign_coSignerWithAWrongShare_isCaughtByItsProof() throws {
        let (_, s2) = TwoPartyFixture.hdKey
        let liar = Party2Share(
            kind: s2.kind, q: s2.q, q1: s2.q1, q2: s2.q2, x2: try BigNum.modAdd(s2.x2, Curve.one, Curve.q),
            paillier: s2.paillier, cKey: s2.cKey, chainCode: s2.chainCode, sid: s2.sid, transcript: s2.transcript)
        let (f, p1) = try sign(liar, tamper: nil)
        #expect(f?.error.check == "sign.proof" && f?.party == 1)
        #expect(p1?.signature == nil)
    }

    @Test func sign_bitLeakCiphertext_isCaughtByTheProof() throws {
        // A CVE-2023-33242-style c: the honest c times Enc(q·2^255) would decrypt to a valid s only
        // for some x1; the proof cannot follow it.
        let (s1, _) = TwoPartyFixture.hdKey
        let pk = s1.paillier.publicKey
        let shift = try pk.encrypt(try Curve.q.shiftedLeft(255), r: try BigNum(1))
        let (f, p1) = try sign(tamper: { frame in
            guard frame.type == "sign.s5", case .string(let hex)? = frame.fields["c"],
                let c = try? BigNum(bytes: Hex.decode(hex))
            else { return frame }
            var g = frame
            g.fields["c"] = try! (try! pk.mul(c, shift)).wire(512)
            return g
        })
        #expect(f?.error.check == "sign.proof")
        #expect(p1?.signature == nil)
    }

    @Test func sign_replayedFrameOfAnOlderSession_isRefused() throws {
        // Record the s3 of one session, play it into the next.
        var recorded: Frame?
        _ = try sign(tamper: { frame in
            if frame.type == "sign.s3" { recorded = frame }
            return frame
        })
        let old = try #require(recorded)
        let (f, p1) = try sign(tamper: { frame in frame.type == "sign.s3" ? old : frame })
        #expect(f?.error == .badFrame(reason: "sign.s3: a frame of another session"))
        #expect(p1?.signature == nil)
    }

    @Test func peerAbort_isReportedWithItsCheck() throws {
        let (f, p1) = try sign(tamper: Tamper.field("sign.s4", "rho"))
        #expect(f?.error.check == "sign.opening")
        // P1 received P2's abort frame: it stops too, without a signature.
        #expect(p1?.signature == nil)
    }
}
