// The two-party channel against an independent implementation (docs/two-party-protocol.md §7):
// the Python reference party (tools/mpc-ref, PyNaCl's key exchange, secret streams and Ed25519)
// pairs, makes a joint key and signs with the real `kcs` binary over TCP — once as the console
// against `kcs cosigner serve`, once as the co-signer of a kcs console — and refuses a peer whose
// identity is not the pinned one.
import Foundation
import KCSTestSupport
import Testing

@Suite("Two-party channel against the reference party", .serialized)
struct TwoPartyChannelInteropTests {
    static var python: String { TestPaths.root.appendingPathComponent(".build/mpc-venv/bin/python").path }
    static var party: String { TestPaths.root.appendingPathComponent("tools/mpc-ref/party.py").path }

    /// Runs one phase of the reference party to the end; (status, stderr).
    func reference(_ arguments: [String], wait: Bool = true) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.python)
        p.arguments = [Self.party] + arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        if wait { p.waitUntilExit() }
        return p
    }

    /// Starts the reference party listening (`arguments` hold --listen) and returns once its
    /// socket is bound: it writes `--ready FILE` then (a busy machine may take seconds).
    func listening(_ arguments: [String], ready name: String, in home: BatchHome) throws -> Process {
        let ready = home.path(name + ".ready")
        try? FileManager.default.removeItem(atPath: ready)
        let p = try reference(arguments + ["--ready", ready], wait: false)
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: ready) {
            guard p.isRunning, Date() < deadline else { throw ReferenceDidNotListen(arguments: arguments) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return p
    }

    struct ReferenceDidNotListen: Error { let arguments: [String] }

    /// A free TCP port on 127.0.0.1.
    func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    @Test func referenceConsole_withKcsCosignerServe() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let (cosigner, address) = try home.startCosigner()
        defer {
            cosigner.terminate()
            cosigner.waitUntilExit()
        }
        let state = home.path("py"), identity = home.path("py-identity.json")
        let common = ["--role", "p1", "--state", state, "--connect", address, "--identity", identity]
        let pair = try reference(
            ["pair"] + common + [
                "--safe-primes", TestPaths.root.appendingPathComponent("tools/mpc-ref/fixtures/safe-primes.json").path,
            ])
        #expect(pair.terminationStatus == 0)
        let dkg = try reference(["dkg"] + common + ["--kind", "hd-master"])
        #expect(dkg.terminationStatus == 0)
        let sign = try reference(
            ["sign"] + common + ["--path", "m/0/2", "--payload-kind", "eth-message", "--payload", "6869"])
        #expect(sign.terminationStatus == 0)
        let log = try String(contentsOfFile: home.path("cosigner.out"), encoding: .utf8)
        #expect(log.contains("paired with console-"), "\(log)")
        #expect(
            log.contains("co-sign request") && log.contains("EIP-191 personal message")
                && log.contains("text            hi"), "\(log)")
        let audit = try home.run("for s in mpc.sessions() { print \"S\", s.kind, s.state }", name: "audit.kcs")
        #expect(tagged("S", in: audit.out) == ["sign done", "dkg done", "pair done"])
    }

    @Test func kcsConsole_withReferenceCoSigner() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let port = try freePort(), address = "127.0.0.1:\(port)"
        let state = home.path("py"), identity = home.path("py-identity.json")
        let common = ["--role", "p2", "--state", state, "--listen", address, "--identity", identity, "--approve-all"]
        // One reference process per phase, listening on the same port.
        func phase(_ name: String, _ script: String) throws -> (Int32, String) {
            let py = try listening([name] + common, ready: name, in: home)
            let r = try home.run(script, name: "\(name).kcs")
            py.waitUntilExit()
            #expect(py.terminationStatus == 0, "\(name): reference exit \(py.terminationStatus)")
            return (r.code, r.out + r.err)
        }
        let (c1, o1) = try phase("pair", "mpc.pair \"\(address)\" --name pyco --yes")
        #expect(c1 == 0, "\(o1)")
        let (c2, o2) = try phase("dkg", "key.generate --two-party --type hd-master --name joint")
        #expect(c2 == 0, "\(o2)")
        let (c3, o3) = try phase(
            "sign", "mpc.derive joint m/0/5\nprint \"V\", (sign message \"from kcs\" --key joint-0-5).verified")
        #expect(c3 == 0, "\(o3)")
        #expect(tagged("V", in: o3) == ["true"])
        // Someone else at the pinned address: refused before anything is sent.
        let stranger = home.path("stranger.json")
        let py = try listening(
            ["sign", "--role", "p2", "--state", state, "--listen", address, "--identity", stranger, "--approve-all"],
            ready: "stranger", in: home)
        let refused = try home.run(
            "try { sign message \"x\" --key joint-0-5 } catch e { print \"E\", e.kind }", name: "stranger.kcs")
        py.terminate()
        py.waitUntilExit()
        #expect(tagged("E", in: refused.out) == ["mpc.untrustedPeer"], "\(refused.out)\(refused.err)")

        // A co-signer that forges its signing proof: caught before anything is decrypted, no
        // signature made, the peer marked; the next signature in a batch run is refused without
        // connecting (nobody listens now: trying would be mpc.unreachable), with what to do.
        let evil = try listening(["sign"] + common + ["--evil", "bad-proof-z1"], ready: "evil", in: home)
        let cheated = try home.run(
            """
            try { sign message "y" --key joint-0-5 } catch e { print "E", e.kind, e.message }
            for p in mpc.peers() { print "M", contains(keys(p), "misbehaved") }
            print "H", len(history())
            """, name: "cheated.kcs")
        evil.terminate()
        evil.waitUntilExit()
        let caught = tagged("E", in: cheated.out)
        #expect(
            caught.count == 1 && caught[0].hasPrefix("mpc.checkFailed ") && caught[0].contains("sign."),
            "\(cheated.out)\(cheated.err)")
        #expect(tagged("M", in: cheated.out) == ["true"] && tagged("H", in: cheated.out) == ["1"], "\(cheated.out)")
        let next = try home.run(
            "try { sign message \"z\" --key joint-0-5 } catch e { print \"E\", e.kind }", name: "next.kcs")
        #expect(tagged("E", in: next.out) == ["mpc.peerMisbehaved"], "\(next.out)\(next.err)")
    }
}
