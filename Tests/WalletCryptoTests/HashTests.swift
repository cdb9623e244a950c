// Hash vectors. Sources (see Vectors/*.json `_sources`):
// - keccak.json: Keccak team KATs (Keccak[r=1088,c=512], original padding) as kept by
//   Legrandin/pycryptodome test_vectors/.../keccak/*MsgKAT_256.txt; golang/crypto sha3_test.go;
//   ethers.js testcases/hashes.json.gz; XKCP ShortMsgKAT_SHA3-256.txt for the contrast set.
// - ripemd160.json: bitcoin/bitcoin src/test/crypto_tests.cpp; ethers.js hashes.json.gz;
//   bitcoin/bips bip-0049.mediawiki (HASH160).
import Foundation
import KCSTestSupport
import Testing
import WalletCrypto

private let keccak = Vectors.json("keccak.json")
private let ripemd = Vectors.json("ripemd160.json")

@Suite("Keccak-256")
struct KeccakTests {
    static let shortKAT = keccak.objects("keccak256_short_msg_kat")
    static let longKAT = keccak.objects("keccak256_long_msg_kat")
    static let ethers = keccak.objects("ethers_keccak256")
    static let contrast = keccak.objects("sha3_256_fips202_for_contrast")

    @Test("short message KAT (0…255 bytes)", arguments: shortKAT)
    func keccak256_shortMsgKAT_matchesKeccakTeam(_ row: JSON) throws {
        let msg = try Hex.decode(row.string("msg_hex"))
        #expect(Hash.keccak256(msg).hex == normHex(row.string("md")))
    }

    @Test("long message KAT (many 136-byte blocks)", arguments: longKAT)
    func keccak256_longMsgKAT_matchesKeccakTeam(_ row: JSON) throws {
        let msg = try Hex.decode(row.string("msg_hex"))
        #expect(Hash.keccak256(msg).hex == normHex(row.string("md")))
    }

    @Test("long message fed in uneven pieces gives the one-shot digest", arguments: longKAT.prefix(8))
    func keccak256_incrementalUpdates_matchOneShot(_ row: JSON) throws {
        let msg = try Hex.decode(row.string("msg_hex"))
        var h = Keccak256()
        var i = 0, step = 1
        while i < msg.count {
            let end = min(msg.count, i + step)
            h.update(msg[i..<end])
            i = end
            step = step * 3 % 157 + 1
        }
        #expect(h.finalize().hex == normHex(row.string("md")))
    }

    @Test("ethers.js hash cases", arguments: ethers)
    func keccak256_ethersCases_match(_ row: JSON) throws {
        let data = try Hex.decode(row.string("data_hex"))
        #expect(Hash.keccak256(data).hex == normHex(row.string("keccak256")))
    }

    @Test("ascii examples: empty string and abc")
    func keccak256_asciiExamples_match() {
        for row in keccak.objects("keccak256_ascii_examples") {
            let text = row.string("input_ascii")
            #expect(Hash.keccak256(Array(text.utf8)).hex == normHex(row.string("md")), "input \(text)")
        }
        #expect(Hash.keccak256([UInt8]()).hex == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
    }

    @Test("Keccak-512 of abc (golang/crypto TestKeccak)")
    func keccak512_abc_matchesGolang() {
        for row in keccak.objects("keccak512_ascii_examples") {
            #expect(Keccak256.hash512(Array(row.string("input_ascii").utf8)).hex == normHex(row.string("md")))
        }
    }

    @Test("is not FIPS-202 SHA3-256", arguments: contrast)
    func keccak256_differsFromSHA3_256(_ row: JSON) throws {
        let msg = try Hex.decode(row.string("msg_hex"))
        #expect(Hash.keccak256(msg).hex != normHex(row.string("md")))
    }

    @Test(
        "1 GiB extremely long message (set KCS_SLOW_TESTS=1)",
        .enabled(if: ProcessInfo.processInfo.environment["KCS_SLOW_TESTS"] == "1"))
    func keccak256_extremelyLongMsg_matches() {
        let row = keccak.object("keccak256_extremely_long_msg_kat")
        let chunk = Array(String(repeating: row.string("text"), count: 1024).utf8)
        var h = Keccak256()
        for _ in 0..<(row.int("repeat") / 1024) { h.update(chunk) }
        #expect(h.finalize().hex == normHex(row.string("md")))
    }
}

@Suite("RIPEMD-160 and HASH160")
struct RIPEMD160Tests {
    static let ascii = ripemd.objects("ascii")
    static let ethers = ripemd.objects("ethers")

    @Test("Bitcoin Core ascii vectors", arguments: ascii)
    func ripemd160_ascii_matchesBitcoinCore(_ row: JSON) {
        #expect(Hash.ripemd160(Array(row.string("input_ascii").utf8)).hex == normHex(row.string("ripemd160")))
    }

    @Test("ethers.js vectors (RIPEMD-160 and SHA-256)", arguments: ethers)
    func ripemd160_ethers_matches(_ row: JSON) throws {
        let data = try Hex.decode(row.string("data_hex"))
        #expect(Hash.ripemd160(data).hex == normHex(row.string("ripemd160")))
        #expect(Hash.sha256(data).hex == normHex(row.string("sha256")))
    }

    @Test("a million times 'a'")
    func ripemd160_millionA_matches() {
        let data = [UInt8](repeating: 0x61, count: 1_000_000)
        #expect(Hash.ripemd160(data).hex == normHex(ripemd.object("million_a").string("ripemd160")))
    }

    @Test("Bitcoin Core LongTestString")
    func ripemd160_longTestString_matches() {
        var data = [UInt8]()
        data.reserveCapacity(1_000_000)
        for i in 0..<200_000 {
            data += [
                UInt8(i & 0xff), UInt8((i >> 4) & 0xff), UInt8((i >> 8) & 0xff),
                UInt8((i >> 12) & 0xff), UInt8((i >> 16) & 0xff),
            ]
        }
        let row = ripemd.object("bitcoin_core_long_test_string")
        #expect(Hash.ripemd160(data).hex == normHex(row.string("ripemd160")))
        #expect(Hash.sha256(data).hex == normHex(row.string("sha256")))
    }

    @Test("HASH160 examples from BIP-49", arguments: ripemd.objects("hash160_bip49"))
    func hash160_bip49_matches(_ row: JSON) throws {
        #expect(Hash.hash160(try Hex.decode(row.string("input_hex"))).hex == normHex(row.string("hash160")))
    }
}

@Suite("SHA-2, HMAC, PBKDF2, scrypt")
struct KDFTests {
    // RFC 4231 test case 2 ("Jefe", "what do ya want for nothing?").
    @Test func hmac_rfc4231Case2_matches() {
        let key = Array("Jefe".utf8), data = Array("what do ya want for nothing?".utf8)
        #expect(
            Hash.hmacSHA256(key: key, data: data).hex
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            Hash.hmacSHA512(key: key, data: data).hex
                == "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        )
    }

    // RFC 7914 §12, second vector ("password", "NaCl", N=1024, r=8, p=16).
    @Test func scrypt_rfc7914Vector2_matches() throws {
        let dk = try KeyDerivation.scrypt(
            password: Secret(utf8: "password"), salt: Array("NaCl".utf8),
            n: 1024, r: 8, p: 16, length: 64)
        #expect(
            dk.withUnsafeBytes { Hex.encode($0) }
                == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        )
    }

    // RFC 6070 is SHA-1; this is the well-known PBKDF2-HMAC-SHA256 vector ("password", "salt", c=2, 32 bytes).
    @Test func pbkdf2_sha256_c2_matches() throws {
        let dk = try KeyDerivation.pbkdf2(
            password: Secret(utf8: "password"), salt: Array("salt".utf8),
            iterations: 2, length: 32, prf: .hmacSHA256)
        #expect(
            dk.withUnsafeBytes { Hex.encode($0) }
                == "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43")
    }

    @Test func scrypt_nNotPowerOfTwo_isRejectedByName() {
        #expect(
            throws: WalletCryptoError.invalidKDFParameter(
                parameter: "n", value: "1000",
                expected: "a power of two, at least 2")
        ) {
            try KeyDerivation.scrypt(password: Secret(utf8: "x"), salt: [], n: 1000, r: 8, p: 1, length: 32)
        }
        let e = WalletCryptoError.invalidKDFParameter(
            parameter: "n", value: "1000", expected: "a power of two, at least 2")
        #expect(e.description == "KDF parameter n must be a power of two, at least 2, got 1000")
    }

    @Test func scrypt_tooMuchMemory_isRefused() {
        #expect(throws: WalletCryptoError.self) {
            try KeyDerivation.scrypt(
                password: Secret(utf8: "x"), salt: [], n: 1 << 22, r: 8, p: 1, length: 32,
                maxMemory: 256 << 20)
        }
    }

    @Test func pbkdf2_zeroIterations_isRejected() {
        #expect(throws: WalletCryptoError.invalidKDFParameter(parameter: "c", value: "0", expected: "at least 1")) {
            try KeyDerivation.pbkdf2(password: Secret(utf8: "x"), salt: [], iterations: 0, length: 32, prf: .hmacSHA512)
        }
    }
}
