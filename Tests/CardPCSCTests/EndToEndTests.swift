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
func withAttachedSimulator<R>(
    card: String = "e2e", profile: String? = nil, arguments: [String] = [], standardError: URL? = nil,
    _ body: (PCSCContext, String, String) throws -> R
) throws -> R {
    let daemon = PCSCDaemon()
    try daemon.start()
    defer { daemon.stop() }
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-e2e-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: home) }
    let kcs = Process()
    kcs.executableURL = kcsBinary
    kcs.arguments =
        ["sim", "attach", "--card", card, "--home", home, "--port", String(PCSCDaemon.vpcdPort)]
        + (profile.map { ["--profile", $0] } ?? []) + arguments
    if let standardError { FileManager.default.createFile(atPath: standardError.path, contents: nil) }
    kcs.standardError = FileHandle(forWritingAtPath: standardError?.path ?? "/dev/null")
    try kcs.runWithSignalsUnblocked()
    defer { terminate(kcs) }
    let context = try PCSCContext()
    let reader = try context.reader(matching: "Virtual PCD 00 00", within: 10)
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
                let result = try session.open(
                    SessionOptions(
                        pin: pin,
                        initialization: try InitParameters(
                            pin: pin, puk: Secret(utf8: "987654321098"), pairingSecret: secret)))
                #expect(result.initialized && result.paired && result.pinVerified)
                #expect(result.applicationInfo.version?.major == 3 && result.applicationInfo.version?.minor == 1)
                let cmd = session.commands
                // A known mnemonic (spec §16.2, V7) loaded as a seed gives the published key UID.
                let m = try Mnemonic(
                    phrase:
                        "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal will"
                )
                let keyUID = try cmd.loadKey(seed: m.seed())
                #expect(Hex.encode(keyUID) == "b98373b5f78c88bdd753fe8fc3e3300bc8060d8b723a10ea062ca63554a23e7a")
                let digest = Hash.keccak256(Array("over pcscd".utf8))
                let signed = try cmd.sign(digest: digest, option: .derive(try CardKeyPath("m/44'/60'/0'/0/0")))
                #expect(
                    signed.publicKey.uncompressed.hex
                        == "048a6a9c9cd67a7ef12e40ffd9c2028d14eb488c4b485179c360ea9fbf55621d118f5cf4bdb4525a91b4d9d373d7146607063119fb64b29d00e27fef1d017bc206"
                )
                #expect(Secp256k1.verify(signed.signature.signature, digest: digest, publicKey: signed.publicKey))
                #expect(try signed.signature.recoverPublicKey(digest: digest) == signed.publicKey)
                #expect(try cmd.getStatus().pinRetries == 3)
                try cmd.unpair(index: result.pairing!.index)
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
                let home = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "kcs-e2e-store-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: home) }
                let actual = try runKCS(["examples/card_derive_sign.kcs"], reader: reader, home: home)
                let golden = try String(
                    contentsOf: root.appendingPathComponent("Tests/TranscriptTests/Examples/card_derive_sign.out"),
                    encoding: .utf8)
                #expect(actual == golden)
                // It went through the reader: no simulated card was made in the script's home.
                let made =
                    (try? FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("cards").path))
                    ?? []
                #expect(!made.contains { $0.hasSuffix(".json") }, "simulated cards made: \(made)")
            }
        }

        /// Over a reader kcs knows a 3.1 card's free slots (every SELECT says them) but not its
        /// total until `card.unpair --others` walks the table to its end (docs/card.md, "Pairing
        /// slots"): examples/card_slots.kcs gives its golden, but for the slot total the simulator
        /// knows and a reader does not ("5 of 5 used"), never "all used" from an unknown.
        @Test func example_cardSlots_overRealPCSC_matchesItsGolden_butForTheUnknownTotal() throws {
            try withAttachedSimulator(card: "slots") { _, reader, _ in
                let run = try runKCS(["examples/card_slots.kcs"], reader: reader)
                let golden = try String(
                    contentsOf: root.appendingPathComponent("Tests/TranscriptTests/Examples/card_slots.out"),
                    encoding: .utf8)
                #expect(golden.contains("The card has no free pairing slots (5 of 5 used). From"))
                #expect(run == golden.replacingOccurrences(of: " (5 of 5 used)", with: ""))
                #expect(!run.contains("all used"))
            }
        }

        /// Slots used that kcs's records do not explain are named after a reconnect over a reader too
        /// (a lower bound: a 3.1 card has at least 5), and the way out learns the total.
        @Test func lostSlots_overRealPCSC_areNamed_andUnpairOthersLearnsTheTotal() throws {
            try withAttachedSimulator(card: "lost") { _, reader, _ in
                let home = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "kcs-e2e-lost-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: home) }
                let script = home.appendingPathComponent("lost.kcs")
                try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
                try """
                card.connect
                card.init --pin "123456" --puk "111122223333" --pairing "pw"
                card.login "123456" --password "pw"
                card.pair --password "pw" --force
                card.pair --password "pw" --force
                card.disconnect
                let c = card.connect
                print "CONNECT", c.freePairingSlots, c.warning
                let p = card.pairings
                print "PAIRINGS", p.pairingSlots, p.freePairingSlots, p.unexplained
                card.login "123456"
                let u = card.unpair --others --yes
                print "UNPAIR", u.unpaired, u.freePairingSlots
                let after = card.pairings
                print "AFTER", after.pairingSlots, after.freePairingSlots, after.unexplained
                """.write(to: script, atomically: true, encoding: .utf8)
                let run = try runKCS([script.path], reader: reader, home: home.appendingPathComponent("home"))
                let lines = run.split(separator: "\n").map(String.init)
                #expect(
                    lines.contains(
                        "CONNECT 2 at least 2 of the card's pairing slots are used by pairings kcs holds no "
                            + "record of (another client's, or lost to an interrupted pair or unpair); if they "
                            + "are not yours, free them from a logged-in session with card.unpair --others"), "\(run)")
                #expect(lines.contains("PAIRINGS nil 2 2"), "\(run)")
                #expect(lines.contains("UNPAIR [0, 1, 3, 4] 4"), "\(run)")
                #expect(lines.contains("AFTER 5 4 0"), "\(run)")
                #expect(run.hasSuffix("[exit 0]\n"), "\(run)")
            }
        }

        /// Runs kcs with `arguments` in the repository with `KCS_CARD=pcsc` on `reader` and a
        /// fresh home; returns stdout, stderr and `[exit N]`, as the golden transcripts are.
        private func runKCS(_ arguments: [String], reader: String, home given: URL? = nil) throws -> String {
            let home =
                given
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("kcs-e2e-store-\(UUID().uuidString)")
            defer { if given == nil { try? FileManager.default.removeItem(at: home) } }
            let p = Process()
            p.executableURL = kcsBinary
            p.arguments = arguments
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
            return String(decoding: o, as: UTF8.self) + String(decoding: e, as: UTF8.self)
                + "[exit \(p.terminationStatus)]\n"
        }

        @Test func wrongPIN_overRealPCSC_countsDownAndIsNotATransportError() throws {
            try withAttachedSimulator(card: "pins") { context, reader, _ in
                let transport = try context.connect(reader: reader)
                let session = CardSession(transport: transport, random: SeededRandom(seed: 78))
                let pin = Secret(utf8: "123456")
                let result = try session.open(
                    SessionOptions(
                        initialization: try InitParameters(
                            pin: pin, puk: Secret(utf8: "123456789012"),
                            pairingSecret: PairingSecret(password: "pw"))))
                #expect(!result.pinVerified)
                #expect(throws: CardError.wrongPIN(triesLeft: 2)) {
                    try session.commands.verifyPIN(Secret(utf8: "000000"))
                }
                #expect(throws: CardError.wrongPIN(triesLeft: 1)) {
                    try session.commands.verifyPIN(Secret(utf8: "000000"))
                }
                try session.commands.verifyPIN(pin)
                #expect(try session.commands.getStatus().pinRetries == 3)
            }
        }
    }
}
