// LOAD KEY, DERIVE KEY, EXPORT KEY, SIGN and the PIN-less path against docs/keycard-protocol.md §16.1 V7 and the
// §16.2 key-derivation rows, plus the check orders of §10.5–§10.11.
import CardProtocol
import Testing
import WalletCore
import WalletCrypto

@testable import CardSimulator

@Suite("Keys: load, derive, export, sign")
struct KeyDerivationTests {
    // MARK: §16.2 key-derivation rows and §16.1 V7

    @Test func loadKeySeed_v7Mnemonic_returnsKeyUIDOf162() throws {
        let seed = try Mnemonic(
            phrase:
                "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal will"
        ).seed()
        #expect(seed.withUnsafeBytes { Array($0) } == Vectors162.seed)
        let s = TestSession()
        s.ready()
        let r = s.loadV7Seed()
        #expect(r.sw == 0x9000)
        #expect(r.data == Vectors162.keyUID)
        let select = body(s.select())
        #expect(Array(select[0..<3]) == [0xA4, 0x81, 0x81])
        #expect(Array(select[(select.count - 35)..<(select.count - 3)]) == Vectors162.keyUID)
    }

    @Test func exportKey_xpubOfM44_60_0_matches162Plaintext() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        let r = s.export(Vectors162.m44_60_0, p2: 0x02)
        #expect(r.sw == 0x9000)
        #expect(r.data == Vectors162.m44_60_0_xpubResponse)
    }

    @Test func exportKey_privateOfEIP1581Path_matches162Plaintext() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        let r = s.export(Vectors162.eip1581Path, p2: 0x00)
        #expect(r.sw == 0x9000)
        #expect(r.data == Vectors162.eip1581PrivateResponse)
    }

    @Test func exportKey_v7MasterAndEIP1581PublicKeys_matchV7() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        #expect(s.export([], p1: 0x00, p2: 0x01).data == [0xA1, 0x43, 0x80, 0x41] + Vectors162.masterPublic)
        #expect(s.export(Vectors162.eip1581Path, p2: 0x01).data == [0xA1, 0x43, 0x80, 0x41] + Vectors162.eip1581Public)
    }

    @Test func duressPIN_derivesWithSHA256OfChainCode_matches162() {
        let s = TestSession()
        s.ready(duress: "654321")
        s.loadV7Seed()
        let normal = s.export(Vectors162.m44_60_0_0_0, p2: 0x01)
        #expect(normal.data == [0xA1, 0x43, 0x80, 0x41] + Vectors162.m44_60_0_0_0_public)
        #expect(s.card.applet.state.duressChainCode.bytes == Vectors162.duressChainCode)
        #expect(s.command(0x20, data: Array("654321".utf8)).sw == 0x9000)
        let duress = s.export(Vectors162.m44_60_0_0_0, p2: 0x01)
        #expect(duress.data == [0xA1, 0x43, 0x80, 0x41] + Vectors162.duressM44_60_0_0_0_public)
        // The master key (and the key UID) is the same in both modes.
        #expect(s.export([], p1: 0x00, p2: 0x01).data == [0xA1, 0x43, 0x80, 0x41] + Vectors162.masterPublic)
        #expect(s.command(0xF2, 0x00).data == [0xA3, 0x09, 0x02, 0x01, 0x03, 0x02, 0x01, 0x05, 0x01, 0x01, 0xFF])
    }

    @Test func duressChainCode_staysActiveAcrossSelect_forPinlessSign() {
        let s = TestSession()
        s.ready(duress: "654321")
        s.loadV7Seed()
        #expect(s.command(0xC1, data: Vectors162.m44_60_0_0_0).sw == 0x9000)
        #expect(s.command(0x20, data: Array("654321".utf8)).sw == 0x9000)
        s.select()
        let r = s.send([0x80, 0xC0, 0x03, 0x00, 0x20] + [UInt8](repeating: 7, count: 32))
        #expect(sw(r) == 0x9000)
        #expect(Array(r[5..<70]) == Vectors162.duressM44_60_0_0_0_public)
    }

    // MARK: master-xpub quirk (§10.11)

    @Test func exportXpubOfMaster_afterPowerUp_returnsZeroChainCode() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        let r = s.export([], p1: 0x00, p2: 0x02)
        let zeros = [UInt8](repeating: 0, count: 32)
        #expect(r.data == [0xA1, 0x65, 0x80, 0x41] + Vectors162.masterPublic + [0x82, 0x20] + zeros)
    }

    @Test func exportXpubOfMaster_afterADerivation_returnsThatChainCode() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        _ = s.export(Vectors162.m44_60_0, p2: 0x02)
        let r = s.export([], p1: 0x00, p2: 0x02)
        #expect(Array(r.data.suffix(32)) == Array(Vectors162.m44_60_0_xpubResponse.suffix(32)))
    }

    @Test func exportXpubOfMaster_masterChainCodeProfile_returnsMasterChainCode() {
        let s = TestSession(profile: AppletProfile.v3_1_0.with(masterXpubChainCode: .masterChainCode))
        s.ready()
        s.loadV7Seed()
        _ = s.export(Vectors162.m44_60_0, p2: 0x02)
        #expect(Array(s.export([], p1: 0x00, p2: 0x02).data.suffix(32)) == Vectors162.masterChainCode)
    }

    // MARK: export policy (§10.11)

    @Test func exportPrivate_outsideEIP1581_is6985() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        #expect(s.export(Vectors162.m44_60_0_0_0, p2: 0x00) == ([], 0x6985))
        #expect(s.export([], p1: 0x00, p2: 0x00) == ([], 0x6985))
        // Four components are not enough: EIP-1581 needs at least five.
        #expect(s.export(Array(Vectors162.eip1581Path.prefix(16)), p2: 0x00) == ([], 0x6985))
    }

    @Test func exportXpub_insideEIP1581_is6985() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        #expect(s.export(Vectors162.eip1581Path, p2: 0x02) == ([], 0x6985))
    }

    @Test func exportKey_checkOrder_pinThenP2ThenP1ThenPath() {
        let s = TestSession()
        s.ready()
        #expect(s.export([], p1: 0x00, p2: 0x01).sw == 0x6985, "no key loaded")
        s.loadV7Seed()
        #expect(s.export([1, 2, 3], p1: 0x07, p2: 0x03).sw == 0x6A86, "P2 before P1")
        #expect(s.export([1, 2, 3], p1: 0x03, p2: 0x01).sw == 0x6A86, "P1 option before the path")
        #expect(s.export([1, 2, 3], p1: 0x01, p2: 0x01).sw == 0x6A80, "path length")
        #expect(s.export([], p1: 0x41, p2: 0x01).sw == 0x6B00, "parent of the master")
        s.select()
        s.openChannel()
        #expect(s.export([], p1: 0x07, p2: 0x03).sw == 0x6985, "PIN first")
    }

    @Test func exportKey_deriveAndMakeCurrent_updatesCurrentPath() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        #expect(s.export(Vectors162.m44_60_0, p1: 0x02, p2: 0x01).sw == 0x9000)
        #expect(s.command(0xF2, 0x01).data == Vectors162.m44_60_0)
        // Current-key export of the new current path.
        #expect(s.export([], p1: 0x00, p2: 0x02).data == Vectors162.m44_60_0_xpubResponse)
    }

    // MARK: DERIVE KEY (§10.6)

    @Test func deriveKey_sourcesMasterParentCurrentPinless_resolvePaths() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        let a: [UInt8] = [0x80, 0, 0, 0x2C], b: [UInt8] = [0x80, 0, 0, 0x3C], c: [UInt8] = [0, 0, 0, 5]
        #expect(s.command(0xD1, 0x00, data: a + b).sw == 0x9000)
        #expect(s.command(0xF2, 0x01).data == a + b)
        #expect(s.command(0xD1, 0x80, data: c).sw == 0x9000)
        #expect(s.command(0xF2, 0x01).data == a + b + c)
        #expect(s.command(0xD1, 0x40, data: a).sw == 0x9000)
        #expect(s.command(0xF2, 0x01).data == a + b + a)
        #expect(s.command(0xC1, data: b).sw == 0x9000)
        #expect(s.command(0xD1, 0xC0).sw == 0x9000)
        #expect(s.command(0xF2, 0x01).data == b)
        #expect(s.command(0xD1, 0xC0, data: c).sw == 0x6A80)
        #expect(s.command(0xD1, 0x01, data: c).sw == 0x6A86)
        #expect(s.command(0xD1, 0x00).sw == 0x9000)
        #expect(s.command(0xD1, 0x40).sw == 0x6B00)
    }

    @Test func deriveKey_pastDepth10_is6A80() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        let component: [UInt8] = [0, 0, 0, 1]
        let ten = Array([[UInt8]](repeating: component, count: 10).joined())
        #expect(s.command(0xD1, 0x00, data: ten + component).sw == 0x6A80)
        #expect(s.command(0xD1, 0x00, data: ten).sw == 0x9000)
        #expect(s.command(0xD1, 0x80, data: component).sw == 0x6A80)
        #expect(s.command(0xD1, 0x00, data: [0, 0, 1]).sw == 0x6A80)
        #expect(s.command(0xF2, 0x01).data == ten)
    }

    @Test func deriveKey_isLazy_andCurrentPathSurvivesSelectAndReset() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        #expect(s.command(0xD1, 0x00, data: Vectors162.m44_60_0_0_0).sw == 0x9000)
        s.card.reset()
        s.select()
        s.openChannel()
        #expect(s.command(0xF2, 0x01).data == Vectors162.m44_60_0_0_0)
    }

    @Test func deriveKey_withoutKey_emptyPathOKNonEmpty6985() {
        let s = TestSession()
        s.ready()
        #expect(s.command(0xD1, 0x00).sw == 0x9000)
        #expect(s.command(0xD1, 0x00, data: [0, 0, 0, 1]).sw == 0x6985)
    }

    // MARK: SIGN (§10.9)

    static func parseSignResponse(_ data: [UInt8]) -> (publicKey: [UInt8], der: [UInt8])? {
        guard data.count > 72, data[0] == 0xA0, data[1] == 0x81, Int(data[2]) == data.count - 3,
            data[3] == 0x80, data[4] == 0x41, data[70] == 0x30
        else { return nil }
        return (Array(data[5..<70]), Array(data[70...]))
    }

    @Test func sign_derivedPath_returnsA0TemplateWithLowSSignature() throws {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        let digest = Hash.sha256(Array("hello".utf8))
        let r = s.command(0xC0, 0x01, data: digest + Vectors162.m44_60_0_0_0)
        #expect(r.sw == 0x9000)
        let parsed = try #require(Self.parseSignResponse(r.data))
        #expect(parsed.publicKey == Vectors162.m44_60_0_0_0_public)
        #expect(Int(parsed.der[1]) == parsed.der.count - 2)
        let signature = try ECDSASignature(der: parsed.der, lenient: true)
        #expect(signature.isLowS)
        #expect(Secp256k1.verify(signature, digest: digest, publicKey: try PublicKey(bytes: parsed.publicKey)))
        // Option 01 does not change the current path; option 02 does.
        #expect(s.command(0xF2, 0x01).data == [])
        #expect(s.command(0xC0, 0x02, data: digest + Vectors162.m44_60_0).sw == 0x9000)
        #expect(s.command(0xF2, 0x01).data == Vectors162.m44_60_0)
        // Option 00 appends to the current path without committing it.
        let current = s.command(0xC0, 0x00, data: digest + [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(Self.parseSignResponse(current.data)?.publicKey == Vectors162.m44_60_0_0_0_public)
        #expect(s.command(0xF2, 0x01).data == Vectors162.m44_60_0)
    }

    @Test func sign_checkOrder_matchesSpec() {
        let s = TestSession()
        s.ready()
        let digest = [UInt8](repeating: 1, count: 32)
        #expect(s.command(0xC0, 0x03, data: digest).sw == 0x6A88, "no PIN-less path")
        #expect(s.command(0xC0, 0x01, data: Array(digest.prefix(31))).sw == 0x6A80, "short data")
        #expect(s.command(0xC0, 0x01, data: digest).sw == 0x6985, "no key")
        s.loadV7Seed()
        #expect(s.command(0xC0, 0x01, data: digest + [1, 2]).sw == 0x6A80, "path length")
        #expect(s.command(0xC0, 0x41, data: digest).sw == 0x6B00, "parent of the master")
        #expect(s.command(0xC0, 0x01, data: digest).sw == 0x9000, "empty path signs with the master key")
        #expect(s.command(0xC1, data: Vectors162.m44_60_0_0_0).sw == 0x9000)
        #expect(s.command(0xC0, 0x03, data: digest + [0, 0, 0, 1]).sw == 0x6A80, "PIN-less takes only the hash")
    }

    @Test func sign_withoutPIN_allowedOnlyForThePinlessPath() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        #expect(s.command(0xC1, data: Vectors162.m44_60_0_0_0).sw == 0x9000)
        s.select()
        s.openChannel()
        let digest = [UInt8](repeating: 2, count: 32)
        #expect(s.command(0xC0, 0x01, data: digest + Vectors162.m44_60_0_0_0).sw == 0x9000)
        #expect(s.command(0xC0, 0x01, data: digest + Vectors162.m44_60_0).sw == 0x6985)
        #expect(s.command(0xC0, 0x03, data: digest).sw == 0x9000)
    }

    @Test func pinlessSign_withoutChannel_answersPlain() throws {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        #expect(s.command(0xC1, data: Vectors162.m44_60_0_0_0).sw == 0x9000)
        s.select()
        let digest = Hash.sha256(Array("pinless".utf8))
        let r = s.send([0x80, 0xC0, 0x03, 0x00, 0x20] + digest)
        #expect(sw(r) == 0x9000)
        let parsed = try #require(Self.parseSignResponse(body(r)))
        #expect(parsed.publicKey == Vectors162.m44_60_0_0_0_public)
        let signature = try ECDSASignature(der: parsed.der, lenient: true)
        #expect(Secp256k1.verify(signature, digest: digest, publicKey: try PublicKey(bytes: parsed.publicKey)))
        // Any other SIGN needs the channel.
        #expect(s.send([0x80, 0xC0, 0x01, 0x00, 0x20] + digest) == [0x69, 0x85])
        // Without a PIN-less path: 6A88, plain.
        s.ready()
        #expect(s.command(0xC1).sw == 0x9000)
        s.select()
        #expect(s.send([0x80, 0xC0, 0x03, 0x00, 0x20] + digest) == [0x6A, 0x88])
    }

    @Test func setPinlessPath_badLength_is6A80() {
        let s = TestSession()
        s.ready()
        #expect(s.command(0xC1, data: [0, 0, 1]).sw == 0x6A80)
        #expect(s.command(0xC1, data: [UInt8](repeating: 0, count: 44)).sw == 0x6A80)
        s.select()
        s.openChannel()
        #expect(s.command(0xC1, data: [0, 0, 0, 1]).sw == 0x6985)
    }

    @Test func derFixedLengthS_keepsLeadingZero() {
        let s = [UInt8](repeating: 0, count: 1) + [UInt8](repeating: 0x11, count: 31)
        let r = [UInt8](repeating: 0x22, count: 32)
        let der = DERCard.signature(r: r, s: s, fixedLengthS: true)
        #expect(der == [0x30, 0x44, 0x02, 0x20] + r + [0x02, 0x20] + s)
        let minimal = DERCard.signature(r: r, s: s, fixedLengthS: false)
        #expect(minimal == [0x30, 0x43, 0x02, 0x20] + r + [0x02, 0x1F] + s.dropFirst())
        #expect(DERCard.negated(DERCard.negated(s)) == s)
    }

    // MARK: LOAD KEY (§10.5), REMOVE KEY, GENERATE KEY, GENERATE MNEMONIC

    @Test func loadKeyPair_suppliedPublicKey_isTrustedForKeyUID() {
        let s = TestSession()
        s.ready()
        let priv = h("C602B9B92BFF1A3716CF4693B2638F8475CC3D3BCBB300EDB0610A413BA03721")
        let fakePublic = Vectors162.masterPublic  // not the public key of `priv`
        let chain = Vectors162.masterChainCode
        let tlv: [UInt8] = [0x80, 0x41] + fakePublic + [0x81, 0x20] + priv + [0x82, 0x20] + chain
        let r = s.command(0xD0, 0x02, data: [0xA1, 0x81, UInt8(tlv.count)] + tlv)
        #expect(r == (Hash.sha256(fakePublic), 0x9000))
        // SIGN/EXPORT compute the public key from the private key.
        let computed = try! PrivateKey(bytes: priv).publicKey.uncompressed
        #expect(s.export([], p1: 0x00, p2: 0x01).data == [0xA1, 0x43, 0x80, 0x41] + computed)
    }

    @Test func loadKeyPair_withoutChainCode_isNotExtended() {
        let s = TestSession()
        s.ready()
        let priv = h("C602B9B92BFF1A3716CF4693B2638F8475CC3D3BCBB300EDB0610A413BA03721")
        let r = s.command(0xD0, 0x01, data: [0xA1, 0x22, 0x81, 0x20] + priv)
        let publicKey = try! PrivateKey(bytes: priv).publicKey.uncompressed
        #expect(r == (Hash.sha256(publicKey), 0x9000))
        #expect(s.command(0xD1, 0x00, data: [0, 0, 0, 1]).sw == 0x6985)
        #expect(s.command(0xC0, 0x01, data: [UInt8](repeating: 3, count: 32)).sw == 0x9000)
        #expect(s.command(0xF2, 0x00).data.last == 0xFF)
    }

    @Test func loadKey_malformed_isRejectedWithoutChange() {
        let s = TestSession()
        s.ready()
        let priv = [UInt8](repeating: 0x11, count: 32)
        #expect(s.command(0xD0, 0x01, data: [0xA2, 0x22, 0x81, 0x20] + priv).sw == 0x6A80, "template tag")
        #expect(s.command(0xD0, 0x01, data: [0xA1, 0x22, 0x83, 0x20] + priv).sw == 0x6A80, "private tag")
        let shortChain: [UInt8] = [0xA1, 0x43, 0x81, 0x20] + priv + [0x82, 0x1F] + priv.dropLast()
        #expect(s.command(0xD0, 0x02, data: shortChain).sw == 0x6A80, "chain code length")
        #expect(s.command(0xD0, 0x03, data: Array(Vectors162.seed.dropLast())).sw == 0x6A80, "3.1 seed is 64 bytes")
        #expect(s.command(0xD0, 0x04, data: Vectors162.seed).sw == 0x6A86)
        #expect(!s.card.applet.hasKey)
        s.select()
        s.openChannel()
        #expect(s.command(0xD0, 0x03, data: Vectors162.seed).sw == 0x6985, "PIN required")
    }

    @Test func loadKey_resetsCurrentAndPinlessPaths() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        #expect(s.command(0xD1, 0x00, data: Vectors162.m44_60_0).sw == 0x9000)
        #expect(s.command(0xC1, data: Vectors162.m44_60_0).sw == 0x9000)
        s.loadV7Seed()
        #expect(s.command(0xF2, 0x01).data == [])
        #expect(s.command(0xC0, 0x03, data: [UInt8](repeating: 1, count: 32)).sw == 0x6A88)
    }

    @Test func removeKey_thenGenerateKey_updatesSelectAndStatus() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        #expect(s.command(0xD3).sw == 0x9000)
        #expect(s.command(0xF2, 0x00).data.last == 0x00)
        #expect(s.export([], p1: 0x00, p2: 0x01).sw == 0x6985)
        #expect(Array(s.select().prefix(2)) == [0xA4, 0x61])
        s.openChannel()
        #expect(s.command(0x20, data: Array("123456".utf8)).sw == 0x9000)
        let generated = s.command(0xD4)
        #expect(generated.sw == 0x9000 && generated.data.count == 32)
        let select = body(s.select())
        #expect(Array(select.suffix(35).prefix(32)) == generated.data)
    }

    @Test(arguments: [(UInt8(4), 12), (5, 15), (6, 18), (7, 21), (8, 24)])
    func generateMnemonic_checksumBits_givesValidBIP39Indexes(cs: UInt8, words: Int) throws {
        let s = TestSession()
        s.ready()
        s.select()
        s.openChannel()  // no PIN needed
        let r = s.command(0xD2, cs)
        #expect(r.sw == 0x9000)
        #expect(r.data.count == 2 * words)
        let list = Wordlist(.english)
        let phrase = stride(from: 0, to: r.data.count, by: 2).map { list[Int(r.data[$0]) << 8 | Int(r.data[$0 + 1])] }
        _ = try Mnemonic(phrase: phrase.joined(separator: " "))
    }

    @Test func generateMnemonic_outOfRange_is6A86() {
        let s = TestSession()
        s.ready()
        #expect(s.command(0xD2, 3).sw == 0x6A86)
        #expect(s.command(0xD2, 9).sw == 0x6A86)
    }

    // MARK: GET DATA / STORE DATA (§10.12)

    @Test func storeData_thenGetData_plainAndWrapped() {
        let s = TestSession()
        s.ready()
        let data = Array("hello public".utf8)
        #expect(s.command(0xE2, 0x00, data: data).sw == 0x9000)
        #expect(s.command(0xE2, 0x02, data: [1, 2, 3]).sw == 0x9000)
        #expect(s.command(0xCA, 0x00).data == data)
        #expect(s.command(0xCA, 0x02).data == [1, 2, 3])
        #expect(s.command(0xCA, 0x03).sw == 0x6A86)
        #expect(s.command(0xE2, 0x00, data: [UInt8](repeating: 0, count: 128)).sw == 0x6A80)
        #expect(s.command(0xE2, 0x01, data: [UInt8](repeating: 0, count: 200)).sw == 0x9000)
        #expect(s.command(0xE2, 0x03, data: [UInt8](repeating: 0, count: 200)).sw == 0x6A86)
        s.select()
        #expect(s.send([0x80, 0xCA, 0x00, 0x00, 0x00]) == data + [0x90, 0x00])
        s.openChannel()
        #expect(s.command(0xE2, 0x00, data: data).sw == 0x6985)
    }
}
