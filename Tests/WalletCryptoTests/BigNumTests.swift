// OpenSSL's BN through BigNum, checked against Python's own integers (an independent
// implementation of the same arithmetic) on 2048- and 4096-bit operands, and primes against a
// Miller-Rabin written in the test's Python; RFC 3526's 2048-bit MODP prime is a safe prime.
import Foundation
import KCSTestSupport
import Testing
import WalletCrypto

@Suite("Big numbers (OpenSSL BN)")
struct BigNumTests {
    /// Deterministic bytes: SHA-256 of a label and a counter, as many as asked.
    func bytes(_ label: String, _ count: Int) -> [UInt8] {
        var out: [UInt8] = [], i = 0
        while out.count < count {
            out += Hash.sha256(Array("\(label)-\(i)".utf8))
            i += 1
        }
        return Array(out.prefix(count))
    }

    /// Python 3 evaluates `program` (reading hex numbers from its arguments) and prints lines.
    func python(_ program: String, _ arguments: [String]) throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", program] + arguments
        let out = Pipe()
        p.standardOutput = out
        try p.runWithSignalsUnblocked()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func arithmetic_agreesWithPython() throws {
        var mine: [String] = [], args: [String] = []
        for i in 0..<6 {
            let a = try BigNum(bytes: bytes("a\(i)", 256)), b = try BigNum(bytes: bytes("b\(i)", 256))
            let e = try BigNum(bytes: bytes("e\(i)", 256), secret: true)
            var mBytes = bytes("m\(i)", i % 2 == 0 ? 256 : 512)
            mBytes[mBytes.count - 1] |= 1  // odd, as the constant-time exponentiation needs
            let m = try BigNum(bytes: mBytes)
            args += [a, b, m].map { Hex.encode($0.bytes) } + [Hex.encode(try #require(e.bytes(count: 256)))]
            mine.append(Hex.encode(try (a + b).bytes))
            mine.append(Hex.encode(try (a * b).bytes))
            mine.append(Hex.encode(try (a > b ? a - b : b - a).bytes))
            mine.append(Hex.encode(try a.mod(m).bytes))
            mine.append(Hex.encode(try BigNum.modMul(a, b, m).bytes))
            mine.append(Hex.encode(try BigNum.modAdd(a.mod(m), b.mod(m), m).bytes))
            mine.append(Hex.encode(try BigNum.modExp(a, b, m).bytes))
            mine.append(Hex.encode(try BigNum.modExp(a, e, m).bytes(count: mBytes.count)!))  // secret exponent: constant time
            mine.append(Hex.encode(try BigNum.gcd(a, m).bytes))
            mine.append((try? BigNum.modInverse(a, m)).map { Hex.encode($0.bytes) } ?? "none")
        }
        let program = """
            import sys, math
            v = [int(x, 16) for x in sys.argv[1:]]
            h = lambda n, width=0: format(n, "x").zfill(max(2, width * 2 if width else (len(format(n, "x")) + 1) // 2 * 2))
            for i in range(0, len(v), 4):
                a, b, m, e = v[i:i + 4]
                print(h(a + b)); print(h(a * b)); print(h(abs(a - b))); print(h(a % m)); print(h(a * b % m))
                print(h((a % m + b % m) % m)); print(h(pow(a, b, m))); print(h(pow(a, e, m), (m.bit_length() + 7) // 8))
                print(h(math.gcd(a, m)))
                print(h(pow(a, -1, m)) if math.gcd(a, m) == 1 else "none")
            """
        #expect(try python(program, args) == mine)
    }

    @Test func primes_andSafePrimes() throws {
        let millerRabin = """
            import sys, random
            def prime(n):
                if n < 4: return n in (2, 3)
                d, s = n - 1, 0
                while d % 2 == 0: d, s = d // 2, s + 1
                rng = random.Random(7)
                for _ in range(40):
                    x = pow(rng.randrange(2, n - 1), d, n)
                    if x in (1, n - 1): continue
                    for _ in range(s - 1):
                        x = pow(x, 2, n)
                        if x == n - 1: break
                    else: return False
                return True
            for a in sys.argv[1:]:
                n = int(a, 16); print(prime(n), prime((n - 1) // 2))
            """
        let safe = try BigNum.prime(bits: 256, safe: true)
        let plain = try BigNum.prime(bits: 512, safe: false, secret: false)
        #expect(safe.bitCount == 256 && plain.bitCount == 512 && safe.isProbablePrime && plain.isProbablePrime)
        let verdicts = try python(millerRabin, [Hex.encode(safe.bytes), Hex.encode(plain.bytes)])
        #expect(verdicts.first == "True True", "a safe prime: p and (p − 1)/2 prime")
        #expect(verdicts.last?.hasPrefix("True ") == true)
        // RFC 3526 group 14: 2^2048 − 2^1984 − 1 + 2^64 · (⌊2^1918 π⌋ + 124476), a safe prime.
        let modp = try BigNum(
            bytes: Hex.decode(
                """
                FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF
                """))
        #expect(modp.bitCount == 2048 && modp.isProbablePrime)
        #expect(try ((modp - BigNum(1)) * BigNum(1)).isProbablePrime == false)
        #expect(try BigNum(561).isProbablePrime == false, "a Carmichael number")
    }

    @Test func secrets_neverPrint_andBadOperationsAreRefused() throws {
        let s = try BigNum(bytes: [0x12, 0x34], secret: true)
        #expect(s.description == "<secret number>" && "\(s)" == "<secret number>")
        #expect(try BigNum(bytes: [0x12, 0x34]).description == "0x1234")
        #expect(throws: WalletCryptoError.self) { try BigNum(3) - BigNum(5) }
        #expect(throws: WalletCryptoError.self) { try BigNum.modInverse(BigNum(6), BigNum(9)) }
        #expect(try BigNum(0).bytes == [0] && BigNum(0).isZero)
        #expect(try BigNum(0x1_0000).bytes(count: 2) == nil)
        let r = try BigNum.random(below: BigNum(1000))
        #expect(r < (try BigNum(1000)) && r.isSecret)
    }
}
