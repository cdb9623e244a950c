// secp256k1 through libsecp256k1. Sources: secp256k1-rfc6979.json — bitcoinjs/bitcoinjs-lib
// test/fixtures/ecdsa.json (at c58ada36… and 7cdabef9…), test/fixtures/core/sig_canonical.json and
// sig_noncanonical.json (copies of Bitcoin Core test data). See the `_sources` of Vectors/*.json.
import Foundation
import KCSTestSupport
import Testing
import WalletCrypto

private let ecdsa = Vectors.json("secp256k1-rfc6979.json")

/// A 32-byte scalar from short hex such as "01".
private func scalar(_ hex: String) throws -> [UInt8] {
    let b = try Hex.decode(hex.count % 2 == 1 ? "0" + hex : hex)
    return [UInt8](repeating: 0, count: 32 - b.count) + b
}

@Suite("ECDSA over secp256k1")
struct ECDSATests {
    static let signCases = ecdsa.objects("rfc6979_sha256")
    static let nonceCases = ecdsa.object("rfc6979_k_sequence").objects("cases")
    static let mustFail = ecdsa.objects("verify_must_fail")

    @Test("RFC 6979 signatures (bitcoinjs fixtures)", arguments: signCases)
    func sign_rfc6979_matchesFixture(_ row: JSON) throws {
        let key = try PrivateKey(bytes: scalar(row.string("private_key")))
        let digest = Hash.sha256(Array(row.string("message_ascii").utf8))
        let sig = try key.sign(digest: digest)
        #expect(sig.signature.r.hex == normHex(row.string("r")))
        #expect(sig.signature.s.hex == normHex(row.string("s")))
        #expect(sig.signature.isLowS)
        #expect(sig.signature.der.hex == normHex(row.string("der")))
        #expect(Int(sig.recoveryID) == row.int("recovery_id"))
        #expect(Secp256k1.rfc6979Nonce(privateKey: key, digest: digest, attempt: 0)?.hex == normHex(row.string("k")))
        #expect(try sig.recoverPublicKey(digest: digest) == key.publicKey)
        #expect(Secp256k1.verify(sig.signature, digest: digest, publicKey: key.publicKey))
        #expect(try ECDSASignature(der: try Hex.decode(row.string("der"))) == sig.signature)
        #expect(try RecoverableSignature.matching(sig.signature, digest: digest, publicKey: key.publicKey) == sig)
    }

    @Test("RFC 6979 §3.2 step h candidate sequence", arguments: nonceCases)
    func rfc6979_candidateSequence_matches(_ row: JSON) throws {
        let key = try PrivateKey(bytes: scalar(row.string("private_key")))
        let digest = Hash.sha256(Array(row.string("message_ascii").utf8))
        #expect(Secp256k1.rfc6979Nonce(privateKey: key, digest: digest, attempt: 0)?.hex == row.string("k0"))
        #expect(Secp256k1.rfc6979Nonce(privateKey: key, digest: digest, attempt: 1)?.hex == row.string("k1"))
        #expect(Secp256k1.rfc6979Nonce(privateKey: key, digest: digest, attempt: 15)?.hex == row.string("k15"))
    }

    @Test("signatures that must not verify", arguments: mustFail)
    func verify_invalidSignature_fails(_ row: JSON) throws {
        let key = try PrivateKey(bytes: scalar(row.string("private_key")))
        let digest = Hash.sha256(Array(row.string("message_ascii").utf8))
        let sig = row.object("signature")
        let r = sig.string("r"), s = sig.string("s")
        if r.hasPrefix("-") || s.hasPrefix("-") {
            return  // a negative number has no 32-byte unsigned form: unrepresentable, nothing to verify
        }
        // Either the constructor refuses the value (0 or ≥ n) or verification fails.
        if let parsed = try? ECDSASignature(r: try scalar(r), s: try scalar(s)) {
            #expect(!Secp256k1.verify(parsed, digest: digest, publicKey: key.publicKey, allowHighS: true))
        } else {
            #expect(throws: WalletCryptoError.self) { try ECDSASignature(r: try scalar(r), s: try scalar(s)) }
        }
    }

    @Test func signature_rEqualZero_isRejectedWithReason() throws {
        #expect(throws: WalletCryptoError.invalidSignature(reason: "r must be between 1 and n-1")) {
            try ECDSASignature(r: [0], s: [2])
        }
        #expect(throws: WalletCryptoError.invalidSignature(reason: "s must be between 1 and n-1")) {
            try ECDSASignature(r: [2], s: Secp256k1.order)
        }
    }

    @Test func verify_highS_rejectedUnlessAllowed() throws {
        let key = try PrivateKey(bytes: scalar("01"))
        let digest = Hash.sha256(Array("high s".utf8))
        let low = try key.sign(digest: digest).signature
        // n - s
        var high = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for i in (0..<32).reversed() {
            let d = Int(Secp256k1.order[i]) - Int(low.s[i]) - borrow
            high[i] = UInt8((d + 256) & 0xff)
            borrow = d < 0 ? 1 : 0
        }
        let highSig = try ECDSASignature(r: low.r, s: high)
        #expect(!highSig.isLowS)
        #expect(!Secp256k1.verify(highSig, digest: digest, publicKey: key.publicKey))
        #expect(Secp256k1.verify(highSig, digest: digest, publicKey: key.publicKey, allowHighS: true))
        #expect(highSig.normalized == low)
    }

    @Test func sign_digestNot32Bytes_isRejected() throws {
        let key = try PrivateKey(bytes: scalar("01"))
        #expect(throws: WalletCryptoError.wrongLength(what: "digest", expected: "32 bytes", got: 31)) {
            try key.sign(digest: [UInt8](repeating: 1, count: 31))
        }
    }

    @Test func recover_badRecoveryID_isRejected() throws {
        let sig = try ECDSASignature(r: [1], s: [1])
        #expect(throws: WalletCryptoError.invalidRecoveryID(4)) {
            try RecoverableSignature(signature: sig, recoveryID: 4)
        }
        #expect(WalletCryptoError.invalidRecoveryID(4).description == "recovery id must be 0, 1, 2 or 3, got 4")
    }
}

@Suite("Keys, ECDH, tweaks, x-only")
struct KeyTests {
    @Test func privateKey_zeroAndOrder_areOutOfRange() {
        #expect(throws: WalletCryptoError.privateKeyOutOfRange) {
            try PrivateKey(bytes: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: WalletCryptoError.privateKeyOutOfRange) { try PrivateKey(bytes: Secp256k1.order) }
        #expect(throws: WalletCryptoError.wrongLength(what: "private key", expected: "32 bytes", got: 31)) {
            try PrivateKey(bytes: [UInt8](repeating: 1, count: 31))
        }
        #expect(
            WalletCryptoError.privateKeyOutOfRange.description
                == "private key must be between 1 and n-1 (the secp256k1 group order)")
    }

    @Test func publicKey_ofOne_isGenerator() throws {
        let g = try PrivateKey(bytes: scalar("01")).publicKey
        #expect(g.compressed.hex == "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
        #expect(
            g.uncompressed.hex == "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
                + "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8")
        #expect(try PublicKey(bytes: g.uncompressed) == g)
        #expect(try PublicKey(bytes: g.compressed) == g)
    }

    @Test func publicKey_badEncodings_areRejectedWithReason() throws {
        #expect(
            throws: WalletCryptoError.invalidPublicKey(
                reason: "expected 33 (compressed) or 65 (uncompressed) bytes, got 32")
        ) {
            try PublicKey(bytes: [UInt8](repeating: 2, count: 32))
        }
        #expect(throws: WalletCryptoError.invalidPublicKey(reason: "compressed key must start with 02 or 03, got 04")) {
            try PublicKey(bytes: [4] + [UInt8](repeating: 1, count: 32))
        }
        // 02 ‖ 0…07: x = 7 has no square root of x³+7 on the curve (BIP-32 vector 5).
        #expect(throws: WalletCryptoError.invalidPublicKey(reason: "the point is not on the curve")) {
            try PublicKey(bytes: try Hex.decode("020000000000000000000000000000000000000000000000000000000000000007"))
        }
    }

    @Test func ecdh_isSymmetricAndIsRawX() throws {
        let a = PrivateKey.generate(using: SeededRandom(seed: 1))
        let b = PrivateKey.generate(using: SeededRandom(seed: 2))
        let ab = try a.sharedSecretX(with: b.publicKey)
        let ba = try b.sharedSecretX(with: a.publicKey)
        #expect(ab == ba)
        #expect(ab.count == 32)
        // With private key 1 the shared point is the peer's own point: the secret is its X.
        let one = try PrivateKey(bytes: scalar("01"))
        let x = try one.sharedSecretX(with: b.publicKey).withUnsafeBytes { Array($0) }
        #expect(x == Array(b.publicKey.compressed.dropFirst()))
    }

    @Test func tweakAdd_privateAndPublicAgree() throws {
        let k = PrivateKey.generate(using: SeededRandom(seed: 3))
        let t = SeededRandom(seed: 4).bytes(32)
        #expect(try k.adding(tweak: t).publicKey == (try k.publicKey.adding(tweak: t)))
        #expect(throws: WalletCryptoError.tweakOutOfRange) { try k.adding(tweak: Secp256k1.order) }
        #expect(throws: WalletCryptoError.tweakOutOfRange) { try k.publicKey.adding(tweak: Secp256k1.order) }
    }

    // BIP-86 test vector (bitcoin/bips bip-0086.mediawiki, account 0, first receiving address):
    // internal key cc8a4b…c115 → output key a60869…684c.
    @Test func taprootTweak_bip86Vector_matches() throws {
        let internalKey = try XOnlyPublicKey(
            bytes: Hex.decode("cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115"))
        #expect(
            try internalKey.taprootTweaked().bytes.hex
                == "a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c")
    }

    @Test func description_neverShowsKeyBytes() throws {
        let k = try PrivateKey(bytes: scalar("2a"))
        #expect("\(k)" == "<private key>")
        #expect("\(k.secret)" == "<secret: 32 bytes>")
        var dumped = ""
        dump(k, to: &dumped)
        #expect(!dumped.contains("2a"))
    }
}

@Suite("DER signatures")
struct DERTests {
    static let canonical = ecdsa.object("bitcoin_der_canonical").strings("cases")
    static let noncanonical = ecdsa.object("bitcoin_der_noncanonical").objects("cases")
        .filter { $0.string("reason") != "hashtype:" }  // a Bitcoin sighash rule, not DER

    @Test("Bitcoin Core canonical DER parses strictly", arguments: canonical)
    func parseStrict_canonical_succeeds(_ hex: String) throws {
        let der = Array(try Hex.decode(hex).dropLast())  // strip the sighash byte
        let (r, s) = try DERSignature.parse(der, strict: true)
        if !r.isEmpty && !s.isEmpty && r.count <= 32 && s.count <= 32 {
            // Re-encoding a canonical signature gives the same bytes.
            let pad = { (v: [UInt8]) in [UInt8](repeating: 0, count: 32 - v.count) + v }
            #expect(DERSignature.encode(r: pad(r), s: pad(s)) == der)
        }
    }

    @Test("Bitcoin Core non-canonical DER is refused", arguments: noncanonical)
    func parseStrict_noncanonical_fails(_ row: JSON) throws {
        let der = Array(try Hex.decode(row.string("sig_hex")).dropLast())
        #expect(throws: WalletCryptoError.self, "\(row.string("reason"))") { try DERSignature.parse(der, strict: true) }
    }

    @Test func parseLenient_cardStyleLeadingZeroS_isAccepted() throws {
        // A Keycard may keep S as a fixed 32-byte INTEGER after low-S normalisation (spec §18):
        // 02 20 00 7f… is non-minimal DER but must be read.
        let r = [UInt8](repeating: 0x11, count: 32)
        let s = [0x00] + [UInt8](repeating: 0x22, count: 31)
        let der: [UInt8] = [0x30, 0x44, 0x02, 0x20] + r + [0x02, 0x20] + s
        #expect(throws: WalletCryptoError.invalidDER(reason: "s has a superfluous leading zero", offset: 38)) {
            try ECDSASignature(der: der)
        }
        let sig = try ECDSASignature(der: der, lenient: true)
        #expect(sig.r == r && sig.s == s)
        // Long-form SEQUENCE length 81 LL is accepted leniently too.
        let long: [UInt8] = [0x30, 0x81, 0x44, 0x02, 0x20] + r + [0x02, 0x20] + s
        #expect(try ECDSASignature(der: long, lenient: true) == sig)
    }

    @Test func parse_trailingBytes_areRefusedEvenLeniently() {
        let der: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00]
        #expect(
            throws: WalletCryptoError.invalidDER(
                reason: "SEQUENCE length 6 does not match the 7 bytes that follow", offset: 2)
        ) {
            try DERSignature.parse(der, strict: false)
        }
    }
}

@Suite("Signing with extra nonce entropy")
struct ExtraEntropyTests {
    @Test func extraEntropy_changesTheSignatureButStillVerifies() throws {
        let key = PrivateKey.generate(using: SeededRandom(seed: 21))
        let digest = Hash.sha256(Array("card".utf8))
        let plain = try key.sign(digest: digest)
        let a = try key.sign(digest: digest, extraEntropy: SeededRandom(seed: 1).bytes(32))
        let b = try key.sign(digest: digest, extraEntropy: SeededRandom(seed: 2).bytes(32))
        #expect(a != plain && a != b)
        #expect(try key.sign(digest: digest, extraEntropy: SeededRandom(seed: 1).bytes(32)) == a)
        for s in [a, b] {
            #expect(s.signature.isLowS)
            #expect(Secp256k1.verify(s.signature, digest: digest, publicKey: key.publicKey))
            #expect(try s.recoverPublicKey(digest: digest) == key.publicKey)
        }
        #expect(throws: WalletCryptoError.wrongLength(what: "extra nonce entropy", expected: "32 bytes", got: 3)) {
            try key.sign(digest: digest, extraEntropy: [1, 2, 3])
        }
    }
}
