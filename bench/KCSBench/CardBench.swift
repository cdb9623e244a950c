import CardPCSC
import CardProtocol
import CardSimulator
import Foundation
import KCSBuiltins
import KCSRuntime
import KCSSyntax
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

/// Card figures: secure-channel SIGN round trips (in process, and through pcscd + vpcd when
/// a "Virtual PCD" reader with a card is there — bench/run attaches `kcs sim attach`), and
/// LOAD KEY + DERIVE KEY + EXPORT xpub in process; and the console's own way in (issue 6 §11):
/// `card.login` with the stored pairing (SELECT, OPEN SECURE CHANNEL, MUTUALLY AUTHENTICATE,
/// VERIFY PIN) followed by `sign` with the card as the active signer (SIGN, EXPORT KEY to check
/// the signature, and the signing-history row in `kcs.db`), run by the interpreter in process.
enum CardBench {
    static let pin = Secret(utf8: "123456")

    /// A session with PIN verified and the §16.2 mnemonic's seed loaded.
    static func openSession(_ transport: CardTransport, seed: UInt64) throws -> KeycardCommandSet {
        let session = CardSession(transport: transport, random: SeededRandom(seed: seed))
        _ = try session.open(
            SessionOptions(
                pin: pin,
                initialization: try InitParameters(
                    pin: pin, puk: Secret(utf8: "987654321098"),
                    pairingSecret: PairingSecret(password: PairingSecret.defaultPassword))))
        return session.commands
    }

    static func seed() throws -> Secret {
        try Mnemonic(
            phrase:
                "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal will"
        ).seed()
    }

    static func signRate(_ commands: KeycardCommandSet, count: Int) throws -> Double {
        _ = try commands.loadKey(seed: try seed())
        try commands.deriveKey(try CardKeyPath("m/44'/60'/0'/0/0"))
        var digest = Hash.sha256(Array("bench".utf8))
        return try rate(count) { i in
            digest[0] = UInt8(truncatingIfNeeded: i)
            _ = try commands.sign(digest: digest, option: .current)
        }
    }

    /// A console session for the builtins: a temporary kcs home (vault with cheap scrypt: it is
    /// unlocked once, before timing) and an interpreter on a host that discards output.
    final class Console: ScriptHost {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-bench-card-\(UUID().uuidString)")
            .path
        let session: Session
        lazy var interpreter = Interpreter(registry: Builtins.registry(), host: self)
        init() {
            session = Session(
                home: home, environment: ["KCS_VAULT_PASSPHRASE": "bench"],
                vaultParameters: .insecureForTesting())
        }
        deinit { try? FileManager.default.removeItem(atPath: home) }
        var isInteractive: Bool { false }
        var context: (any BuiltinContext)? { session }
        func write(_ text: String) {}
        func readSecret(prompt: String) throws -> SecretValue? { nil }
        func loadModule(name: String, relativeTo: String) throws -> Source { throw CocoaError(.fileNoSuchFile) }

        /// Parses `code` once; the closure runs it.
        func compile(_ code: String) throws -> () throws -> Value {
            let source = Source(name: "bench", text: code)
            let (program, diagnostics) = interpreter.parse(source)
            guard diagnostics.isEmpty else {
                throw CocoaError(.coderInvalidValue, userInfo: ["diagnostics": "\(diagnostics)"])
            }
            return { [interpreter] in try interpreter.run(program, source: source) }
        }
    }

    /// `card.login "123456"` with the stored pairing, then `sign DIGEST` on the card, per
    /// iteration; `connect` chooses the card, `prepare` gets it to a logged-in card with a key.
    static func consoleLoginSign(
        connect: String, prepare: String, count: Int
    ) throws -> (login: Double, loginSign: Double) {
        let console = Console()
        _ = try console.compile(connect + "\n" + prepare + "\nuse card")()
        let login = try console.compile("card.login \"123456\"")
        let loginSign = try console.compile(
            """
            card.login "123456"
            sign 0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8
            """)
        _ = try loginSign()
        return (try rate(count) { _ in _ = try login() }, try rate(count) { _ in _ = try loginSign() })
    }

    /// The card trace's cost (docs/card-explained.md, "Cost"), in the same run: a SIGN round trip
    /// through the console's tapped transport with the trace off, beside the same card without the tap
    /// (the baseline); and at `explain`, every exchange recorded, explained and rendered to lines.
    static func traceFigures() throws {
        let plain = try openSession(SimulatedCard(random: SeededRandom(seed: 21)), seed: 22)
        let tapped = try openSession(TappedTransport(SimulatedCard(random: SeededRandom(seed: 21))), seed: 22)
        // Alternate the two, three rounds each, and keep the best of each: a busy machine slows both.
        var untapped = 0.0, off = 0.0
        for _ in 0..<3 {
            untapped = max(untapped, try signRate(plain, count: 300))
            off = max(off, try signRate(tapped, count: 300))
        }
        report("card_sign_trace_baseline", untapped)
        report("card_sign_trace_off", off)
        let tracer = CardTracer(level: .explain, view: TraceView(), card: "bench")
        let renderer = CardTraceRenderer(level: .explain)
        var characters = 0
        tracer.sink = { exchange, addendum in
            characters += (addendum.map(renderer.addendumLines) ?? renderer.lines(exchange)).reduce(0) { $0 + $1.count }
        }
        tapped.tracer = tracer
        report("card_sign_trace_explain", try signRate(tapped, count: 300))
        precondition(characters > 0 && tracer.records.count >= 300)
    }

    /// The first virtual reader; pcscd may still be loading its drivers right after it started, so
    /// it is looked for during up to 10 s.
    static func virtualReader() throws -> (PCSCContext, String) {
        for _ in 0..<100 {
            if let c = try? PCSCContext(), let r = try? c.reader(matching: "Virtual PCD 00 00") { return (c, r) }
            usleep(100_000)
        }
        throw TransportError.noReader(requested: "Virtual PCD 00 00")
    }

    static func run(inProcess: Bool, pcsc: Bool) throws {
        if inProcess {
            let figures = try consoleLoginSign(
                connect: "card.connect sim bench",
                prepare: """
                    card.init --pin "123456" --puk "987654321098" --pairing "bench pairing"
                    card.login "123456" --password "bench pairing"
                    card.load mnemonic "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal will"
                    """, count: 100)
            report("card_login_inprocess", figures.login)
            report("card_login_sign_inprocess", figures.loginSign)
            let commands = try openSession(SimulatedCard(random: SeededRandom(seed: 5)), seed: 6)
            report("card_sign_inprocess", try signRate(commands, count: 300))
            try traceFigures()
            let path = try CardKeyPath("m/44'/60'/0'")
            let s = try seed()
            report(
                "card_load_derive_xpub",
                try rate(30) { _ in
                    _ = try commands.loadKey(seed: s)
                    try commands.deriveKey(path)
                    _ = try commands.exportKey(.current, kind: .extendedPublicKey)
                })
        }
        if pcsc {
            let (context, reader) = try CardBench.virtualReader()
            try context.waitForCard(in: reader, timeout: 15)
            let transport = try context.connect(reader: reader)
            report("card_sign_pcsc", try signRate(try openSession(transport, seed: 7), count: 100))
            transport.disconnect()
            // The console's way through the same reader: the card is initialised and holds a key
            // (above); kcs pairs once with the default password and stores the pairing.
            let figures = try consoleLoginSign(
                connect: "card.connect pcsc \"\(reader)\"",
                prepare: "card.login \"123456\" --default", count: 30)
            report("card_login_pcsc", figures.login)
            report("card_login_sign_pcsc", figures.loginSign)
        }
    }
}

/// Keycard 4.0 figures beside the 3.1 ones (issue 14 §5): the walk to a verified PIN (SELECT, OPEN
/// SECURE CHANNEL, and for 3.1 MUTUALLY AUTHENTICATE with the stored pairing; VERIFY PIN) and the
/// SIGN round trip, on a simulated card of each generation.
enum Card4Bench {
    static let pin = Secret(utf8: "123456")

    /// A logged-in 4.0 session on `transport` with the bench seed loaded; the simulator's CA is
    /// trusted here by name (the console trusts it for simulated cards only).
    static func openSession(_ transport: CardTransport, seed: UInt64) throws -> (CardSession, CardWalkSteps) {
        let session = CardSession(transport: transport, random: SeededRandom(seed: seed))
        var steps = CardWalkSteps()
        steps.certificate = { certificate in
            guard certificate.caPublicKey == IdentityCertificate.simulatorCA.publicKey else {
                throw CardError.untrustedCertificate(
                    identity: "\(certificate.identityPublicKey)", ca: "\(certificate.caPublicKey)")
            }
        }
        steps.initializationV2 = { _ in
            try InitParametersV2(pin: pin, puk: Secret(utf8: "987654321098"), duressPIN: Secret(utf8: "654321"))
        }
        steps.pin = pin
        _ = try session.open(steps)
        return (session, steps)
    }

    /// SIGN per second with the key at m/44'/60'/0'/0/0 (4.0: the path in every SIGN).
    static func signRate(_ commands: KeycardCommandSet, count: Int) throws -> Double {
        _ = try commands.loadKey(seed: try CardBench.seed())
        let path = try DerivationPath("m/44'/60'/0'/0/0")
        var digest = Hash.sha256(Array("bench".utf8))
        return try rate(count) { i in
            digest[0] = UInt8(truncatingIfNeeded: i)
            _ = try commands.signV2(digest: digest, path: path)
        }
    }

    static func run(inProcess: Bool, pcsc: Bool) throws {
        if inProcess {
            // 3.1: the walk with the stored pairing, as card.open + card.verify do.
            let card3 = SimulatedCard(random: SeededRandom(seed: 8))
            let session3 = CardSession(transport: card3, random: SeededRandom(seed: 9))
            let pairing = try session3.open(
                SessionOptions(
                    pin: pin,
                    initialization: try InitParameters(
                        pin: pin, puk: Secret(utf8: "987654321098"),
                        pairingSecret: PairingSecret(password: PairingSecret.defaultPassword)))
            ).pairing
            report(
                "card_open_verify_inprocess",
                try rate(200) { _ in
                    _ = try session3.open(SessionOptions(pin: pin, pairing: pairing))
                })
            let card4 = SimulatedCard(profile: .v4_0, random: SeededRandom(seed: 10))
            let identity = PrivateKey.generate(using: SeededRandom(seed: 13))
            try card4.provisionIdentity(
                certificate: IdentityCertificate.make(identityKey: identity, caKey: IdentityCertificate.simulatorCA),
                privateKey: identity.secret.withUnsafeBytes { Array($0) })
            let (session4, steps) = try openSession(card4, seed: 11)
            report("card4_open_verify_inprocess", try rate(200) { _ in _ = try session4.open(steps) })
            report("card4_sign_inprocess", try signRate(session4.commands, count: 300))
        }
        if pcsc {
            let (context, reader) = try CardBench.virtualReader()
            // The 3.1 card has just left the reader and the 4.0 one is coming: try until it answers.
            var opened: (PCSCTransport, CardSession, CardWalkSteps)?
            for attempt in 0..<50 where opened == nil {
                do {
                    try context.waitForCard(in: reader, timeout: 15)
                    let transport = try context.connect(reader: reader)
                    let (session, steps) = try openSession(transport, seed: 12 + UInt64(attempt))
                    opened = (transport, session, steps)
                } catch {
                    usleep(200_000)
                }
            }
            guard let (transport, session, steps) = opened else {
                throw TransportError.noReader(requested: "Virtual PCD 00 00 with a 4.0 card")
            }
            report("card4_open_verify_pcsc", try rate(50) { _ in _ = try session.open(steps) })
            report("card4_sign_pcsc", try signRate(session.commands, count: 100))
            transport.disconnect()
        }
    }
}
