// Secret, hex, constant-time compare, randomness and AES. AES vectors: NIST SP 800-38A
// (F.2.1 CBC-AES128.Encrypt, F.5.1 CTR-AES128.Encrypt, first block each) and the Keycard
// secure-channel `encrypt`/`decrypt` vectors from status-im/keycard-go crypto/crypto_test.go
// (Vectors/keycard.json).
import Foundation
import KCSTestSupport
import Testing
import WalletCrypto

@Suite("Secret")
struct SecretTests {
    @Test func description_debugAndMirror_showOnlyLength() {
        let s = Secret(bytes: [0xde, 0xad, 0xbe, 0xef])
        #expect(s.description == "<secret: 4 bytes>")
        #expect(String(reflecting: s) == "<secret: 4 bytes>")
        #expect("\(s)" == "<secret: 4 bytes>")
        var out = ""
        dump(s, to: &out)
        #expect(!out.lowercased().contains("dead"))
        #expect(!out.contains("222"))  // 0xde as decimal
        #expect(Mirror(reflecting: s).children.isEmpty)
    }

    @Test func equality_comparesContentAndLength() {
        #expect(Secret(bytes: [1, 2, 3]) == Secret(bytes: [1, 2, 3]))
        #expect(Secret(bytes: [1, 2, 3]) != Secret(bytes: [1, 2, 4]))
        #expect(Secret(bytes: [1, 2, 3]) != Secret(bytes: [1, 2]))
    }

    @Test func consumingInit_wipesTheSource() {
        var bytes: [UInt8] = [9, 9, 9]
        let s = Secret(consuming: &bytes)
        #expect(bytes.isEmpty)
        #expect(s.withUnsafeBytes { Array($0) } == [9, 9, 9])
    }

    @Test func constantTime_equal() {
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 0]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
    }
}

@Suite("Hex")
struct HexTests {
    @Test func decode_acceptsPrefixAndBothCases() throws {
        #expect(try Hex.decode("0xDEadBEef") == [0xde, 0xad, 0xbe, 0xef])
        #expect(try Hex.decode("00ff") == [0, 255])
        #expect(try Hex.decode("") == [])
        #expect(try Hex.decode("0x") == [])
        #expect(Hex.encode([0, 1, 0xab]) == "0001ab")
        #expect(Hex.encodePrefixed([0xff]) == "0xff")
    }

    @Test func decode_oddLength_isRejected() {
        #expect(throws: WalletCryptoError.hexOddLength(digits: 3)) { try Hex.decode("0xabc") }
        #expect(
            WalletCryptoError.hexOddLength(digits: 3).description == "hex must have an even number of digits, got 3")
    }

    @Test func decode_badCharacter_namesItsPosition() {
        #expect(throws: WalletCryptoError.hexInvalidCharacter(character: "g", position: 5)) { try Hex.decode("0xabg0") }
        #expect(throws: WalletCryptoError.hexInvalidCharacter(character: "é", position: 2)) { try Hex.decode("aé") }
        #expect(
            WalletCryptoError.hexInvalidCharacter(character: "g", position: 5).description
                == "hex must contain only 0-9, a-f, A-F; got 'g' at position 5")
        #expect(
            WalletCryptoError.hexInvalidCharacter(character: " ", position: 3).description
                == "hex must contain only 0-9, a-f, A-F; got U+0020 at position 3")
    }
}

@Suite("Randomness")
struct RandomTests {
    @Test func seeded_isReproducible() {
        #expect(SeededRandom(seed: 42).bytes(100) == SeededRandom(seed: 42).bytes(100))
        #expect(SeededRandom(seed: 42).bytes(32) != SeededRandom(seed: 43).bytes(32))
        let r = SeededRandom(seed: 7)
        let first = r.bytes(10), second = r.bytes(10)
        #expect(first + second == SeededRandom(seed: 7).bytes(20))
    }

    @Test func system_givesDifferentBytes() {
        #expect(SystemRandom().bytes(32) != SystemRandom().bytes(32))
    }

    @Test func uniform_staysInRange() {
        let r = SeededRandom(seed: 9)
        for _ in 0..<1000 { #expect(r.uniform(below: 6) < 6) }
    }
}

@Suite("AES")
struct AESTests {
    static let keycard = Vectors.json("keycard.json")

    @Test func cbc_sp800_38A_F21_firstBlock() throws {
        let key = Secret(bytes: try Hex.decode("2b7e151628aed2a6abf7158809cf4f3c"))
        let out = try AESCipher.cbcEncrypt(
            try Hex.decode("6bc1bee22e409f96e93d7e117393172a"), key: key,
            iv: try Hex.decode("000102030405060708090a0b0c0d0e0f"))
        #expect(out.hex == "7649abac8119b246cee98e9b12e9197d")
    }

    @Test func ctr_sp800_38A_F51_firstBlock() throws {
        let key = Secret(bytes: try Hex.decode("2b7e151628aed2a6abf7158809cf4f3c"))
        let out = try AESCipher.ctr(
            try Hex.decode("6bc1bee22e409f96e93d7e117393172a"), key: key,
            iv: try Hex.decode("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"))
        #expect(out.hex == "874d6191b620e3261bef6864990db6ce")
    }

    @Test func ctr_counterWrapsAs128BitInteger() throws {
        // With IV ff…ff the second block must use counter 00…00 (keystore `evilnonce` case).
        let key = Secret(bytes: [UInt8](repeating: 7, count: 16))
        let two = try AESCipher.ctr([UInt8](repeating: 0, count: 32), key: key, iv: [UInt8](repeating: 0xff, count: 16))
        let zero = try AESCipher.ctr([UInt8](repeating: 0, count: 16), key: key, iv: [UInt8](repeating: 0, count: 16))
        #expect(Array(two[16...]) == zero)
    }

    @Test func cbc_keycardEncryptVector_matches() throws {
        let v = Self.keycard.object("encrypt")
        let data = try Hex.decode(v.string("data")) + [0x80] + [UInt8](repeating: 0, count: 15)
        let out = try AESCipher.cbcEncrypt(
            data, key: Secret(bytes: try Hex.decode(v.string("enc_key"))),
            iv: try Hex.decode(v.string("iv")))
        #expect(out.hex == normHex(v.string("expected")))
    }

    @Test func cbc_keycardDecryptVector_matches() throws {
        let v = Self.keycard.object("decrypt")
        var out = try AESCipher.cbcDecrypt(
            try Hex.decode(v.string("enc_data")),
            key: Secret(bytes: try Hex.decode(v.string("enc_key"))),
            iv: try Hex.decode(v.string("iv")))
        while out.last == 0 { out.removeLast() }
        #expect(out.last == 0x80)
        out.removeLast()
        #expect(out.hex == normHex(v.string("expected")))
    }

    @Test func cbc_partialBlock_isRejected() {
        #expect(
            throws: WalletCryptoError.wrongLength(what: "AES-CBC data", expected: "a multiple of 16 bytes", got: 15)
        ) {
            try AESCipher.cbcEncrypt(
                [UInt8](repeating: 0, count: 15), key: Secret(bytes: [UInt8](repeating: 0, count: 32)),
                iv: [UInt8](repeating: 0, count: 16))
        }
    }

    @Test func gcm_roundTripsAndDetectsTampering() throws {
        let key = Secret(bytes: SeededRandom(seed: 5).bytes(32))
        let nonce = SeededRandom(seed: 6).bytes(12)
        let sealed = try AESCipher.gcmSeal(Secret(utf8: "seed words"), key: key, nonce: nonce, aad: Array("key-1".utf8))
        let opened = try AESCipher.gcmOpen(sealed, key: key, nonce: nonce, aad: Array("key-1".utf8))
        #expect(opened == Secret(utf8: "seed words"))
        var tampered = sealed
        tampered[0] ^= 1
        #expect(throws: WalletCryptoError.authenticationFailed) {
            try AESCipher.gcmOpen(tampered, key: key, nonce: nonce, aad: Array("key-1".utf8))
        }
        #expect(throws: WalletCryptoError.authenticationFailed) {
            try AESCipher.gcmOpen(sealed, key: key, nonce: nonce, aad: Array("key-2".utf8))
        }
    }
}
