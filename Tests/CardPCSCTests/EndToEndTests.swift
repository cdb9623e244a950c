// The whole chain with real components: pcscd (started here, stopped by PID) → vsmartcard's
// vpcd driver → `kcs sim attach` (the built binary, its own process, stopped by PID) → the
// simulated applet; and on the other side the protocol client over libpcsclite.
import CardPCSC
import CardProtocol
import Foundation
import KCSTestSupport
import Testing
import WalletCore

private let root = TestPaths.root
private let kcsBinary = TestPaths.kcsBinary

/// Runs `kcs sim attach` for a fresh card in a temporary home until `body` returns.
func withAttachedSimulator<R>(card: String = "e2e", _ body: (PCSCContext, String, String) throws -> R) throws -> R {
    let daemon = PCSCDaemon()
    try daemon.start()
    defer { daemon.stop() }
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-e2e-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: home) }
    let kcs = Process()
    kcs.executableURL = kcsBinary
    kcs.arguments = ["sim", "attach", "--card", card, "--home", home]
    kcs.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try kcs.runWithSignalsUnblocked()
    defer { terminate(kcs) }
    let context = try PCSCContext()
    let reader = try context.reader(matching: "Virtual PCD 00 00")
    try context.waitForCard(in: reader, timeout: 15)
    return try body(context, reader, home)
}

extension RealPCSCD {
@Suite("Keycard session through pcscd, vpcd and kcs sim attach")
struct EndToEndTests {
    @Test func session_initPairSignUnpair_overRealPCSC() throws {
        try withAttachedSimulator { context, reader, home in
            let transport = try context.connect(reader: reader)
            let session = CardSession(transport: transport, random: SeededRandom(seed: 77))
            let pin = Secret(utf8: "123456")
            let secret = PairingSecret(password: PairingSecret.defaultPassword)
            let result = try session.open(SessionOptions(
                pin: pin,
                initialization: try InitParameters(pin: pin, puk: Secret(utf8: "987654321098"), pairingSecret: secret)))
            #expect(result.initialized && result.paired && result.pinVerified)
            #expect(result.applicationInfo.version?.major == 3 && result.applicationInfo.version?.minor == 1)
            let cmd = session.commands
            // A known mnemonic (spec §16.2, V7) loaded as a seed gives the published key UID.
            let m = try Mnemonic(phrase: "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal will")
            let keyUID = try cmd.loadKey(seed: m.seed())
            #expect(Hex.encode(keyUID) == "b98373b5f78c88bdd753fe8fc3e3300bc8060d8b723a10ea062ca63554a23e7a")
            let digest = Hash.keccak256(Array("over pcscd".utf8))
            let signed = try cmd.sign(digest: digest, option: .derive(try CardKeyPath("m/44'/60'/0'/0/0")))
            #expect(signed.publicKey.uncompressed.hex == "048a6a9c9cd67a7ef12e40ffd9c2028d14eb488c4b485179c360ea9fbf55621d118f5cf4bdb4525a91b4d9d373d7146607063119fb64b29d00e27fef1d017bc206")
            #expect(Secp256k1.verify(signed.signature.signature, digest: digest, publicKey: signed.publicKey))
            #expect(try signed.signature.recoverPublicKey(digest: digest) == signed.publicKey)
            #expect(try cmd.getStatus().pinRetries == 3)
            try cmd.unpair(index: result.pairing.index)
            transport.disconnect()
            // The card's state was written by the simulator process, mode 0600.
            let file = home + "/cards/e2e.json"
            #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
        }
    }

    /// Issue 6 §10: an example script, unchanged, gives its golden transcript through the
    /// real PC/SC stack (`KCS_CARD=pcsc` makes its `card.connect` use the reader).
    @Test func example_cardDeriveSign_overRealPCSC_matchesItsGolden() throws {
        try withAttachedSimulator(card: "example") { _, reader, _ in
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-e2e-store-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: home) }
            let p = Process()
            p.executableURL = kcsBinary
            p.arguments = ["examples/card_derive_sign.kcs"]
            p.currentDirectoryURL = root
            var env = ProcessInfo.processInfo.environment
            env["KCS_CARD"] = "pcsc"
            env["KCS_READER"] = reader
            env["KCS_HOME"] = home.path
            env["KCS_VAULT_PASSPHRASE"] = "transcript passphrase"
            env["KCS_STDLIB"] = root.appendingPathComponent("stdlib").path
            env["NO_COLOR"] = "1"
            p.environment = env
            let out = Pipe(), err = Pipe()
            p.standardOutput = out
            p.standardError = err
            p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            try p.runWithSignalsUnblocked()
            let o = out.fileHandleForReading.readDataToEndOfFile()
            let e = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            let actual = String(decoding: o, as: UTF8.self) + String(decoding: e, as: UTF8.self)
                + "[exit \(p.terminationStatus)]\n"
            let golden = try String(contentsOf: root.appendingPathComponent("Tests/TranscriptTests/Examples/card_derive_sign.out"),
                                    encoding: .utf8)
            #expect(actual == golden)
            // It went through the reader: no simulated card was made in the script's home.
            #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("cards/default.json").path))
        }
    }

    @Test func wrongPIN_overRealPCSC_countsDownAndIsNotATransportError() throws {
        try withAttachedSimulator(card: "pins") { context, reader, _ in
            let transport = try context.connect(reader: reader)
            let session = CardSession(transport: transport, random: SeededRandom(seed: 78))
            let pin = Secret(utf8: "123456")
            let result = try session.open(SessionOptions(
                initialization: try InitParameters(pin: pin, puk: Secret(utf8: "123456789012"),
                                                   pairingSecret: PairingSecret(password: "pw"))))
            #expect(!result.pinVerified)
            #expect(throws: CardError.wrongPIN(triesLeft: 2)) { try session.commands.verifyPIN(Secret(utf8: "000000")) }
            #expect(throws: CardError.wrongPIN(triesLeft: 1)) { try session.commands.verifyPIN(Secret(utf8: "000000")) }
            try session.commands.verifyPIN(pin)
            #expect(try session.commands.getStatus().pinRetries == 3)
        }
    }
}
}
