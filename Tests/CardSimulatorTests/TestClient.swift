// A deliberately small, test-only Keycard client: just enough Secure Channel V1 (docs/keycard-protocol.md §9.4,
// §9.6) and INIT/PAIR to drive the simulator. Written independently of the simulator's own code.
import CardProtocol
import Testing
import WalletCrypto

@testable import CardSimulator

/// Hex to bytes (test literals only).
func h(_ text: String) -> [UInt8] { try! [UInt8](hex: text) }

/// The status word at the end of a response.
func sw(_ response: [UInt8]) -> UInt16 {
    UInt16(response[response.count - 2]) << 8 | UInt16(response[response.count - 1])
}

/// The response without its status word.
func body(_ response: [UInt8]) -> [UInt8] { Array(response.dropLast(2)) }

enum TestCrypto {
    static func pad(_ d: [UInt8]) -> [UInt8] {
        var out = d + [0x80]
        while out.count % 16 != 0 { out.append(0) }
        return out
    }

    static func unpad(_ d: [UInt8]) -> [UInt8]? {
        guard let i = d.lastIndex(where: { $0 != 0 }), d[i] == 0x80 else { return nil }
        return Array(d[..<i])
    }

    static func mac(_ data: [UInt8], key: [UInt8]) -> [UInt8] {
        Array(try! AESCipher.cbcEncrypt(data, key: Secret(bytes: key), iv: [UInt8](repeating: 0, count: 16)).suffix(16))
    }

    static func encrypt(_ data: [UInt8], key: [UInt8], iv: [UInt8]) -> [UInt8] {
        try! AESCipher.cbcEncrypt(pad(data), key: Secret(bytes: key), iv: iv)
    }

    static func decrypt(_ data: [UInt8], key: [UInt8], iv: [UInt8]) -> [UInt8]? {
        guard let plain = try? AESCipher.cbcDecrypt(data, key: Secret(bytes: key), iv: iv) else { return nil }
        return unpad(plain)
    }

    static func ecdhX(_ key: PrivateKey, _ peer: [UInt8]) -> [UInt8] {
        try! key.sharedSecretX(with: PublicKey(bytes: peer)).withUnsafeBytes { Array($0) }
    }
}

/// The client end of an open V1 channel.
struct TestChannel {
    let encKey: [UInt8]
    let macKey: [UInt8]
    /// The IV for the next command (= the MAC of the last response).
    var iv: [UInt8]
    /// The IV the last command was encrypted with (what a stale-IV answer is encrypted with).
    var previousIV: [UInt8] = []

    init(sharedX: [UInt8], pairingKey: [UInt8], salt: [UInt8], iv: [UInt8]) {
        let k = Hash.sha512(sharedX + pairingKey + salt)
        encKey = Array(k[0..<32])
        macKey = Array(k[32..<64])
        self.iv = iv
    }

    /// A wrapped command APDU; remembers its MAC as the IV for the answer.
    mutating func wrap(
        _ cla: UInt8 = 0x80, _ ins: UInt8, _ p1: UInt8 = 0, _ p2: UInt8 = 0,
        _ data: [UInt8] = []
    ) -> [UInt8] {
        let c = TestCrypto.encrypt(data, key: encKey, iv: iv)
        let header: [UInt8] = [cla, ins, p1, p2, UInt8(16 + c.count)]
        let m = TestCrypto.mac(header + [UInt8](repeating: 0, count: 11) + c, key: macKey)
        previousIV = iv
        iv = m
        return header + m + c
    }

    /// Checks the MAC and decrypts a wrapped answer (with `decryptIV`, default the command MAC); the
    /// answer's MAC becomes the next IV. Nil when the answer is plain or does not verify.
    mutating func unwrap(_ response: [UInt8], decryptIV: [UInt8]? = nil) -> (data: [UInt8], sw: UInt16)? {
        guard response.count >= 34, sw(response) == 0x9000 else { return nil }
        let field = body(response)
        let m = Array(field[0..<16]), c = Array(field[16...])
        guard TestCrypto.mac([UInt8(field.count & 0xFF)] + [UInt8](repeating: 0, count: 15) + c, key: macKey) == m,
            let plain = TestCrypto.decrypt(c, key: encKey, iv: decryptIV ?? iv), plain.count >= 2
        else { return nil }
        iv = m
        return (Array(plain.dropLast(2)), sw(plain))
    }
}

/// A client session on one simulated card, with the steps tests repeat.
final class TestSession {
    static let pairingSecret = h("675DEABB0D7C724B4A36CAAD0E280826159E89886F7082535D431E924848BCF1")
    let card: SimulatedCard
    let rng: SeededRandom
    var channel: TestChannel?
    var pairing: (index: UInt8, key: [UInt8])?

    init(card: SimulatedCard, seed: UInt64 = 99) {
        self.card = card
        rng = SeededRandom(seed: seed)
    }

    /// A fresh in-memory card with a seeded RNG.
    convenience init(profile: AppletProfile = .v3_1_0, seed: UInt64 = 1) {
        self.init(card: SimulatedCard(profile: profile, random: SeededRandom(seed: seed)))
    }

    @discardableResult
    func send(_ apdu: [UInt8]) -> [UInt8] { try! card.transmit(apdu) }

    @discardableResult
    func select() -> [UInt8] {
        channel = nil
        return send([0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.keycardInstance + [0x00])
    }

    /// The INIT APDU for `payload`, encrypted to the card's current (pre-init) channel key.
    func initAPDU(_ payload: [UInt8]) -> [UInt8] {
        let client = PrivateKey.generate(using: rng)
        let iv = rng.bytes(16)
        let shared = TestCrypto.ecdhX(client, card.applet.secureChannelPublicKey)
        let data = [0x41] + client.publicKey.uncompressed + iv + TestCrypto.encrypt(payload, key: shared, iv: iv)
        return [0x80, 0xFE, 0x00, 0x00, UInt8(data.count)] + data
    }

    static func payload(
        pin: String = "123456", puk: String = "111111111111", secret: [UInt8] = pairingSecret,
        tries: (UInt8, UInt8)? = nil, duress: String? = nil
    ) -> [UInt8] {
        var p = Array(pin.utf8) + Array(puk.utf8) + secret
        if let tries { p += [tries.0, tries.1] } else if duress != nil { p += [3, 5] }
        if let duress { p += Array(duress.utf8) }
        return p
    }

    /// SELECT, INIT, SELECT; returns the INIT status word.
    @discardableResult
    func initialize(
        pin: String = "123456", puk: String = "111111111111", tries: (UInt8, UInt8)? = nil,
        duress: String? = nil
    ) -> UInt16 {
        select()
        let r = send(initAPDU(Self.payload(pin: pin, puk: puk, tries: tries, duress: duress)))
        select()
        return sw(r)
    }

    /// Both PAIR steps with `secret`; returns the final response (index ‖ salt ‖ SW) and records the pairing.
    @discardableResult
    func pair(secret: [UInt8] = pairingSecret) -> [UInt8] {
        let challenge = rng.bytes(32)
        let r1 = send([0x80, 0x12, 0x00, 0x00, 0x20] + challenge)
        guard sw(r1) == 0x9000 else { return r1 }
        #expect(Array(r1[0..<32]) == Hash.sha256(secret + challenge), "card cryptogram")
        let r2 = send([0x80, 0x12, 0x01, 0x00, 0x20] + Hash.sha256(secret + r1[32..<64]))
        if sw(r2) == 0x9000 { pairing = (r2[0], Hash.sha256(secret + r2[1..<33])) }
        return r2
    }

    /// OPEN SECURE CHANNEL + MUTUALLY AUTHENTICATE with the recorded pairing.
    func openChannel() {
        guard let pairing else {
            Issue.record("not paired")
            return
        }
        let client = PrivateKey.generate(using: rng)
        let r = send([0x80, 0x10, pairing.index, 0x00, 0x41] + client.publicKey.uncompressed)
        #expect(sw(r) == 0x9000 && r.count == 50, "OPEN SECURE CHANNEL")
        var ch = TestChannel(
            sharedX: TestCrypto.ecdhX(client, card.applet.secureChannelPublicKey),
            pairingKey: pairing.key, salt: Array(r[0..<32]), iv: Array(r[32..<48]))
        let ma = send(ch.wrap(0x80, 0x11, 0, 0, rng.bytes(32)))
        let answer = ch.unwrap(ma)
        #expect(answer?.sw == 0x9000 && answer?.data.count == 32, "MUTUALLY AUTHENTICATE")
        channel = ch
    }

    /// INIT (if needed), pair, open the channel, verify the PIN.
    func ready(pin: String = "123456", puk: String = "111111111111", duress: String? = nil) {
        if !card.applet.isInitialized { #expect(initialize(pin: pin, puk: puk, duress: duress) == 0x9000) }
        select()
        if pairing == nil { #expect(sw(pair()) == 0x9000) }
        openChannel()
        #expect(command(0x20, data: Array(pin.utf8)).sw == 0x9000, "VERIFY PIN")
    }

    /// A wrapped command; the inner data and SW. A plain answer comes back as (empty, outer SW).
    @discardableResult
    func command(_ ins: UInt8, _ p1: UInt8 = 0, _ p2: UInt8 = 0, data: [UInt8] = []) -> (data: [UInt8], sw: UInt16) {
        guard var ch = channel else { return ([], sw(send([0x80, ins, p1, p2, UInt8(data.count)] + data))) }
        let r = send(ch.wrap(0x80, ins, p1, p2, data))
        defer { channel = ch }
        if let inner = ch.unwrap(r) { return inner }
        return (body(r), sw(r))
    }

    /// Loads the BIP39 seed of vector V7 (docs/keycard-protocol.md §16.1) (LOAD KEY P1=03).
    @discardableResult
    func loadV7Seed() -> (data: [UInt8], sw: UInt16) { command(0xD0, 0x03, data: Vectors162.seed) }

    /// EXPORT KEY with `p1`/`p2` for `path`.
    func export(_ path: [UInt8], p1: UInt8 = 0x01, p2: UInt8) -> (data: [UInt8], sw: UInt16) {
        command(0xC2, p1, p2, data: path)
    }
}

/// Values of docs/keycard-protocol.md §16.1 V7 and §16.2 (key derivation rows).
enum Vectors162 {
    static let seed = h(
        "B059400CE0F55498A5527667E77048BB482FF6DAA16C37B4B9E8AF70C85B3F4DF588004F19812A1A027C9A51E5E94259A560268E91CD10E206451A129826E740"
    )
    static let masterPublic = h(
        "04CC620F846055ED43995391CA5E490C52251EA40453F64A0515BEF84C24A653A7C4E02B9DE56F66D9EE58DC6B591B534F5A20C0550B2C33A086B90B866CF70799"
    )
    static let masterChainCode = h("F4C090BBA5547631942B0856047E8A6414D214BABA69D6F6848920D239111DB6")
    static let keyUID = h("B98373B5F78C88BDD753FE8FC3E3300BC8060D8B723A10EA062CA63554A23E7A")
    static let m44_60_0_0_0 = h("8000002C8000003C800000000000000000000000")
    static let m44_60_0_0_0_public = h(
        "048A6A9C9CD67A7EF12E40FFD9C2028D14EB488C4B485179C360EA9FBF55621D118F5CF4BDB4525A91B4D9D373D7146607063119FB64B29D00E27FEF1D017BC206"
    )
    static let m44_60_0 = h("8000002C8000003C80000000")
    static let m44_60_0_xpubResponse = h(
        "A1658041044A028E010E80D02C4AE3B6321476DCED2891ACBEE8B353F942296EE24C5696B0412B8015B18ED1D0D67BBB6B14D18F7A2ABF52B746BBD5D94F09BBBFE7AFBD318220FEDA0ED1C9EA4991EB377888B030E01D571797C70BF79EE3C8FC91AF448C795B"
    )
    static let eip1581Path = h("8000002B8000003C8000062D8000000000000000")
    static let eip1581PrivateResponse = h("A1228120F95DEAC2B5A925A03D33C3894D87A6619DBCF2834C5B8AD376CA76089809DCBC")
    static let eip1581Public = h(
        "04E7370D118461E1AB01F3E86E88C4B0C7B92CECB79C5E320CEF73DDA912F173BEAE74DF15090B6405A274963C054CDFE6AC7843A302C260390D1FE776008F310E"
    )
    static let duressChainCode = h("643A5471AA2DCCD1065BFB072D525DD636426A32F9B959E81839115C8F7324F2")
    static let duressM44_60_0_0_0_public = h(
        "04B3AB5CEF6F459F4525EE434E3D257B70667BE9C3AAD3881D310F764242BBB382DB8F73EE389A66980B92B44B4289D0F03AA542F6CA4DDBF41D2805079CB79287"
    )
}
