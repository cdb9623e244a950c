// SimulatedCard: persistence in a cards directory, names, determinism, power events, the APDU log, the
// ATR and the card identity (docs/keycard-protocol.md §11).
import CardProtocol
import Foundation
import Testing
import WalletCore
import WalletCrypto

@testable import CardSimulator

/// A fresh temporary directory, removed by `cleanup`.
struct TempDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "kcs-sim-tests-" + UUID().uuidString + "/cards"
    }

    func cleanup() { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
}

func mode(of path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

@Suite("SimulatedCard: persistence, names, power, log, identity")
struct SimulatedCardTests {
    // MARK: persistence

    @Test func persistence_stateSurvivesANewSimulatedCardOnTheSameFile() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        let first = TestSession(
            card: try SimulatedCard.open(
                named: "alpha", in: dir.path,
                random: SeededRandom(seed: 11)))
        first.ready()
        first.loadV7Seed()
        #expect(first.command(0xD1, 0x00, data: Vectors162.m44_60_0).sw == 0x9000)
        #expect(first.command(0x20, data: Array("000000".utf8)).sw == 0x63C2)
        let uid = first.card.applet.instanceUID
        let pairing = try #require(first.pairing)

        let reopened = try SimulatedCard.open(named: "alpha", in: dir.path, random: SeededRandom(seed: 12))
        #expect(reopened.applet.instanceUID == uid)
        #expect(reopened.applet.hasKey && reopened.applet.isInitialized)
        let second = TestSession(card: reopened)
        second.pairing = pairing
        second.select()
        second.openChannel()
        #expect(second.command(0xF2, 0x00).data == [0xA3, 0x09, 0x02, 0x01, 0x02, 0x02, 0x01, 0x05, 0x01, 0x01, 0xFF])
        #expect(second.command(0xF2, 0x01).data == Vectors162.m44_60_0)
        #expect(second.command(0x20, data: Array("123456".utf8)).sw == 0x9000)
        let m44_60_0_public = Vectors162.m44_60_0_xpubResponse[4..<69]
        #expect(second.export([], p1: 0x00, p2: 0x01).data == [0xA1, 0x43, 0x80, 0x41] + m44_60_0_public)
    }

    @Test func persistence_fileIsMode0600_andWrittenAfterEachStateChange() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        let card = try SimulatedCard.create(named: "beta", in: dir.path, random: SeededRandom(seed: 1))
        let path = try #require(card.statePath)
        #expect(path == dir.path + "/beta.json")
        #expect(mode(of: path) == 0o600)
        #expect(mode(of: dir.path) == 0o700)
        let s = TestSession(card: card)
        s.initialize()
        #expect(try CardStore.read(path).1.credentials != nil)
        s.select()
        s.pair()
        #expect(try CardStore.read(path).1.pairings[0] != nil)
        #expect(mode(of: path) == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"kind\" : \"kcs.simulated-keycard\""))
        #expect(text.contains("\"id\" : \"3.1.0\""))
    }

    @Test func persistence_writeFailure_rollsBackAndThrows() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        let s = TestSession(card: try SimulatedCard.open(named: "gamma", in: dir.path, random: SeededRandom(seed: 2)))
        s.select()
        try FileManager.default.removeItem(atPath: dir.path)
        #expect(throws: TransportError.self) { try s.card.transmit(s.initAPDU(TestSession.payload())) }
        #expect(!s.card.applet.isInitialized)
        // Commands that change nothing still work.
        #expect(sw(try s.card.transmit([0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.keycardInstance)) == 0x9000)
    }

    @Test func persistence_corruptFile_isStateUnreadable() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        _ = try SimulatedCard.open(named: "delta", in: dir.path)
        try AtomicFile.write(Array("{\"kind\": 1}".utf8), to: dir.path + "/delta.json")
        #expect {
            _ = try SimulatedCard.open(named: "delta", in: dir.path)
        } throws: { ($0 as? SimulatorError)?.id == "simulator.stateUnreadable" }
    }

    @Test func profile_isStoredWithTheCard() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        _ = try SimulatedCard.create(named: "hundred", in: dir.path, profile: .v3_1_2)
        let reopened = try SimulatedCard.open(named: "hundred", in: dir.path, profile: .v3_1_0)
        #expect(reopened.applet.profile == .v3_1_2)
        #expect(reopened.applet.freePairingSlots == 100)
    }

    // MARK: names

    @Test(arguments: ["", ".hidden", "-x", "a/b", "../up", "white space", "é", String(repeating: "a", count: 65)])
    func invalidName_isRejected(_ name: String) {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        #expect(throws: SimulatorError.invalidCardName(name: name)) {
            _ = try SimulatedCard.open(named: name, in: dir.path)
        }
        #expect(!SimulatedCard.isValidName(name))
    }

    @Test func severalCards_byName_createOpenListDelete() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        #expect(SimulatedCard.cardNames(in: dir.path) == [])
        let a = try SimulatedCard.create(named: "card-a", in: dir.path)
        let b = try SimulatedCard.create(named: "card_b.2", in: dir.path)
        #expect(a.applet.instanceUID != b.applet.instanceUID)
        #expect(SimulatedCard.cardNames(in: dir.path) == ["card-a", "card_b.2"])
        #expect(throws: SimulatorError.cardExists(name: "card-a", path: dir.path + "/card-a.json")) {
            _ = try SimulatedCard.create(named: "card-a", in: dir.path)
        }
        #expect(throws: SimulatorError.cardNotFound(name: "nope", path: dir.path + "/nope.json")) {
            _ = try SimulatedCard.open(named: "nope", in: dir.path, creating: false)
        }
        try SimulatedCard.delete(named: "card-a", in: dir.path)
        #expect(SimulatedCard.cardNames(in: dir.path) == ["card_b.2"])
    }

    @Test func simulatorError_describesItself() {
        let error = SimulatorError.cardNotFound(name: "x", path: "/tmp/x.json")
        #expect(error.id == "simulator.cardNotFound")
        #expect(error.description == "no simulated card named \"x\" (/tmp/x.json does not exist)")
    }

    // MARK: determinism

    @Test func seededCards_giveIdenticalTranscripts() {
        func run() -> [[UInt8]] {
            let s = TestSession(card: SimulatedCard(random: SeededRandom(seed: 5)), seed: 6)
            var out: [[UInt8]] = [s.select()]
            s.ready()
            s.loadV7Seed()
            out.append(s.select())
            s.openChannel()
            out.append(s.send(s.channel!.wrap(0x80, 0xF2)))
            out.append(s.send([0x80, 0xC0, 0x03, 0x00, 0x20] + [UInt8](repeating: 1, count: 32)))
            return out
        }
        #expect(run() == run())
    }

    // MARK: power, ATR, log

    @Test func atr_isAWellFormedContactlessPseudoATR() {
        let atr = SimulatedCard.defaultATR
        #expect(atr == h("3B8A80014B65796361726453696D") + [atr.last!])
        #expect(atr.dropFirst().reduce(0, ^) == 0, "TCK")
        #expect(SimulatedCard().atr == atr)
    }

    @Test func powerOff_transmitThrows_powerOnNeedsSelect() throws {
        let log = APDULog()
        let s = TestSession(card: SimulatedCard(random: SeededRandom(seed: 3), log: log))
        s.ready()
        s.card.powerOff()
        #expect(throws: TransportError.connectionLost(detail: "the simulated card is powered off")) {
            try s.card.transmit([0x80, 0xF2, 0x00, 0x00])
        }
        s.card.powerOn()
        #expect(try s.card.transmit([0x80, 0xF2, 0x00, 0x00]) == [0x6D, 0x00])
        #expect(!s.card.applet.isSecureChannelOpen)
        #expect(log.entries.contains(.powerOff))
        #expect(log.entries.contains(.powerOn(atr: SimulatedCard.defaultATR)))
        #expect(log.text.contains("# power on, ATR 3B8A8001"))
    }

    @Test func apduLog_holdsNoSecretOfTheCard() throws {
        let log = APDULog()
        let s = TestSession(card: SimulatedCard(random: SeededRandom(seed: 21), log: log))
        s.ready(pin: "314159", puk: "271828182845", duress: "161803")
        s.loadV7Seed()
        let exported = s.export(Vectors162.eip1581Path, p2: 0x00)
        #expect(exported.sw == 0x9000)
        #expect(s.command(0x21, 0x00, data: Array("999999".utf8)).sw == 0x9000)
        let state = s.card.applet.state
        var secrets: [[UInt8]] = [
            Vectors162.seed, Array(exported.data.suffix(32)), state.secureChannelKey.bytes,
            TestSession.pairingSecret, s.pairing!.key, Vectors162.masterChainCode,
            h("86A04817C3D90D786EBFD7F869B618E609DE59F5705E7A197D3616F7B69CEB14"),
            s.channel!.encKey, s.channel!.macKey,
        ]
        secrets += ["314159", "271828182845", "161803", "999999"].map { Array($0.utf8) }
        let text = log.text
        for secret in secrets {
            #expect(!text.contains(Hex.encode(secret).uppercased()), "\(secret.count)-byte secret in the log")
        }
        #expect(log.exchanges.count > 10)
        // Printing the card state shows no secret either.
        let dumped = String(describing: state) + String(reflecting: state)
        #expect(!dumped.contains("314159") && dumped.contains("<card secret: 6 bytes>"))
    }

    // MARK: identity (§11)

    @Test func identify_withTestCertificate_signsTheChallenge() throws {
        let ca = try PrivateKey(bytes: [UInt8](repeating: 0x0C, count: 32))
        let identity = try PrivateKey(bytes: [UInt8](repeating: 0x1D, count: 32))
        let certificate = IdentityCertificate.make(identityKey: identity, caKey: ca)
        #expect(certificate.count == 98)
        let s = TestSession()
        #expect(s.send([0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.identInstance) == [0x90, 0x00])
        let identityBytes = identity.secret.withUnsafeBytes { Array($0) }
        try s.card.provisionIdentity(certificate: certificate, privateKey: identityBytes)
        #expect(throws: SimulatorError.identityAlreadyProvisioned) {
            try s.card.provisionIdentity(certificate: certificate, privateKey: [UInt8](repeating: 1, count: 32))
        }
        #expect(s.send([0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.identInstance) == certificate + [0x90, 0x00])
        s.select()
        let challenge = [UInt8](repeating: 0x63, count: 32)
        let r = s.send([0x80, 0x14, 0x00, 0x00, 0x20] + challenge)
        #expect(sw(r) == 0x9000)
        let data = body(r)
        #expect(Array(data[0..<5]) == [0xA0, 0x81, UInt8(data.count - 3), 0x8A, 0x62])
        #expect(Array(data[5..<103]) == certificate)
        let signature = try ECDSASignature(der: Array(data[103...]), lenient: true)
        #expect(Secp256k1.verify(signature, digest: challenge, publicKey: identity.publicKey, allowHighS: true))
        let caSignature = try RecoverableSignature(
            signature: ECDSASignature(compact: Array(certificate[33..<97])),
            recoveryID: certificate[97])
        #expect(try caSignature.recoverPublicKey(digest: Hash.sha256(certificate[0..<33])) == ca.publicKey)
        #expect(s.send([0x80, 0x14, 0x00, 0x00, 0x10] + [UInt8](repeating: 0, count: 16)) == [0x6A, 0x80])
        // Wrapped when a channel is open.
        s.ready()
        let wrapped = s.command(0x14, data: challenge)
        #expect(wrapped.sw == 0x9000)
        #expect(Array(wrapped.data.prefix(5)) == [0xA0, 0x81, UInt8(wrapped.data.count - 3), 0x8A, 0x62])
    }

    @Test func identApplet_storeData_provisionsOnce() {
        let s = TestSession()
        #expect(s.send([0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.identInstance) == [0x90, 0x00])
        let cert = IdentityCertificate.make(
            identityKey: try! PrivateKey(bytes: [UInt8](repeating: 2, count: 32)),
            caKey: try! PrivateKey(bytes: [UInt8](repeating: 3, count: 32)))
        #expect(s.send([0x80, 0xE2, 0x00, 0x00, 0x81] + cert + [UInt8](repeating: 2, count: 31)) == [0x6A, 0x80])
        #expect(s.send([0x80, 0xE2, 0x00, 0x00, 0x82] + cert + [UInt8](repeating: 2, count: 32)) == [0x90, 0x00])
        #expect(s.send([0x80, 0xE2, 0x00, 0x00, 0x82] + cert + [UInt8](repeating: 2, count: 32)) == [0x69, 0x85])
        #expect(s.send([0x80, 0xF2, 0x00, 0x00]) == [0x6D, 0x00])
        #expect(s.send([0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.identInstance) == cert + [0x90, 0x00])
    }
}
