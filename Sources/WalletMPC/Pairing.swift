import Foundation
import WalletCrypto

// Pairing (docs/two-party-protocol.md §4): P1 makes the unknown-order group of P2's signing
// proof (N_ped from two safe primes, h a square, g = h^α) and proves g ∈ ⟨h⟩; P2 checks it and
// keeps the group for this peer.

/// The unknown-order group, made once per pairing by P1.
public enum PairingGroup {
    /// Two 1024-bit safe primes, searched on two cores at once.
    public static func safePrimes() throws(MPCError) -> (BigNum, BigNum) {
        let results = Mutex2()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            results.set(i, try? BigNum.prime(bits: 1024, safe: true))
        }
        guard let p = results.values[0], let q = results.values[1] else {
            throw .arithmetic("the safe-prime search failed")
        }
        return (p, q)
    }

    final class Mutex2: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var values: [BigNum?] = [nil, nil]
        func set(_ i: Int, _ v: BigNum?) {
            lock.lock()
            values[i] = v
            lock.unlock()
        }
    }

    /// N_ped = p·q, h = u², α ← [0, N_ped·2^σ), g = h^α.
    static func make(primes: (BigNum, BigNum), random: MPCRandom) throws(MPCError) -> (UnknownOrderGroup, alpha: BigNum)
    {
        let n = try arith { try BigNum(bytes: (try primes.0 * primes.1).bytes) }
        guard n.bitCount == 2048 else { throw .arithmetic("the safe primes do not make a 2048-bit N_ped") }
        let u = try random.unit(n, secret: false)
        let h = try arith { try BigNum.modMul(u, u, n) }
        let alpha = try random.below(try arith { try n.shiftedLeft(Curve.sigma) })
        let g = try arith { try BigNum(bytes: BigNum.modExp(h, alpha, n).bytes) }
        return (UnknownOrderGroup(n: n, g: g, h: h), alpha)
    }
}

/// P1 of pairing.
public final class PairingParty1: TwoPartyStep {
    let pid1: [UInt8], pid2: [UInt8]
    let random: MPCRandom
    let primes: (() throws(MPCError) -> (BigNum, BigNum))
    public private(set) var frameSID = [UInt8](repeating: 0, count: 32)
    public private(set) var expectedStep = 1
    public var isDone: Bool { expectedStep >= 5 }
    /// The group, once P2 confirmed it.
    public private(set) var group: UnknownOrderGroup?
    private var pending: UnknownOrderGroup?

    public init(
        pid1: [UInt8], pid2: [UInt8], random: MPCRandom = MPCRandom(),
        primes: @escaping () throws(MPCError) -> (BigNum, BigNum) = PairingGroup.safePrimes
    ) {
        self.pid1 = pid1
        self.pid2 = pid2
        self.random = random
        self.primes = primes
    }

    public func next(_ incoming: Frame?) throws(MPCError) -> Frame? {
        switch (expectedStep, incoming) {
        case (1, nil):
            frameSID = random.bytes(32)
            expectedStep = 2
            return Frame(type: "pair.p1", step: 1, sid: frameSID)
        case (2, let f?):
            try f.expect("pair.p2", step: 2, sid: frameSID, fields: ["sid2"])
            let sid = sessionID(
                "pair", n1: frameSID, n2: try FieldReader(f).bytes("sid2", count: 32), pid1: pid1, pid2: pid2)
            let (group, alpha) = try PairingGroup.make(primes: try primes(), random: random)
            let proof = try UnknownOrderProof.prove(group: group, alpha: alpha, sid: sid, pid: pid1, random: random)
            pending = group
            expectedStep = 4
            return Frame(
                type: "pair.p3", step: 3, sid: frameSID,
                fields: [
                    "n_ped": try group.n.wire(256), "g": try group.g.wire(256), "h": try group.h.wire(256),
                    "uo": proof.wire,
                ])
        case (4, let f?):
            try f.expect("pair.p4", step: 4, sid: frameSID, fields: ["result"])
            guard try FieldReader(f).string("result") == "confirm" else {
                throw .badFrame(reason: "pair.p4: result is not confirm")
            }
            group = pending
            expectedStep = 5
            return nil
        default:
            throw .badFrame(reason: "pairing: nothing expected now")
        }
    }
}

/// P2 of pairing.
public final class PairingParty2: TwoPartyStep {
    let pid1: [UInt8], pid2: [UInt8]
    let random: MPCRandom
    public private(set) var frameSID = [UInt8](repeating: 0, count: 32)
    public private(set) var expectedStep = 1
    public var isDone: Bool { expectedStep >= 5 }
    private var sid: [UInt8] = []
    /// The group, once its proof verified.
    public private(set) var group: UnknownOrderGroup?

    public init(pid1: [UInt8], pid2: [UInt8], random: MPCRandom = MPCRandom()) {
        self.pid1 = pid1
        self.pid2 = pid2
        self.random = random
    }

    public func next(_ incoming: Frame?) throws(MPCError) -> Frame? {
        guard let f = incoming else { throw .badFrame(reason: "pairing: P2 does not start") }
        switch expectedStep {
        case 1:
            try f.expect("pair.p1", step: 1, sid: f.sid, fields: [])
            frameSID = f.sid
            let n2 = random.bytes(32)
            sid = sessionID("pair", n1: frameSID, n2: n2, pid1: pid1, pid2: pid2)
            expectedStep = 3
            return Frame(type: "pair.p2", step: 2, sid: frameSID, fields: ["sid2": .hex(n2)])
        case 3:
            try f.expect("pair.p3", step: 3, sid: frameSID, fields: ["n_ped", "g", "h", "uo"])
            let r = FieldReader(f)
            let group = UnknownOrderGroup(
                n: try r.fixed("n_ped", width: 256), g: try r.fixed("g", width: 256), h: try r.fixed("h", width: 256))
            let proof = try UnknownOrderProof(try r.object("uo", fields: ["e", "z"]))
            try proof.verify(group: group, sid: sid, pid: pid1)
            self.group = group
            expectedStep = 5
            return Frame(type: "pair.p4", step: 4, sid: frameSID, fields: ["result": .string("confirm")])
        default:
            throw .badFrame(reason: "pairing: nothing expected now")
        }
    }
}
