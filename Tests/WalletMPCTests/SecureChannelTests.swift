// The two-party channel over real sockets (docs/two-party-protocol.md §7): the signed handshake,
// one secretstream per direction, a pinned identity, deadlines; pairing, DKG and signing run
// between two threads over a Unix socket and over TCP on 127.0.0.1.
import Foundation
import MPCLink
import Testing
import WalletCore
import WalletCrypto

@testable import WalletMPC

/// Runs `server` on a thread against one accepted connection and `client` here.
func overSocket(
    _ endpoint: Endpoint, server: @escaping @Sendable (SocketStream) throws -> Void,
    client: (Endpoint) throws -> Void
) throws -> (any Error)? {
    let listener = try SocketListener(endpoint)
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var serverError: (any Error)?
    Thread.detachNewThread {
        do {
            if let s = try listener.accept(seconds: 20) { try server(s) }
        } catch { serverError = error }
        done.signal()
    }
    try client(listener.endpoint)
    done.wait()
    return serverError
}

@Suite("Two-party channel over sockets")
struct SecureChannelTests {
    let p1ID = PartyIdentity.generate(), p2ID = PartyIdentity.generate()

    @Test func handshake_thenMessagesBothWays_overUnixAndTCP() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kcs-mpc-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let p1ID = p1ID, p2ID = p2ID
        for endpoint in [Endpoint.unix(dir.appendingPathComponent("s").path), .tcp(host: "127.0.0.1", port: 0)] {
            let error = try overSocket(
                endpoint,
                server: { socket in
                    let channel = try SecureChannel.open(
                        socket, identity: p2ID, initiator: false, pinned: p1ID.publicKey)
                    let m = try channel.receive()
                    try channel.send(m.reversed())
                    try channel.send([UInt8](repeating: 7, count: 300_000))
                },
                client: { endpoint in
                    let channel = try SecureChannel.open(
                        try SocketStream.connect(endpoint), identity: p1ID, initiator: true,
                        pinned: p2ID.publicKey)
                    #expect(channel.peerIdentity == p2ID.publicKey)
                    try channel.send([1, 2, 3])
                    #expect(try channel.receive() == [3, 2, 1])
                    #expect(try channel.receive() == [UInt8](repeating: 7, count: 300_000))
                })
            #expect(error == nil, "\(endpoint): \(String(describing: error))")
        }
    }

    @Test func anotherIdentity_thanThePinnedOne_isRefused() throws {
        let p2ID = p2ID, stranger = PartyIdentity.generate()
        let error = try overSocket(
            .tcp(host: "127.0.0.1", port: 0),
            server: { socket in
                _ = try? SecureChannel.open(socket, identity: stranger, initiator: false, pinned: nil)
            },
            client: { endpoint in
                #expect(
                    throws: MPCLinkError.untrustedPeer(fingerprint: stranger.fingerprint, expected: p2ID.fingerprint)
                ) {
                    try SecureChannel.open(
                        try SocketStream.connect(endpoint), identity: p1ID, initiator: true, pinned: p2ID.publicKey)
                }
            })
        #expect(error == nil)
    }

    @Test func silentPeer_timesOut_andAnAbsentOneIsUnreachable() throws {
        // The server holds the connection open and says nothing until the client has timed out
        // (however long a busy machine takes to get there), then lets it go.
        let clientDone = DispatchSemaphore(value: 0)
        let error = try overSocket(
            .tcp(host: "127.0.0.1", port: 0),
            server: { socket in
                _ = clientDone.wait(timeout: .now() + 60)
                _ = socket
            },
            client: { endpoint in
                defer { clientDone.signal() }
                #expect(throws: MPCLinkError.timeout(waitingFor: "the handshake", seconds: 1)) {
                    try SecureChannel.open(
                        try SocketStream.connect(endpoint), identity: p1ID, initiator: true, pinned: nil, timeout: 1)
                }
            })
        #expect(error == nil)
        #expect(throws: MPCLinkError.self) { try SocketStream.connect(.unix("/nonexistent/kcs.sock")) }
        #expect(throws: MPCLinkError.badAddress("nowhere")) { try Endpoint("nowhere") }
    }

    @Test func pairingDKGAndSigning_overTCP() throws {
        let p1ID = p1ID, p2ID = p2ID
        let pid1 = p1ID.pid, pid2 = p2ID.pid
        nonisolated(unsafe) var group2: UnknownOrderGroup?, share2: Party2Share?, signature2: RecoverableSignature?
        var group1: UnknownOrderGroup?, share1: Party1Share?
        // Pairing (with the suite's safe primes' group made fresh here: two safe-prime searches).
        for phase in 0..<3 {
            let error = try overSocket(
                .tcp(host: "127.0.0.1", port: 0),
                server: { socket in
                    let channel = try SecureChannel.open(
                        socket, identity: p2ID, initiator: false, pinned: p1ID.publicKey)
                    switch phase {
                    case 0:
                        let p2 = PairingParty2(pid1: pid1, pid2: pid2)
                        try ChannelRun.run(p2, over: channel, initiator: false)
                        group2 = p2.group
                    case 1:
                        let p2 = KeyGenerationParty2(pid1: pid1, pid2: pid2)
                        try ChannelRun.run(p2, over: channel, initiator: false, firstTimeout: 120)
                        share2 = p2.share
                    default:
                        let p2 = SigningParty2(share: share2!, group: group2!, pid1: pid1, pid2: pid2)
                        try ChannelRun.run(p2, over: channel, initiator: false)
                        signature2 = p2.signature
                    }
                },
                client: { endpoint in
                    let channel = try SecureChannel.open(
                        try SocketStream.connect(endpoint), identity: p1ID, initiator: true, pinned: p2ID.publicKey)
                    switch phase {
                    case 0:
                        let p1 = PairingParty1(pid1: pid1, pid2: pid2)
                        try ChannelRun.run(p1, over: channel, initiator: true)
                        group1 = p1.group
                    case 1:
                        let p1 = KeyGenerationParty1(kind: .hdMaster, pid1: pid1, pid2: pid2)
                        try ChannelRun.run(p1, over: channel, initiator: true)
                        share1 = p1.share
                    default:
                        let digest = Hash.sha256(Array("over TCP".utf8))
                        let request = SignRequest(
                            key: share1!.q, path: try DerivationPath("m/0/3"), payloadKind: "digest", payload: digest,
                            digest: digest)
                        let p1 = try SigningParty1(
                            share: share1!, group: group1!, request: request, pid1: pid1, pid2: pid2)
                        try ChannelRun.run(p1, over: channel, initiator: true)
                        let sig = try #require(p1.signature)
                        #expect(try sig.recoverPublicKey(digest: digest) == p1.childKey)
                        #expect(signature2 == nil || signature2 == sig)
                    }
                })
            #expect(error == nil, "phase \(phase): \(String(describing: error))")
        }
        #expect(group1 != nil && group1 == group2)
        #expect(share1?.q == share2?.q && share1 != nil)
        #expect(signature2 != nil)
    }
}
