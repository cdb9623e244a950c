import Testing
import WalletCrypto

/// AES-128-CCM (tag 8, nonce 13, no associated data) as Keycard 4.0's Secure Channel V2 uses
/// it. Known answers: the Keycard 4.0 protocol notes' CCM rows (A12.7) and the secured APDUs
/// recorded from the 4.0 applet running in jCardSim (A12.3 nonce 1: a Java Card's own AES-CCM),
/// both in docs/keycard-protocol.md "Secure Channel V2".
@Suite("AES-128-CCM")
struct CCMTests {
    let key = Secret(bytes: try! Hex.decode("000102030405060708090A0B0C0D0E0F"))

    func key(_ hex: String) throws -> Secret { Secret(bytes: try Hex.decode(hex)) }

    func nonce(_ tail: [UInt8]) -> [UInt8] { [UInt8](repeating: 0, count: 13 - tail.count) + tail }

    @Test(
        "known answers",
        arguments: [
            ([UInt8](), "80F2000000", "FF14E7FA6BB112C30FA1E89E22"),
            ([0x01], "8020000006313233343536", "3D476F4029466363BFDB40B2525ACAFDFD743D"),
            ([0x01, 0x02], "9000", "70F3BD8199739239C736"),
        ])
    func knownAnswers(tail: [UInt8], plain: String, sealed: String) throws {
        let out = try AESCipher.ccmSeal(try Hex.decode(plain), key: key, nonce: nonce(tail), tagLength: 8)
        #expect(Hex.encode(out).uppercased() == sealed)
        #expect(
            try AESCipher.ccmOpen(try Hex.decode(sealed), key: key, nonce: nonce(tail), tagLength: 8)
                == Hex.decode(plain))
    }

    @Test("a secured APDU recorded from the 4.0 applet")
    func recordedSession() throws {
        // Session 2, nonce 1: VERIFY PIN 123456 under key_h2c; the card's answer 9000 under key_c2h.
        let h2c = try key("9225E7099CE4FE1150BD2316E330D52D"), c2h = try key("868DAA31C82B67EA53697454CBC9EDF1")
        let wire = try AESCipher.ccmSeal(
            try Hex.decode("8020000006313233343536"), key: h2c, nonce: nonce([1]), tagLength: 8)
        #expect(Hex.encode(wire).uppercased() == "350A18762993F31B1D1AADF187303FB375FB39")
        let answer = try AESCipher.ccmOpen(
            try Hex.decode("C07999E2B51F54F75B32"), key: c2h, nonce: nonce([1]), tagLength: 8)
        #expect(answer == [0x90, 0x00])
    }

    @Test("any changed byte, a wrong nonce or a wrong key is refused")
    func refusals() throws {
        let sealed = try Hex.decode("3D476F4029466363BFDB40B2525ACAFDFD743D")
        for index in sealed.indices {
            var bad = sealed
            bad[index] ^= 0x01
            #expect(throws: WalletCryptoError.authenticationFailed) {
                try AESCipher.ccmOpen(bad, key: key, nonce: nonce([1]), tagLength: 8)
            }
        }
        #expect(throws: WalletCryptoError.authenticationFailed) {
            try AESCipher.ccmOpen(sealed, key: key, nonce: nonce([2]), tagLength: 8)
        }
        #expect(throws: WalletCryptoError.authenticationFailed) {
            try AESCipher.ccmOpen(
                sealed, key: try key("000102030405060708090A0B0C0D0E00"), nonce: nonce([1]), tagLength: 8)
        }
        #expect(throws: WalletCryptoError.self) {
            try AESCipher.ccmOpen([1, 2, 3], key: key, nonce: nonce([1]), tagLength: 8)
        }
        #expect(throws: WalletCryptoError.self) { try AESCipher.ccmSeal([1], key: key, nonce: [0, 1], tagLength: 8) }
        #expect(throws: WalletCryptoError.self) {
            try AESCipher.ccmSeal([1], key: try key("0001"), nonce: nonce([1]), tagLength: 8)
        }
    }
}
