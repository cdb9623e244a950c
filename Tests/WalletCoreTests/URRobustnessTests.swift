// Hostile input for the CBOR and UR decoders (docs/ur.md §3–4: bounded cost, a clear error, no
// crash): seeded random bytes and mutations of valid items into CBOR and every registry type;
// mutated and random UR parts into the decoder, which must either keep going or refuse — and a
// decoder fed good parts after bad ones still finishes with the right message.
import Testing
import WalletCore
import WalletCrypto

@Suite("CBOR and UR decoders under hostile input")
struct URRobustnessTests {
    /// Tries every registry reader on `bytes`; returns how many accepted it.
    func readAll(_ bytes: [UInt8]) -> Int {
        guard let item = try? CBOR(decoding: bytes) else { return 0 }
        var n = 0
        if (try? URSeed(cbor: item)) != nil { n += 1 }
        if (try? URBIP39(cbor: item)) != nil { n += 1 }
        if (try? URHDKey(cbor: item)) != nil { n += 1 }
        if (try? URKeypath(cbor: item)) != nil { n += 1 }
        if (try? UROutput(cbor: item)) != nil { n += 1 }
        if (try? URAccount(cbor: item)) != nil { n += 1 }
        if (try? ETHSignRequest(cbor: item)) != nil { n += 1 }
        if (try? ETHSignature(cbor: item)) != nil { n += 1 }
        if (try? FountainPart(cbor: bytes)) != nil { n += 1 }
        _ = item.encoded  // re-encoding anything read must work too
        return n
    }

    @Test func randomAndMutatedCBOR_isReadOrRefused() {
        var rng = Xoshiro256(string: "cbor-fuzz")
        let seeds: [[UInt8]] = [
            CBOR.map([(.int(1), .bytes([1, 2, 3])), (.int(2), .tagged(1, .unsigned(5)))]).encoded,
            ETHSignRequest(
                requestID: [UInt8](repeating: 7, count: 16), signData: [0xC0], dataType: .legacyTransaction, chainID: 1,
                path: URKeypath(
                    components: [.index(44, hardened: true), .wildcard(hardened: false)], sourceFingerprint: 1),
                address: nil, origin: "x"
            ).cbor.encoded,
            FountainPart(
                sequenceNumber: 3, sequenceLength: 2, messageLength: 15, checksum: 9,
                data: [UInt8](repeating: 1, count: 10)
            ).cbor.encoded,
        ]
        var accepted = 0
        for i in 0..<20_000 {
            var bytes: [UInt8]
            if i % 2 == 0 {
                bytes = rng.nextData(count: rng.nextInt(in: 0...40))
            } else {
                bytes = seeds[i % seeds.count]
                for _ in 0..<rng.nextInt(in: 1...4) where !bytes.isEmpty {
                    bytes[rng.nextInt(in: 0...(bytes.count - 1))] = UInt8(rng.nextInt(in: 0...255))
                }
            }
            accepted += readAll(bytes)
        }
        #expect(accepted > 0, "mutations of valid items are sometimes still valid")
        // Lengths that promise more than there is are refused before anything is allocated.
        #expect(throws: CBORError.self) { try CBOR(decoding: [0x5B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) }
        #expect(throws: CBORError.self) { try CBOR(decoding: [0xBB, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) }
    }

    @Test func mutatedParts_areRefusedOrIgnored_andTheMessageStillComesThrough() throws {
        var rng = Xoshiro256(string: "ur-fuzz")
        let message = rng.nextData(count: 700)
        let resource = try UniformResource(type: "bytes", cbor: CBOR.bytes(message).encoded)
        var encoder = UREncoder(resource, maxFragmentLength: 60)
        let parts = (0..<40).map { _ in encoder.nextPart() }
        let letters = Array("abcdefghijklmnopqrstuvwxyz-/:0123456789".utf8)
        var decoder = URDecoder()
        var refused = 0
        for i in 0..<5_000 {
            var text = Array(parts[i % parts.count].utf8)
            for _ in 0..<rng.nextInt(in: 1...3) {
                text[rng.nextInt(in: 0...(text.count - 1))] = letters[rng.nextInt(in: 0...(letters.count - 1))]
            }
            do { try decoder.receive(String(decoding: text, as: UTF8.self)) } catch { refused += 1 }
            if i % 7 == 0 {
                var d = URDecoder()
                _ = try? d.receive(String(decoding: rng.nextData(count: rng.nextInt(in: 0...80)), as: UTF8.self))
            }
        }
        #expect(refused > 4_000, "almost every mutation breaks the checksum")
        // A mutation that survives the checksums cannot make the decoder finish with another message.
        if let result = decoder.result { #expect(result == resource) }
        for p in parts where decoder.result == nil { try decoder.receive(p) }
        #expect(decoder.result == resource)
    }
}
