import CardProtocol
import Foundation
import WalletCrypto

/// A simulated Keycard behind the `VirtualCard` seam: the applet (`KeycardApplet`), an ATR, power and
/// reset events, optional persistence of the card's memory in a state file and an optional `APDULog`.
///
/// `transmit` never throws for a card that is powered: every command, well-formed or not, gets a status
/// word (`6700` for a malformed APDU). It throws only when the card is powered off, or when its state
/// file cannot be written — the card then behaves as one torn from the reader at that moment: a PIN
/// try counter is committed before the PIN is compared and never restored, other changes of the
/// command are dropped (`KeycardApplet.commit`).
///
/// A persisted card lives in `<directory>/<name>.json` (mode 0600). The file is replaced atomically
/// at each commit; it holds the card's secrets and nothing else does. Several cards can live in one
/// directory, each under its own name. Its secrets are protected by the file's permissions, not by
/// the PIN: anyone who can read the file has them (docs/card.md, "What a simulated card is").
public final class SimulatedCard: VirtualCard {
    /// The applet: for inspection (`isInitialized`, `instanceUID`, …) or for driving it without a transport.
    public let applet: KeycardApplet
    /// The card's name, nil for an in-memory card.
    public let name: String?
    /// The state file, nil for an in-memory card.
    public let statePath: String?
    /// Where exchanged APDUs and power events are recorded, if anywhere.
    public var log: APDULog?
    /// False after `powerOff` until `powerOn`.
    public private(set) var isPowered = true

    /// The ATR every simulated Keycard reports: the PC/SC pseudo-ATR of a contactless ISO 14443-4 card
    /// (PC/SC Part 3 §3.1.3.2.3: `3B 8n 80 01` ‖ historical bytes ‖ TCK), as a Keycard shows through an
    /// NFC reader, with historical bytes ASCII `KeycardSim` so tools can tell it is simulated:
    /// `3B 8A 80 01 4B 65 79 63 61 72 64 53 69 6D 1F`.
    public static let defaultATR: [UInt8] = {
        let historical = Array("KeycardSim".utf8)
        let body: [UInt8] = [0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        return [0x3B] + body + [body.reduce(0, ^)]
    }()

    /// Always `defaultATR`.
    public var atr: [UInt8] { Self.defaultATR }

    // MARK: - Creating and opening

    /// A card that lives only in memory: a fresh, PRE-INITIALIZED applet of `profile`. Pass a
    /// `SeededRandom` for a deterministic card, or a `ReplayRandom` to reproduce a transcript exactly.
    public init(profile: AppletProfile = .v3_1_0, random: any RandomSource = SystemRandom(), log: APDULog? = nil) {
        applet = KeycardApplet(profile: profile, random: random)
        name = nil
        statePath = nil
        self.log = log
    }

    private init(applet: KeycardApplet, name: String, path: String, log: APDULog?) {
        self.applet = applet
        self.name = name
        self.statePath = path
        self.log = log
        applet.persist = { [profile = applet.profile] (state: CardState) throws(SimulatorError) in
            try CardStore.write(state, profile: profile, to: path)
        }
    }

    /// Opens the card `name` in `directory` (e.g. `$KCS_HOME/cards`), creating the directory (0700) when
    /// missing. When the card's file does not exist a fresh card of `profile` is installed and written,
    /// unless `creating` is false. An existing card keeps the profile it was created with.
    ///
    /// - Parameters:
    ///   - random: the card's randomness for this session (a `SeededRandom` makes it deterministic).
    /// - Throws: `.invalidCardName`, `.cardNotFound` (only with `creating: false`), `.directoryUnusable`,
    ///   `.stateUnreadable`, `.stateWriteFailed`.
    public static func open(
        named name: String, in directory: String, profile: AppletProfile = .v3_1_0,
        random: any RandomSource = SystemRandom(), creating: Bool = true,
        log: APDULog? = nil
    ) throws(SimulatorError) -> SimulatedCard {
        let path = try CardStore.path(for: name, in: directory)
        try CardStore.prepare(directory)
        if CardStore.exists(path) {
            let (stored, state) = try CardStore.read(path)
            return SimulatedCard(
                applet: KeycardApplet(state: state, profile: stored, random: random),
                name: name, path: path, log: log)
        }
        guard creating else { throw .cardNotFound(name: name, path: path) }
        let applet = KeycardApplet(profile: profile, random: random)
        if profile.isVersion4 { applet.provisionSimulatorIdentity() }
        let card = SimulatedCard(applet: applet, name: name, path: path, log: log)
        try card.save()
        return card
    }

    /// Installs a new card `name` in `directory` and writes its file.
    ///
    /// - Throws: `.cardExists` when the name is taken, and the errors of `open`.
    public static func create(
        named name: String, in directory: String, profile: AppletProfile = .v3_1_0,
        random: any RandomSource = SystemRandom(),
        log: APDULog? = nil
    ) throws(SimulatorError) -> SimulatedCard {
        let path = try CardStore.path(for: name, in: directory)
        guard !CardStore.exists(path) else { throw .cardExists(name: name, path: path) }
        return try open(named: name, in: directory, profile: profile, random: random, creating: true, log: log)
    }

    /// The names of the cards in `directory`, sorted; empty when the directory does not exist.
    public static func cardNames(in directory: String) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }
            .filter(CardStore.isValidName).sorted()
    }

    /// Deletes card `name` from `directory` (its state file).
    ///
    /// - Throws: `.invalidCardName`, `.cardNotFound`, `.stateWriteFailed` when the file cannot be removed.
    public static func delete(named name: String, in directory: String) throws(SimulatorError) {
        let path = try CardStore.path(for: name, in: directory)
        guard CardStore.exists(path) else { throw .cardNotFound(name: name, path: path) }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw .stateWriteFailed(path: path, reason: "cannot remove it")
        }
    }

    /// True when `name` can name a card: 1–64 characters `A–Z a–z 0–9 . _ -`, not starting with `.` or `-`.
    public static func isValidName(_ name: String) -> Bool { CardStore.isValidName(name) }

    /// Provisions the card identity (certificate and identity key) as the factory would, and saves.
    /// Afterwards IDENTIFY answers and the Ident applet returns the certificate.
    public func provisionIdentity(certificate: [UInt8], privateKey: [UInt8]) throws(SimulatorError) {
        try applet.provisionIdentity(certificate: certificate, privateKey: privateKey)
        try save()
    }

    /// Writes the card's persistent memory to its state file (a no-op for an in-memory card).
    public func save() throws(SimulatorError) {
        if let statePath { try CardStore.write(applet.state, profile: applet.profile, to: statePath) }
        applet.markCommitted()
    }

    // MARK: - CardTransport / VirtualCard

    /// Sends one command APDU to the selected applet and returns its response (data ‖ SW1 SW2), after
    /// the applet committed what the command changed to the state file, and records the exchange in
    /// `log`.
    ///
    /// - Throws: `.connectionLost` when the card is powered off, or when a commit could not be written:
    ///   the card then behaves as one torn from the reader at that point (`KeycardApplet.commit`) —
    ///   what was committed before stays, a PIN try counter included, and the command went no further.
    public func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        guard isPowered else { throw .connectionLost(detail: "the simulated card is powered off") }
        let response = applet.process(command)
        if let failure = applet.commitFailure {
            applet.reset()
            throw .connectionLost(detail: failure.description)
        }
        log?.record(.exchange(command: command, response: response))
        return response
    }

    /// Cold reset: powered, nothing selected, transient memory cleared.
    public func powerOn() {
        isPowered = true
        applet.reset()
        log?.record(.powerOn(atr: atr))
    }

    /// Power off: transient memory is lost; `transmit` throws until `powerOn`.
    public func powerOff() {
        isPowered = false
        applet.reset()
        log?.record(.powerOff)
    }

    /// Warm reset: nothing selected, transient memory cleared; the card stays powered.
    public func reset() {
        isPowered = true
        applet.reset()
        log?.record(.reset(atr: atr))
    }
}
