// The fountain decoder against a hostile sender (docs/ur.md, "Bounds"): parts that never make a
// message cost time near-linear in their number, and a sender that keeps sending is stopped
// with an error once it has sent four times the parts a message needs.
import Foundation
import Testing
import WalletCore

@Suite("Fountain decoding under hostile parts")
struct FountainBoundsTests {
    /// This thread's CPU seconds, which a busy machine (or the tests running beside) does not inflate.
    static func cpuSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// The error `body` throws, if any.
    static func refusal(_ body: () throws(URError) -> Void) -> URError? {
        do {
            try body()
            return nil
        } catch { return error }
    }

    @Test func twentyThousandMixedParts_costLittle_andAreRefusedPastTheBound() throws {
        // 10,000 fragments of 8 bytes; only mixed parts (sequence numbers past the length), with
        // data of a message that does not exist.
        let length = 10_000, fragment = 8
        var decoder = FountainDecoder()
        var random = Xoshiro256(seed: Array("kcs fountain bomb".utf8))
        let start = Self.cpuSeconds()
        var refused: URError?
        for n in 0..<20_000 {
            let part = FountainPart(
                sequenceNumber: UInt32(length + 1 + n), sequenceLength: length, messageLength: length * fragment,
                checksum: 0x1234_5678, data: random.nextData(count: fragment))
            refused = Self.refusal { () throws(URError) in _ = try decoder.receive(part) }
            if refused != nil { break }
        }
        let spent = Self.cpuSeconds() - start
        #expect(refused == nil && decoder.message == nil && decoder.partsRead == 20_000)
        // Before the held mixes were indexed by fragment, this took minutes of CPU (each part
        // was compared with every held mix); now seconds, even in a debug build.
        #expect(spent < 60, "20,000 hostile parts took \(spent) s of CPU")

        // A sender that goes on past 4 × 200 + 1,000 distinct parts without making a message is
        // told to stop: here parts that each mix more fragments than the decoder uses.
        var small = FountainDecoder()
        var stopped: URError?
        var sent = 0
        var n: UInt32 = 200
        while stopped == nil {
            n += 1
            guard
                FountainCode.fragments(
                    sequenceNumber: n, sequenceLength: 200, checksum: 0x1234_5678, sampler: nil,
                    maximumDegree: FountainDecoder.maximumMixDegree) == nil
            else { continue }
            let part = FountainPart(
                sequenceNumber: n, sequenceLength: 200, messageLength: 200 * fragment,
                checksum: 0x1234_5678, data: random.nextData(count: fragment))
            stopped = Self.refusal { () throws(URError) in _ = try small.receive(part) }
            sent += 1
        }
        #expect(sent == 1_801 && small.message == nil)
        #expect(
            stopped?.description.contains("more than 1800 distinct parts") == true, "\(String(describing: stopped))")
    }
}
