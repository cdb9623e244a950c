// The "did you mean" distance shared by BIP-39 word and key-name suggestions.
import Testing
import WalletCore

@Suite("Edit distance")
struct EditDistanceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let a: String, b: String, distance: Int
        var testDescription: String { "\(a) → \(b)" }
    }

    static let cases: [Case] = [
        Case(a: "", b: "", distance: 0),
        Case(a: "", b: "abc", distance: 3),
        Case(a: "kitten", b: "sitting", distance: 3),  // the classic: two substitutions, one insertion
        Case(a: "abandon", b: "abandno", distance: 1),  // a swap of neighbours is one edit
        Case(a: "ca", b: "abc", distance: 3),  // OSA, not full Damerau (which gives 2)
        Case(a: "savigns", b: "savings", distance: 1),
        Case(a: "flaw", b: "lawn", distance: 2),
    ]

    @Test(arguments: cases)
    func distance_isTheOptimalStringAlignment(_ c: Case) {
        #expect(EditDistance.between(Array(c.a), Array(c.b)) == c.distance)
        #expect(EditDistance.between(Array(c.b), Array(c.a)) == c.distance)  // symmetric
    }

    @Test func bound_givesNilOnlyAbove() {
        #expect(EditDistance.between(Array("kitten"), Array("sitting"), bound: 3) == 3)
        #expect(EditDistance.between(Array("kitten"), Array("sitting"), bound: 2) == nil)
        #expect(EditDistance.between(Array("a"), Array("abcd"), bound: 2) == nil)  // by length alone
        #expect(EditDistance.between(Array("abcdef"), Array("ghijkl"), bound: 1) == nil)  // by a row's minimum
    }
}
