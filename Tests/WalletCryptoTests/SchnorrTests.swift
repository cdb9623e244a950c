import KCSTestSupport
import Testing
import WalletCrypto

/// BIP-340 Schnorr signatures and the BIP-341 key-path tweak, as a Keycard 4.0 signs (docs/
/// keycard-protocol.md §14.6). Sources: BIP-340's test-vectors.csv (bitcoin/bips, bip-0340/,
/// copied whole into Vectors/bip340.csv: the 15 vectors with 32-byte messages); BIP-341's
/// wallet-test-vectors.json, scriptPubKey[0] (key path only); BIP-86's first receiving key of
/// "abandon … about".
@Suite("BIP-340 and BIP-341")
struct SchnorrTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let index: String, secretKey: String, publicKey: String, aux: String, message: String, signature: String
        let valid: Bool, comment: String
        var testDescription: String { "vector \(index)" + (comment.isEmpty ? "" : ": \(comment)") }
    }

    static let rows: [Row] = Vectors.text("bip340.csv").split(separator: "\n").dropFirst().map { line in
        let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return Row(
            index: f[0], secretKey: f[1], publicKey: f[2], aux: f[3], message: f[4], signature: f[5],
            valid: f[6] == "TRUE", comment: f[7...].joined(separator: ","))
    }

    @Test func theFileHoldsTheFifteenVectors() {
        #expect(Self.rows.count == 15)
        #expect(Self.rows.filter(\.valid).count == 5 && Self.rows.filter { !$0.secretKey.isEmpty }.count == 4)
    }

    @Test("signing gives the published signature", arguments: rows.filter { !$0.secretKey.isEmpty })
    func sign(_ row: Row) throws {
        let key = try PrivateKey(bytes: Hex.decode(row.secretKey))
        #expect(Hex.encode(key.publicKey.xOnly.key.bytes).uppercased() == row.publicKey)
        // A zero tweak is plain BIP-340 (the card's SIGN with tweak 00…00).
        let signature = try key.signSchnorr(
            message: Hex.decode(row.message), tweak: [UInt8](repeating: 0, count: 32),
            aux: Hex.decode(row.aux))
        #expect(Hex.encode(signature).uppercased() == row.signature)
    }

    @Test("verification gives the published result", arguments: rows)
    func verify(_ row: Row) throws {
        // A public key that is no X coordinate (vectors 5, 14) fails to parse: that is the refusal.
        guard let key = try? XOnlyPublicKey(bytes: Hex.decode(row.publicKey)) else {
            #expect(!row.valid)
            return
        }
        #expect(key.verifySchnorr(try Hex.decode(row.signature), message: try Hex.decode(row.message)) == row.valid)
    }

    @Test func taprootTweak_givesBIP341AndBIP86OutputKeys() throws {
        let internalKey = try XOnlyPublicKey(
            bytes: Hex.decode("d6889cb081036e0faefa3a35157ad71086b123b2b144b649798b494c300a961d"))
        let tweak = Hash.tagged("TapTweak", internalKey.bytes)
        #expect(Hex.encode(tweak) == "b86e7be8f39bab32a6f2c0443abbc210f0edac0e2c53d501b36b64437d9c6c70")
        #expect(
            Hex.encode(try internalKey.tweaked(by: tweak).bytes)
                == "53a1f6e454df1aa2776a2814a721372d6258050de330b3c6d10ee8f4e0dda343")
        let bip86 = try XOnlyPublicKey(
            bytes: Hex.decode("cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115"))
        #expect(
            Hex.encode(try bip86.tweaked(by: Hash.tagged("TapTweak", bip86.bytes)).bytes)
                == "a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c")
    }

    @Test func tweakedSignature_verifiesUnderTheOutputKeyOnly() throws {
        // BIP-341's key-path input 0: internal private key 6b97…6baa, whose x-only key is d688…961d.
        let key = try PrivateKey(bytes: Hex.decode("6b973d88838f27366ed61c9ad6367663045cb456e28335c109e30717ae0c6baa"))
        let internalKey = key.publicKey.xOnly.key
        #expect(Hex.encode(internalKey.bytes) == "d6889cb081036e0faefa3a35157ad71086b123b2b144b649798b494c300a961d")
        let tweak = Hash.tagged("TapTweak", internalKey.bytes)
        let message = Hash.sha256(Array("kcs".utf8))
        let signature = try key.signSchnorr(message: message, tweak: tweak, aux: [UInt8](repeating: 0x11, count: 32))
        #expect(try internalKey.tweaked(by: tweak).verifySchnorr(signature, message: message))
        #expect(!internalKey.verifySchnorr(signature, message: message))
        #expect(throws: WalletCryptoError.self) { try key.signSchnorr(message: [1], tweak: tweak, aux: tweak) }
    }
}
