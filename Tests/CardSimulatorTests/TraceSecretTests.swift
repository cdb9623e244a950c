// The card trace keeps secrets out (docs/card-explained.md, "Secrets"): every card command runs
// twice on the same simulated card with the same randomness, once with --reveal and once without.
// The revealed run shows the session keys, shared secrets and key material (so the search below
// looks for values that really were there); the masked run's lines at every level and its saved
// records hold none of them, nor the PIN, PUK, pairing secret or seed, in any case of hex.
import CardProtocol
import CardSimulator
import Foundation
import Testing
import WalletCore
import WalletCrypto

private let pin = Secret(bytes: Array("123456".utf8))
private let newPIN = Secret(bytes: Array("246802".utf8))
private let puk = Secret(bytes: Array("111122223333".utf8))
private let duress = Secret(bytes: Array("654321".utf8))
private let pairingSecret = PairingSecret(password: "my pairing password")
private let seed = Secret(bytes: Hash.sha512(Array("trace secret test seed".utf8)))

private func bytes(_ s: Secret) -> [UInt8] { s.withUnsafeBytes { Array($0) } }

/// Runs every card command on a fresh card; returns the tracer and what the run itself learned
/// that is secret (exported keys, entropy, shared secrets).
private func run(_ profile: AppletProfile, reveal: Bool) throws -> (CardTracer, [[UInt8]]) {
    let card = SimulatedCard(profile: profile, random: SeededRandom(seed: 7))
    if profile.version.major >= 4 {
        let identity = try PrivateKey(bytes: Hash.sha256(Array("trace test identity".utf8)))
        try card.provisionIdentity(
            certificate: IdentityCertificate.make(identityKey: identity, caKey: IdentityCertificate.simulatorCA),
            privateKey: bytes(identity.secret))
    }
    let commands = KeycardCommandSet(transport: TappedTransport(card), random: SeededRandom(seed: 8))
    let tracer = CardTracer(level: .explain, view: TraceView(reveal: reveal), card: "sim:test")
    commands.tracer = tracer
    var learned: [[UInt8]] = []
    let eip1581 = try DerivationPath("m/43'/60'/1581'/0'/0")
    if profile.version.major >= 4 {
        try commands.select()
        try commands.openSecureChannelV2()
        try commands.initializeV2(InitParametersV2(pin: pin, puk: puk, duressPIN: duress))
        try commands.select()
        try commands.openSecureChannelV2()
        try commands.verifyPIN(pin)
        try commands.loadKey(seed: seed)
        learned.append(
            bytes(try #require(try commands.exportKeyV2(path: eip1581, kind: .privateKey).privateKey).secret))
        learned.append(bytes(try commands.exportBIP85(path: DerivationPath("m/83696968'/39'/0'/12'/0'"), length: 32)))
        let peer = try PrivateKey(bytes: Hash.sha256(Array("peer".utf8)))
        learned.append(bytes(try commands.ecdh(peer: peer.publicKey, path: DerivationPath("m/44'/1237'/0'/0/0"))))
        _ = try commands.signV2(digest: Hash.sha256(Array("m".utf8)), path: DerivationPath("m/44'/60'/0'/0/0"))
        try commands.loadLEESeed(seed)
        let lee = try commands.exportLEE(path: DerivationPath("m/1"))
        learned += [bytes(lee.nullifierKey), bytes(lee.viewingKey)]
    } else {
        try commands.select()
        try commands.initialize(InitParameters(pin: pin, puk: puk, pairingSecret: pairingSecret, duressPIN: duress))
        try commands.select()
        let pairing = try commands.pair(secret: pairingSecret)
        learned.append(bytes(pairing.key))
        try commands.openSecureChannel(pairing: pairing)
        try commands.verifyPIN(pin)
        try commands.loadKey(seed: seed)
        _ = try commands.sign(digest: Hash.sha256(Array("m".utf8)), option: .derive(CardKeyPath("m/44'/60'/0'/0/0")))
        learned.append(
            bytes(
                try #require(try commands.exportKey(.derive(CardKeyPath(eip1581)), kind: .privateKey).privateKey).secret
            ))
        _ = try commands.generateMnemonic()
        try commands.changePairingSecret(PairingSecret(password: "another pairing password"))
        learned.append(bytes(PairingSecret(password: "another pairing password").secret))
    }
    #expect(throws: CardError.wrongPIN(triesLeft: 2)) { try commands.verifyPIN(Secret(bytes: Array("999999".utf8))) }
    try commands.verifyPIN(pin)
    try commands.changePIN(newPIN)
    try commands.changePUK(puk)
    return (tracer, learned)
}

/// Every value a masked trace must not hold, as the search strings it could appear as.
private func needles(_ values: [[UInt8]]) -> [String] {
    values.filter { $0.count >= 6 }.flatMap { v in [Hex.encode(v), Hex.encode(v).uppercased()] }
}

/// Everything a trace can show: the lines at each level, the JSON records.
private func everything(_ tracer: CardTracer, reveal: Bool) -> String {
    var text = ""
    for level in TraceLevel.allCases {
        for diffable in [false, true] {
            let renderer = CardTraceRenderer(level: level, view: TraceView(reveal: reveal, diffable: diffable))
            text += tracer.records.flatMap { renderer.lines($0) }.joined(separator: "\n")
        }
    }
    return text + tracer.records.map { CardTraceRenderer(level: .explain).json($0) }.joined(separator: "\n")
}

@Suite("Card trace: no secret in a trace")
struct TraceSecretTests {
    @Test(
        "3.1 and 4.0: every secret the revealed run showed is absent from the masked run", arguments: ["3.1.0", "4.0"])
    func secretsStayOut(profile name: String) throws {
        let profile = try #require(AppletProfile.named(name))
        let (revealed, learnedR) = try run(profile, reveal: true)
        let (masked, learnedM) = try run(profile, reveal: false)
        // The same randomness: the two runs exchanged the same bytes on the wire.
        let bytesOnWire = { (t: CardTracer) in t.records.flatMap(\.wire).map { $0.sent + $0.received } }
        #expect(bytesOnWire(revealed) == bytesOnWire(masked))
        #expect(learnedR == learnedM)
        // What the revealed run showed of each secret step (session keys, shared secrets, K, PRK).
        let stepSecrets = revealed.records.flatMap(\.steps).filter(\.secret).compactMap(\.value)
        #expect(stepSecrets.count >= (profile.version.major >= 4 ? 8 : 5))
        let revealedText = everything(revealed, reveal: true)
        // Present when revealed, so the search below can fail.
        for needle in needles(stepSecrets) { #expect(revealedText.contains(needle)) }
        // Answers that are secret are kept only when revealed (the new mnemonic's word indexes).
        let secretAnswers: Set<CardCommand> = [.generateMnemonic, .exportBIP85, .ecdh, .exportLEE]
        for (r, m) in zip(revealed.records, masked.records) where secretAnswers.contains(m.command.command) {
            #expect(r.answer?.data != nil && m.answer?.data == nil)
        }
        let maskedText = everything(masked, reveal: false)
        let known = [bytes(pin), bytes(newPIN), bytes(puk), bytes(duress), bytes(pairingSecret.secret), bytes(seed)]
        for needle in needles(stepSecrets + learnedM + known) {
            #expect(!maskedText.contains(needle), "a secret in the masked trace: \(needle.prefix(12))…")
        }
        for text in ["123456", "246802", "111122223333", "654321"] { #expect(!maskedText.contains(text)) }
        // A PIN is never shown, even revealed: bullets of its length.
        #expect(!revealedText.contains("313233343536") && revealedText.contains("PIN •••••• (never shown)"))
    }
}
