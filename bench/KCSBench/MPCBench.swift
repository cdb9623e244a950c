import Foundation
import MPCLink
import WalletCore
import WalletCrypto
import WalletMPC

/// Two-party ECDSA (issue 16 §4), both parties in this process (no sockets): pairing, DKG and
/// signing, median and p95; and the Paillier operations signing is made of, beside the same
/// operations straight on libcrypto (bench/c/bench.c "mpc").
enum MPCBench {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = clock.now
        try body()
        let d = clock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func percentiles(_ name: String, _ times: [Double]) {
        let sorted = times.sorted()
        print(String(format: "%@_median_ms %.1f", name, sorted[sorted.count / 2] * 1000))
        print(
            String(
                format: "%@_p95_ms %.1f", name, sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.95))] * 1000))
    }

    static func run() throws {
        let pid1 = Hash.sha256(Array("bench P1".utf8)), pid2 = Hash.sha256(Array("bench P2".utf8))
        var group: UnknownOrderGroup?
        var pairing: [Double] = []
        for _ in 0..<3 {
            let p1 = PairingParty1(pid1: pid1, pid2: pid2), p2 = PairingParty2(pid1: pid1, pid2: pid2)
            pairing.append(try seconds { try TwoPartyRun.run(p1, p2) })
            group = p1.group
        }
        percentiles("mpc_pairing", pairing)
        var share: (Party1Share, Party2Share)?
        var dkg: [Double] = []
        for _ in 0..<5 {
            let p1 = KeyGenerationParty1(kind: .hdMaster, pid1: pid1, pid2: pid2),
                p2 = KeyGenerationParty2(pid1: pid1, pid2: pid2)
            dkg.append(try seconds { try TwoPartyRun.run(p1, p2) })
            share = (p1.share!, p2.share!)
        }
        percentiles("mpc_dkg", dkg)
        var sign: [Double] = []
        for i in 0..<20 {
            let digest = Hash.sha256(Array("bench \(i)".utf8))
            let request = SignRequest(
                key: share!.0.q, path: try DerivationPath("m/0/\(i)"), payloadKind: "digest", payload: digest,
                digest: digest)
            let p1 = try SigningParty1(share: share!.0, group: group!, request: request, pid1: pid1, pid2: pid2)
            let p2 = SigningParty2(share: share!.1, group: group!, pid1: pid1, pid2: pid2)
            sign.append(try seconds { try TwoPartyRun.run(p1, p2) })
            precondition(p1.signature != nil)
        }
        percentiles("mpc_sign", sign)
        // The same over TCP on 127.0.0.1: the channel's handshake (Ed25519, X25519) and secret
        // streams included, the co-signer on its own thread.
        let p1ID = PartyIdentity.generate(), p2ID = PartyIdentity.generate()
        var loopback: [Double] = []
        for i in 0..<20 {
            let listener = try SocketListener(.tcp(host: "127.0.0.1", port: 0))
            let s2 = share!.1, g = group!
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                if let socket = try? listener.accept(seconds: 10),
                    let channel = try? SecureChannel.open(
                        socket, identity: p2ID, initiator: false, pinned: p1ID.publicKey)
                {
                    try? ChannelRun.run(
                        SigningParty2(share: s2, group: g, pid1: pid1, pid2: pid2), over: channel, initiator: false)
                }
                done.signal()
            }
            let digest = Hash.sha256(Array("loopback \(i)".utf8))
            let request = SignRequest(
                key: share!.0.q, path: try DerivationPath("m/1/\(i)"), payloadKind: "digest", payload: digest,
                digest: digest)
            let p1 = try SigningParty1(share: share!.0, group: g, request: request, pid1: pid1, pid2: pid2)
            loopback.append(
                try seconds {
                    let channel = try SecureChannel.open(
                        try SocketStream.connect(listener.endpoint), identity: p1ID, initiator: true,
                        pinned: p2ID.publicKey)
                    try ChannelRun.run(p1, over: channel, initiator: true)
                })
            done.wait()
            precondition(p1.signature != nil)
        }
        percentiles("mpc_sign_tcp", loopback)
        // The Paillier operations alone, through kcs's wrapper (compare bench.c's "mpc").
        let key = share!.0.paillier, pk = key.publicKey
        var last = pk.n
        report(
            "paillier_enc",
            try rate(40) { _ in
                last = try pk.encrypt(try BigNum.random(below: pk.n), r: try BigNum.random(below: pk.n))
            })
        report("paillier_dec", try rate(40) { _ in _ = try key.decrypt(last) })
    }
}
