// A Safe read from a node (docs/eth-signing.md, "Safe"): kcs asks VERSION(), nonce(), getOwners()
// and getThreshold() by eth_call, hashes for the version the Safe reports, refuses a signer that
// is not an owner and a nonce that has run. The Safe here is a stand-in deployed on the py-evm node
// that answers those four calls as a Safe 1.3.0 does (ABI-encoded), nothing more.
import EthRPC
import Foundation
import KCSTestSupport
import Testing

/// m/44'/60'/0'/0/0 of `testMnemonic`, and the address of the key 22…22.
private let owner = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
private let stranger = "0x1563915e194D8CfBA1943570603F7606A3115508"

/// Init code of a contract answering each 4-byte selector with fixed bytes (CODECOPY of a blob
/// appended to its code), and reverting on anything else.
private func fixedAnswers(_ answers: [([UInt8], [UInt8])]) -> [UInt8] {
    let header: [UInt8] = [0x60, 0x00, 0x35, 0x60, 0xE0, 0x1C]  // selector = calldata[0:4]
    let dispatchSize = 11 * answers.count + 4, handlerSize = 16
    var code = header
    var handlers: [UInt8] = []
    var blobs: [UInt8] = []
    let blobStart = header.count + dispatchSize + handlerSize * answers.count
    func two(_ n: Int) -> [UInt8] { [UInt8(n >> 8), UInt8(n & 0xFF)] }
    for (i, (selector, answer)) in answers.enumerated() {
        let dest = header.count + dispatchSize + handlerSize * i
        code += [0x80, 0x63] + selector + [0x14, 0x61] + two(dest) + [0x57]  // DUP1 PUSH4 sel EQ PUSH2 dest JUMPI
        let offset = blobStart + blobs.count
        handlers += [0x5B, 0x61] + two(answer.count) + [0x61] + two(offset) + [0x60, 0x00, 0x39]  // CODECOPY
        handlers += [0x61] + two(answer.count) + [0x60, 0x00, 0xF3]  // RETURN
        blobs += answer
    }
    code += [0x60, 0x00, 0x80, 0xFD] + handlers + blobs  // REVERT(0, 0)
    return [0x61] + two(code.count) + [0x80, 0x60, 0x0C, 0x60, 0x00, 0x39, 0x60, 0x00, 0xF3] + code
}

private func word(_ n: Int) -> [UInt8] {
    [UInt8](repeating: 0, count: 24) + withUnsafeBytes(of: UInt64(n).bigEndian, Array.init)
}
private func addressWord(_ a: String) -> [UInt8] {
    [UInt8](repeating: 0, count: 12)
        + stride(from: 2, to: 42, by: 2).map { i in
            UInt8(a[a.index(a.startIndex, offsetBy: i)..<a.index(a.startIndex, offsetBy: i + 2)], radix: 16)!
        }
}

@Suite("A Safe read from the node")
struct SafeNodeTests {
    @Test func versionOwnersAndNonce_fromTheNode() throws {
        let chain = try EVMChain()
        defer { chain.node.stop() }
        let version = Array("1.1.1".utf8)
        let other = "0x000000000000000000000000000000000000dEaD"
        let answers: [([UInt8], [UInt8])] = [
            ([0xFF, 0xA1, 0xAD, 0x74], word(32) + word(version.count) + version + [UInt8](repeating: 0, count: 27)),
            ([0xAF, 0xFE, 0xD0, 0xE0], word(5)),
            ([0xA0, 0xE6, 0x7E, 0x2B], word(32) + word(2) + addressWord(owner) + addressWord(other)),
            ([0xE7, 0x52, 0x35, 0xB8], word(2)),
        ]
        let accounts = try chain.rpc.call("eth_accounts") as! [String]
        let deploy = try #require(
            chain.rpc.call(
                "eth_sendTransaction",
                [
                    [
                        "from": accounts[0],
                        "data": "0x" + fixedAnswers(answers).map { String(format: "%02x", $0) }.joined(),
                        "gas": "0x100000",
                    ]
                ]) as? String)
        let safe = try #require(try chain.receipt(deploy)?["contractAddress"] as? String)
        let home = try chain.home()
        defer { home.remove() }
        let tx = #"{"to": "0x7b79995e5f793A07Bc00c21412e50Ecae098E7f9", "nonce": NONCE}"#
        let r = try home.run(
            """
            import mnemonic "\(testMnemonic)" --name demo
            let p = safe.tx \(tx.replacingOccurrences(of: "NONCE", with: "5")) --safe \(safe)
            print "P", p.version, p.safeNonce, p.threshold, p.owners
            let q = safe.tx \(tx.replacingOccurrences(of: "NONCE", with: "5")) --safe \(safe) --version 1.1.1 --chain 1 --offline
            print "SAME", hex(p.safeTxHash) == hex(q.safeTxHash)
            let s = sign safe \(tx.replacingOccurrences(of: "NONCE", with: "6")) --safe \(safe) --key demo-0
            print "S", s.owner, s.verified
            try { sign safe \(tx.replacingOccurrences(of: "NONCE", with: "6")) --safe \(safe) --key 0x\(String(repeating: "22", count: 32)) } catch e { print "E1", e.kind, e.message }
            try { sign safe \(tx.replacingOccurrences(of: "NONCE", with: "4")) --safe \(safe) --key demo-0 } catch e { print "E2", e.kind }
            print "H", len((history --kind typed))
            try { safe.tx \(tx.replacingOccurrences(of: "NONCE", with: "5")) --safe \(safe) --chain 1 } catch e { print "E3", e.kind }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("P", in: r.out) == ["1.1.1 5 2 [\"\(owner)\", \"0x000000000000000000000000000000000000dEaD\"]"])
        #expect(tagged("SAME", in: r.out) == ["true"])
        #expect(tagged("S", in: r.out) == ["\(owner) true"])
        #expect(
            tagged("E1", in: r.out).first?.hasPrefix(
                "eth.safe.notOwner sign.safe: \(stranger) is not an owner of the Safe") == true, "\(r.out)")
        #expect(tagged("E2", in: r.out) == ["eth.safe.nonceUsed"])
        #expect(tagged("H", in: r.out) == ["1"])
        // A --chain other than the node's: the Safe would be read on the wrong chain.
        #expect(tagged("E3", in: r.out) == ["eth.command.chainMismatch"])
    }
}
