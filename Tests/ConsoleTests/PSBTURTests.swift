// PSBTs over QR codes (docs/bitcoin.md, "Air gap"): BCR-2020-006's `ur:psbt` vector read and
// written byte for byte; `ur:crypto-psbt` (what Sparrow sends), a tag-wrapped byte string (what
// some senders send) and the animated form read through qr.save/qr.read (zbar decodes the frames);
// the signed PSBT answered in the type received.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto
import WalletSession

/// BlockchainCommons/Research papers/bcr-2020-006-urtypes.md (commit e4a4fbb1): the BIP-174
/// creator vector's PSBT as `ur:psbt`.
private let bcrPSBT =
    "70736274ff01009a020000000258e87a21b56daf0c23be8e7070456c336f7cbaa5c8757924f545887bb2abdd750000000000ffffffff838d0427d0ec650a68aa46bb0b098aea4422c071b2ca78352a077959d07cea1d0100000000ffffffff0270aaf00800000000160014d85c2b71d0060b09c9886aeb815e50991dda124d00e1f5050000000016001400aea9a2e5f0f876a588df5546e8742d1d87008f000000000000000000"
private let bcrUR =
    "ur:psbt/hdosjojkidjyzmadaenyaoaeaeaeaohdvsknclrejnpebncnrnmnjojofejzeojlkerdonspkpkkdkykfelokgprpyutkpaeaeaeaeaezmzmzmzmlslgaaditiwpihbkispkfgrkbdaslewdfycprtjsprsgksecdratkkhktikewdcaadaeaeaeaezmzmzmzmaojopkwtayaeaeaeaecmaebbtphhdnjstiambdassoloimwmlyhygdnlcatnbggtaevyykahaeaeaeaecmaebbaeplptoevwwtyakoonlourgofgvsjydpcaltaemyaeaeaeaeaeaeaeaeaebkgdcarh"

@Suite("PSBTs over QR codes")
struct PSBTURTests {
    @Test func bcr2020006Vector_readAndWritten() throws {
        var decoder = URDecoder()
        try decoder.receive(bcrUR)
        let resource = try #require(decoder.result)
        guard case .psbt(let psbt, let type) = try Session.interpret(resource) else {
            Issue.record("not read as a PSBT")
            return
        }
        #expect(type == "psbt")
        #expect(Hex.encode(psbt.serialized) == bcrPSBT)
        let written = try UniformResource(type: "psbt", cbor: CBOR.bytes(try Hex.decode(bcrPSBT)).encoded)
        #expect(written.singlePart == bcrUR)
        // Tag-wrapped (#6.310, the old registry's tag) is read too.
        for tag: UInt64 in [310, 40310] {
            let wrapped = try UniformResource(
                type: "crypto-psbt", cbor: CBOR.tagged(tag, .bytes(try Hex.decode(bcrPSBT))).encoded)
            guard case .psbt(let p, "crypto-psbt") = try Session.interpret(wrapped) else {
                Issue.record("tag \(tag) not read")
                continue
            }
            #expect(p.serialized == psbt.serialized)
        }
        // Anything but a PSBT in a psbt UR is refused.
        let junk = try UniformResource(type: "crypto-psbt", cbor: CBOR.bytes([1, 2, 3]).encoded)
        #expect(throws: URError.self) { try Session.interpret(junk) }
    }

    @Test func cryptoPSBT_overAnimatedQR_signed_andAnsweredInItsType() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let funding = BitcoinOracle.fundingTransaction
        let script = try home.run(
            """
            import mnemonic "\(testMnemonic)" --name w
            let m = hd.master "\(testMnemonic)"
            let p = psbt.create [{"prevtx": "\(funding)", "vout": 0, "path": "m/84'/1'/0'/0/0"}] [{"address": "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", "amount": 99000}] --key $m --chain test
            let s = psbt.sign $p --key w --ur crypto-psbt
            print "U", s.ur
            qr.save $s.ur "signed.gif"
            let back = qr.read "signed.gif"
            print "K", back.kind, back.urType, back.txid == p.txid
            let again = psbt.finalize $back
            print "F", again.complete
            """)
        #expect(script.code == 0, "\(script.err)")
        let ur = try #require(tagged("U", in: script.out).first)
        #expect(ur.hasPrefix("ur:crypto-psbt/"))
        #expect(tagged("K", in: script.out) == ["psbt crypto-psbt true"])
        #expect(tagged("F", in: script.out) == ["true"])
        // zxing-cpp (not zbar) reads every frame of the animation kcs drew; reassembled, its parts
        // are the signed PSBT as a crypto-psbt.
        let frames = try QROracle.run(["read-gif", home.path("signed.gif")]).split(separator: "\n")
            .filter { !$0.hasPrefix("delay") }.map { String(decoding: try Hex.decode(String($0)), as: UTF8.self) }
        #expect(frames.count > 1)
        var decoder = URDecoder()
        for f in frames where decoder.result == nil { try decoder.receive(f) }
        guard case .psbt(let signed, "crypto-psbt")? = try decoder.result.map({ try Session.interpret($0) }) else {
            Issue.record("the answer is not a crypto-psbt")
            return
        }
        #expect(signed.inputs[0].partialSignatures.count == 1)
    }
}
