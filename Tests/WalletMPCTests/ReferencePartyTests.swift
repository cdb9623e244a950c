// kcs's two-party code against an independent party (docs/two-party-protocol.md): the Python
// reference party of tools/mpc-ref (phe, python-ecdsa, gmpy2 — written from the protocol document
// by another author, never from the Swift side) plays P2 against kcs's P1 and P1 against kcs's
// P2, through pairing, DKG of both kinds and signing (a digest, an Ethereum message, an HD child);
// its cheating switches must each be caught by kcs with the right check.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

@testable import WalletMPC

/// One run of tools/mpc-ref/party.py: frames on its stdin and stdout.
final class ReferenceParty {
    let process = Process()
    let input = Pipe(), output = Pipe(), errors = Pipe()
    let out: String

    static var python: String { TestPaths.root.appendingPathComponent(".build/mpc-venv/bin/python").path }

    init(_ phase: String, role: String, pidSelf: [UInt8], pidPeer: [UInt8], state: String, extra: [String] = []) throws
    {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw MPCError.badFrame(
                reason: "no reference party at \(Self.python): run `make test` (it creates .build/mpc-venv)")
        }
        out = state + "/out-\(UUID().uuidString).json"
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments =
            [
                TestPaths.root.appendingPathComponent("tools/mpc-ref/party.py").path, phase, "--role", role,
                "--pid-self", Hex.encode(pidSelf), "--pid-peer", Hex.encode(pidPeer), "--state", state,
                "--out", out, "--timeout", "20",
            ] + extra
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.runWithSignalsUnblocked()
    }

    func send(_ frame: Frame) { try? input.fileHandleForWriting.write(contentsOf: Data(frame.encoded)) }

    func receive() throws(MPCError) -> Frame {
        let head = output.fileHandleForReading.readData(ofLength: 4)
        guard head.count == 4 else { throw .badFrame(reason: "the reference party closed its output") }
        let n = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        let body = output.fileHandleForReading.readData(ofLength: n)
        return try Frame(json: Array(body))
    }

    /// Its exit status and result file.
    func finish() -> (status: Int32, result: [String: Any], log: String) {
        try? input.fileHandleForWriting.close()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let data = FileManager.default.contents(atPath: out) ?? Data()
        let result = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return (process.terminationStatus, result, log)
    }

    /// Runs kcs's `party` against this process until kcs's side is done; a failure on kcs's side
    /// sends the reference party an `abort`.
    func play(_ party: TwoPartyStep, kcsStarts: Bool) throws(MPCError) {
        if kcsStarts, let f = try party.next(nil) { send(f) }
        while !party.isDone {
            let incoming = try receive()
            do {
                if let f = try party.next(incoming) { send(f) }
            } catch {
                if case .peerAborted = error {} else { send(party.abortFrame(for: error)) }
                throw error
            }
        }
    }
}

@Suite("Two-party ECDSA against the independent reference party (tools/mpc-ref)", .serialized)
struct ReferencePartyTests {
    let kcsID = Hash.sha256(Array("kcs party".utf8)), pyID = Hash.sha256(Array("reference party".utf8))
    static let safePrimes: (BigNum, BigNum) = {
        let url = TestPaths.root.appendingPathComponent("tools/mpc-ref/fixtures/safe-primes.json")
        let o = try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: String]
        func n(_ s: String) -> BigNum { try! BigNum(bytes: Hex.decode(s.count % 2 == 1 ? "0" + s : s)) }
        return (n(o["p"]!), n(o["q"]!))
    }()

    func temporaryState() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-mpc-ref-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// kcs is P1 (the console), the reference party is P2 (the co-signer).
    @Test func kcsConsole_withReferenceCoSigner() throws {
        let state = try temporaryState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        // Pairing: kcs makes the group (the fixture's safe primes), the reference checks ΠUO.
        let pair = PairingParty1(pid1: kcsID, pid2: pyID, primes: { Self.safePrimes })
        let py = try ReferenceParty("pair", role: "p2", pidSelf: pyID, pidPeer: kcsID, state: state)
        try py.play(pair, kcsStarts: true)
        #expect(py.finish().status == 0)
        let group = try #require(pair.group)
        for kind in TwoPartyKind.allCases {
            let keyState = state + "/" + kind.rawValue
            try FileManager.default.createDirectory(atPath: keyState, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: state + "/pairing.json", toPath: keyState + "/pairing.json")
            let dkg = KeyGenerationParty1(kind: kind, pid1: kcsID, pid2: pyID)
            let pyDKG = try ReferenceParty("dkg", role: "p2", pidSelf: pyID, pidPeer: kcsID, state: keyState)
            try pyDKG.play(dkg, kcsStarts: true)
            let dkgResult = pyDKG.finish()
            #expect(dkgResult.status == 0, "\(dkgResult.log)")
            let share = try #require(dkg.share)
            #expect(dkgResult.result["q"] as? String == Hex.encode(share.q.compressed))
            let requests: [(String, String, [UInt8])] =
                kind == .ecdsa
                ? [
                    ("m", "digest", Hash.sha256(Array("to the reference".utf8))),
                    ("m", "eth-message", Array("hello, reference".utf8)),
                ]
                : [("m/0/7", "digest", Hash.sha256(Array("child".utf8))), ("m", "eth-message", Array("master".utf8))]
            for (path, payloadKind, payload) in requests {
                let digest = try PayloadDigest.standard(kind: payloadKind, payload: payload)
                let request = SignRequest(
                    key: share.q, path: try DerivationPath(path), payloadKind: payloadKind, payload: payload,
                    digest: digest)
                let sign = try SigningParty1(share: share, group: group, request: request, pid1: kcsID, pid2: pyID)
                let pySign = try ReferenceParty(
                    "sign", role: "p2", pidSelf: pyID, pidPeer: kcsID, state: keyState, extra: ["--approve-all"])
                try pySign.play(sign, kcsStarts: true)
                let result = pySign.finish()
                // The reference checked kcs's signature with python-ecdsa (verify, low s, recovery) before exit 0.
                #expect(result.status == 0, "\(kind) \(path) \(payloadKind): \(result.log)")
                let sig = try #require(sign.signature)
                #expect(try sig.recoverPublicKey(digest: digest) == sign.childKey)
                if kind == .hdMaster {
                    let xpub = try ExtendedKey(publicKey: share.q, chainCode: try #require(share.chainCode))
                    #expect(try xpub.derive(path).publicKey == sign.childKey)
                }
            }
        }
    }

    /// The reference party is P1 (the console), kcs is P2 (the co-signer).
    @Test func referenceConsole_withKcsCoSigner() throws {
        let state = try temporaryState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let pair = PairingParty2(pid1: pyID, pid2: kcsID)
        let py = try ReferenceParty(
            "pair", role: "p1", pidSelf: pyID, pidPeer: kcsID, state: state,
            extra: [
                "--safe-primes", TestPaths.root.appendingPathComponent("tools/mpc-ref/fixtures/safe-primes.json").path,
            ])
        try py.play(pair, kcsStarts: false)
        #expect(py.finish().status == 0)
        let group = try #require(pair.group)
        for kind in TwoPartyKind.allCases {
            let keyState = state + "/" + kind.rawValue
            try FileManager.default.createDirectory(atPath: keyState, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: state + "/pairing.json", toPath: keyState + "/pairing.json")
            let dkg = KeyGenerationParty2(pid1: pyID, pid2: kcsID)
            let pyDKG = try ReferenceParty(
                "dkg", role: "p1", pidSelf: pyID, pidPeer: kcsID, state: keyState, extra: ["--kind", kind.rawValue])
            try pyDKG.play(dkg, kcsStarts: false)
            let dkgResult = pyDKG.finish()
            #expect(dkgResult.status == 0, "\(dkgResult.log)")
            let share = try #require(dkg.share)
            #expect(share.kind == kind)
            for (path, payloadKind, payload) in [
                ("m", "digest", Hash.sha256(Array("from the reference".utf8))),
                (kind == .hdMaster ? "m/1/3" : "m", "eth-message", Array("co-signed by kcs".utf8)),
            ] {
                let sign = SigningParty2(share: share, group: group, pid1: pyID, pid2: kcsID)
                let pySign = try ReferenceParty(
                    "sign", role: "p1", pidSelf: pyID, pidPeer: kcsID, state: keyState,
                    extra: ["--path", path, "--payload-kind", payloadKind, "--payload", Hex.encode(payload)])
                try pySign.play(sign, kcsStarts: false)
                let result = pySign.finish()
                #expect(result.status == 0, "\(result.log)")
                let sig = try #require(sign.signature)
                #expect(result.result["r"] as? String == Hex.encode(sig.signature.r))
                let digest = try PayloadDigest.standard(kind: payloadKind, payload: payload)
                let expected = try JointDerivation.derive(
                    share.q, chainCode: share.chainCode, path: try DerivationPath(path)
                ).key
                #expect(try sig.recoverPublicKey(digest: digest) == expected)
            }
        }
    }
}

/// The reference party's cheating switches (tools/mpc-ref/README.md), each against kcs.
@Suite("Two-party ECDSA: the reference party's cheats are caught by kcs", .serialized)
struct ReferencePartyCheatTests {
    static let kcsID = Hash.sha256(Array("kcs party".utf8)), pyID = Hash.sha256(Array("reference party".utf8))
    static let primesFile = TestPaths.root.appendingPathComponent("tools/mpc-ref/fixtures/safe-primes.json").path

    static func state() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-mpc-cheat-\(UUID().uuidString)")
            .path
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// kcs as P1 with an honest reference P2: pairing and an hd-master key (the state for P2's cheats).
    static let kcsConsole: (state: String, group: UnknownOrderGroup, share: Party1Share) = {
        let dir = state()
        let pair = PairingParty1(pid1: kcsID, pid2: pyID, primes: { ReferencePartyTests.safePrimes })
        let py = try! ReferenceParty("pair", role: "p2", pidSelf: pyID, pidPeer: kcsID, state: dir)
        try! py.play(pair, kcsStarts: true)
        _ = py.finish()
        let dkg = KeyGenerationParty1(kind: .hdMaster, pid1: kcsID, pid2: pyID)
        let pyDKG = try! ReferenceParty("dkg", role: "p2", pidSelf: pyID, pidPeer: kcsID, state: dir)
        try! pyDKG.play(dkg, kcsStarts: true)
        _ = pyDKG.finish()
        return (dir, pair.group!, dkg.share!)
    }()

    /// kcs as P2 with an honest reference P1.
    static let kcsCoSigner: (state: String, group: UnknownOrderGroup, share: Party2Share) = {
        let dir = state()
        let pair = PairingParty2(pid1: pyID, pid2: kcsID)
        let py = try! ReferenceParty(
            "pair", role: "p1", pidSelf: pyID, pidPeer: kcsID, state: dir, extra: ["--safe-primes", primesFile])
        try! py.play(pair, kcsStarts: false)
        _ = py.finish()
        let dkg = KeyGenerationParty2(pid1: pyID, pid2: kcsID)
        let pyDKG = try! ReferenceParty(
            "dkg", role: "p1", pidSelf: pyID, pidPeer: kcsID, state: dir, extra: ["--kind", "hd-master"])
        try! pyDKG.play(dkg, kcsStarts: false)
        _ = pyDKG.finish()
        return (dir, pair.group!, dkg.share!)
    }()

    func caught(_ error: MPCError?, _ check: String) -> Bool {
        guard let error else { return false }
        return check == "frame" ? error.id == "mpc.badFrame" : error.check == check
    }

    /// A cheating console (the reference as P1) against kcs's co-signer.
    @Test(arguments: [
        ("pair", "bad-uo", "pair.uo"),
        ("dkg", "n-small-factor", "dkg.n"), ("dkg", "n-2047", "dkg.n"), ("dkg", "c-key-plus-q", "dkg.pe"),
        ("dkg", "c-key-out-of-range", "dkg.c-key"), ("dkg", "bad-opening", "dkg.opening"), ("dkg", "bad-dl", "dkg.dl"),
        ("dkg", "bad-vp", "dkg.vp"), ("dkg", "bad-pdl", "dkg.pdl"), ("dkg", "bad-pe", "dkg.pe"),
        ("dkg", "bad-rp", "dkg.rp"),
        ("dkg", "stale-sid", "frame"), ("sign", "bad-sign-opening", "sign.opening"), ("sign", "stale-sid", "frame"),
        ("dkg", "drop-after-1", "frame"),
    ])
    func cheatingConsole(_ phase: String, _ evil: String, _ check: String) throws {
        let dir: String, party: TwoPartyStep
        var extra = ["--evil", evil]
        switch phase {
        case "pair":
            dir = Self.state()
            party = PairingParty2(pid1: Self.pyID, pid2: Self.kcsID)
            extra += ["--safe-primes", Self.primesFile]
        case "dkg":
            dir = Self.state()
            party = KeyGenerationParty2(pid1: Self.pyID, pid2: Self.kcsID)
            extra += ["--kind", "hd-master"]
        default:
            let fixture = Self.kcsCoSigner
            dir = fixture.state
            party = SigningParty2(share: fixture.share, group: fixture.group, pid1: Self.pyID, pid2: Self.kcsID)
            extra += ["--path", "m/0/1", "--payload-kind", "digest", "--payload", Hex.encode(Hash.sha256([9]))]
        }
        let py = try ReferenceParty(
            phase, role: "p1", pidSelf: Self.pyID, pidPeer: Self.kcsID, state: dir, extra: extra)
        var failure: MPCError?
        do { try py.play(party, kcsStarts: false) } catch { failure = error }
        let result = py.finish()
        #expect(
            caught(failure, check),
            "\(phase) --evil \(evil): kcs said \(String(describing: failure)); reference: \(result.log)")
        #expect(result.status != 0)
        if let dkg = party as? KeyGenerationParty2 { #expect(dkg.share == nil) }
        if let pairing = party as? PairingParty2 { #expect(pairing.group == nil) }
        if let sign = party as? SigningParty2 { #expect(sign.signature == nil) }
    }

    /// A cheating co-signer (the reference as P2) against kcs's console: caught before decryption.
    @Test(arguments: [
        ("dkg", "bad-dl2", "dkg.dl"), ("sign", "bad-dl2", "sign.dl"), ("sign", "wrong-x2", "sign.proof"),
        ("sign", "bad-proof-z1", "sign.proof"), ("sign", "bad-proof-e", "sign.proof"),
        ("sign", "bad-proof-w", "sign.proof"),
        ("sign", "bit-leak", "sign.proof"), ("sign", "bad-c-gcd", "sign.proof"), ("sign", "replay-s3", "frame"),
        ("sign", "drop-after-3", "frame"),
    ])
    func cheatingCoSigner(_ phase: String, _ evil: String, _ check: String) throws {
        let fixture = Self.kcsConsole
        let party: TwoPartyStep
        if phase == "dkg" {
            party = KeyGenerationParty1(kind: .ecdsa, pid1: Self.kcsID, pid2: Self.pyID)
        } else {
            let digest = Hash.sha256(Array(evil.utf8))
            let request = SignRequest(
                key: fixture.share.q, path: try DerivationPath("m/0/2"), payloadKind: "digest", payload: digest,
                digest: digest)
            party = try SigningParty1(
                share: fixture.share, group: fixture.group, request: request, pid1: Self.kcsID, pid2: Self.pyID)
        }
        let dir = phase == "dkg" ? Self.state() : fixture.state
        let py = try ReferenceParty(
            phase, role: "p2", pidSelf: Self.pyID, pidPeer: Self.kcsID, state: dir,
            extra: ["--evil", evil, "--approve-all"])
        var failure: MPCError?
        do { try py.play(party, kcsStarts: true) } catch { failure = error }
        let result = py.finish()
        #expect(
            caught(failure, check),
            "\(phase) --evil \(evil): kcs said \(String(describing: failure)); reference: \(result.log)")
        if let dkg = party as? KeyGenerationParty1 { #expect(dkg.share == nil) }
        if let sign = party as? SigningParty1 { #expect(sign.signature == nil) }
    }
}
