import CardPCSC
import CardProtocol
import CardSimulator
import Foundation
import KCSErrors
import WalletCore
import WalletCrypto

/// The card a console session is connected to (docs/card-console.md): a simulated Keycard kept in the kcs
/// home (`cards/NAME.json`, the default) or a card in a PC/SC reader, the Keycard command set
/// on it, and what the session has learned (SELECT's answer, the pairing in use, whether the
/// PIN is verified). Both kinds answer the same APDUs, so every card command is written once.
public final class CardLink {
    public enum Medium {
        case simulator(SimulatedCard)
        case reader(PCSCTransport)
    }

    public let medium: Medium
    /// `sim:NAME` or the reader's name.
    public let name: String
    public let commands: KeycardCommandSet
    /// SELECT's answer, refreshed by `select()` and kept true by the command set when a key is
    /// loaded, generated or removed; the last one read while the command set has none (after
    /// INIT or FACTORY RESET, before the next SELECT).
    public var info: ApplicationInfo { commands.applicationInfo ?? known.selected }
    /// What this session knows of the card: the channel, the PIN, what it learned (CardFacts.swift).
    public internal(set) var known: CardFacts

    /// `override` (label `transport`) replaces the medium's own transport (a fault-injecting wrapper, for tests).
    public init(
        medium: Medium, name: String, random: any RandomSource, transport override: CardTransport? = nil,
        tracer: CardTracer? = nil
    ) throws(CardError) {
        self.medium = medium
        self.name = name
        let own: CardTransport =
            switch medium {
            case .simulator(let card): card
            case .reader(let t): t
            }
        // The tap reports each APDU to the card trace; with none on it only passes the bytes on.
        commands = KeycardCommandSet(transport: TappedTransport(override ?? own), random: random)
        tracer?.card = name
        commands.tracer = tracer
        known = CardFacts(selected: try commands.select())
    }

    /// SELECT again (after INIT, a reset, or to read the free slots); closes any secure channel.
    @discardableResult
    public func select() throws(CardError) -> ApplicationInfo {
        known.select(try commands.select())
        return info
    }

    /// What a simulated card is and is not (docs/card.md, "What a simulated card is"); nil for a
    /// card in a reader.
    public var simulatedNote: String? {
        guard case .simulator(let card) = medium else { return nil }
        let what = isVersion4 ? "its PIN, PUK, duress PIN and keys" : "its PIN, PUK, pairing secret and keys"
        return what + " are in " + (card.statePath ?? "this process's memory")
            + ", protected by file permissions, not by the PIN: fine for learning and testing, not for funds"
    }

    /// True for a Keycard 4.0 applet (Secure Channel V2, no pairings): the one version check
    /// of the application layer and the tables.
    public var isVersion4: Bool { info.usesSecureChannelV2 }

    /// Refuses what only a card with pairings (3.x) does: pairing, unpairing, the pairing
    /// password (a 4.0 card opens its channel against its certificate).
    public func requirePairings() throws(CardCommandError) {
        guard !isVersion4 else { throw .noPairingOnVersion4 }
    }

    /// True for a simulated card.
    public var isSimulated: Bool {
        if case .simulator = medium { return true }
        return false
    }

    /// True while a secure channel is open: with a pairing (3.x) or Secure Channel V2 (4.0).
    public var hasOpenChannel: Bool {
        commands.isSecureChannelOpen && (known.pairing != nil || isVersion4)
    }

    /// The instance UID as hex (what pairings are stored under).
    public var instanceUID: String { Hex.encode(info.instanceUID) }

    /// The first 8 hex digits of the instance UID: what a person types to confirm a reset.
    public var shortUID: String { String(instanceUID.prefix(8)) }

    /// What the prompt shows: `sim:default 1a2b3c4d`.
    public var promptLabel: String { info.isInitialized ? "\(name) \(shortUID)" : "\(name) blank" }

    /// Drops the connection (a reader's card handle; a simulated card needs nothing).
    public func disconnect() {
        commands.closeSecureChannel()
        if case .reader(let t) = medium { t.disconnect() }
    }

    /// Connects to simulated card `name` in `directory` (made blank when missing). With
    /// `dropAfter` the connection drops after that many APDUs (`KCS_SIM_DROP_AFTER`, a test aid
    /// for the recovery paths: a card pulled from the reader).
    public static func simulator(
        named name: String, in directory: String, profile: AppletProfile? = nil,
        random: any RandomSource, dropAfter: Int? = nil, tracer: CardTracer? = nil
    ) throws -> CardLink {
        let card = try SimulatedCard.open(named: name, in: directory, profile: profile ?? .v3_1_0)
        let faulty = dropAfter.map {
            FaultInjectingTransport(wrapping: card, faults: [.dropConnection(afterAPDUs: $0)])
        }
        return try CardLink(
            medium: .simulator(card), name: "sim:\(name)", random: random, transport: faulty, tracer: tracer)
    }

    /// Connects to the card in the reader whose name contains `query` (the first reader when
    /// nil), waiting up to `timeout` seconds for a card.
    public static func reader(
        matching query: String?, timeout: Double, random: any RandomSource, tracer: CardTracer? = nil,
        status: (String) -> Void
    ) throws -> CardLink {
        let context = try PCSCContext()
        let reader = try context.reader(matching: query)
        status("waiting up to \(Int(timeout)) s for a card in \(reader)…")
        try context.waitForCard(in: reader, timeout: timeout)
        let transport = try context.connect(reader: reader)
        tracer?.atr(transport.atr, reader: reader)
        return try CardLink(medium: .reader(transport), name: reader, random: random, tracer: tracer)
    }
}

extension Session {
    /// The store setting that marks a 4.0 card's identity key as trusted by the person (`card.trust`):
    /// keyed by the card's id (SHA-256 of the identity key, 16 bytes, as `ApplicationInfo.instanceUID`),
    /// holding the identity key and the CA key.
    static func trustSetting(_ certificate: CardCertificate) -> String {
        "card.trusted." + Hex.encode(Hash.sha256(certificate.identityPublicKey.compressed).prefix(16))
    }

    /// The card walk's certificate step (docs/card.md, "Keycard 4.0"): a card certified by a Keycard
    /// CA; a simulated card certified by the kcs simulator CA; or a card whose identity key the person
    /// trusted with `card.trust` (kept in the store, the 4.0 counterpart of a stored pairing).
    public func trustCertificate(_ certificate: CardCertificate, on card: CardLink) throws {
        if certificate.issuer != .unknown { return }
        if card.isSimulated, certificate.caPublicKey == IdentityCertificate.simulatorCA.publicKey { return }
        let identity = certificate.identityPublicKey.description
        if let store = existingStore(), let kept = try store.setting(Self.trustSetting(certificate)),
            kept.split(separator: " ").first.map(String.init) == identity
        {
            return
        }
        throw CardError.untrustedCertificate(identity: identity, ca: certificate.caPublicKey.description)
    }

    /// `card.trust IDENTITY`: remembers the connected 4.0 card's identity key as trusted, once the
    /// person typed it (the key card.info shows), or — `typed` nil, `--trust-on-first-use` — with
    /// nothing compared, said in a warning. Returns the certificate.
    public func trustConnectedCard(confirming typed: String?) throws -> CardCertificate {
        let card = try requireCard()
        guard let certificate = card.info.certificate else {
            throw CardKeyError.needsVersion4(feature: "a certificate to trust")
        }
        let identity = certificate.identityPublicKey.description
        if let typed {
            guard typed.lowercased() == identity else { throw CardCommandError.trustNotConfirmed(identity: identity) }
        } else {
            prompts?.warn("card.trust: trusted on first use: the identity the card reported was compared with nothing")
        }
        try store().setSetting(Self.trustSetting(certificate), to: identity + " " + certificate.caPublicKey.description)
        return certificate
    }

    /// The identity keys trusted with `card.trust`, with the CA that certified each.
    public func trustedCardIdentities() throws -> [(identity: String, ca: String)] {
        guard let store = existingStore() else { return [] }
        return try store.settings().filter { $0.key.hasPrefix("card.trusted.") }.compactMap { entry in
            let parts = entry.value.split(separator: " ").map(String.init)
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }.sorted { $0.identity < $1.identity }
    }

    /// The connected card, or an error that says how to connect.
    public func requireCard() throws -> CardLink {
        guard let card else { throw CardCommandError.notConnected }
        return card
    }

    /// The connected card with an open secure channel (the PIN may be unverified), or an error
    /// that says what to run.
    public func requireChannel() throws -> CardLink {
        let card = try requireCard()
        guard card.hasOpenChannel else {
            throw CardCommandError.notOpen
        }
        return card
    }

    /// The connected card with an open secure channel and a verified PIN (`card.login`), or an
    /// error that says what to run.
    public func requireLoggedIn() throws -> CardLink {
        let card = try requireChannel()
        guard card.known.pinVerified else { throw CardCommandError.pinNotVerified }
        return card
    }

    /// `$KCS_HOME/cards`, where simulated cards live.
    public func cardsDirectory() throws -> String {
        guard let home else { throw SessionError.noHome }
        return (home as NSString).appendingPathComponent("cards")
    }
}

/// Errors of the card commands that the protocol layer does not already name.
public enum CardCommandError: WalletError, Equatable {
    case notConnected
    case notOpen
    case pinNotVerified
    /// The card is blank (pre-initialized) and the command needs an initialized one.
    case blank
    /// `card.init` on a card that is already initialized.
    case alreadyInitialized(shortUID: String)
    /// PAIR found no free slot; `total` when the card's slot count is known.
    case noFreePairingSlots(total: Int?)
    /// `card.open` without a stored pairing for this card.
    case notPaired
    /// `card.pair` while kcs already holds a pairing for this card.
    case alreadyPaired(slot: UInt8)
    /// The card refused the stored pairing and nobody confirmed pairing again.
    case pairingRefused(slot: UInt8)
    /// One try is left and `--force` was not given; nothing was sent.
    case lastTry(credential: String)
    /// The PIN is blocked (`justNow`: by the PIN just sent).
    case pinBlocked(justNow: Bool)
    /// The PUK is blocked (`justNow`: by the PUK just sent).
    case pukBlocked(justNow: Bool)
    /// `card.unblock` while the PIN still has tries.
    case pinNotBlocked(triesLeft: Int)
    /// A wrong PIN on a 4.0 card whose PIN was unblocked in a duress session: the tries are the
    /// duress PIN's (docs/keycard-protocol.md §14.5).
    case wrongPINAfterDuressUnblock(triesLeft: Int)
    /// A value needed in a batch run and not given (`option` says how to give it).
    case valueNeeded(what: String, option: String)
    /// A new value typed twice differently.
    case valuesDiffer(what: String)
    /// `card.reset` without the right short instance UID (`typed` nil: none given in a batch run).
    case resetNotConfirmed(typed: String?)
    /// The applet has no FACTORY RESET (older than 3.1).
    case resetUnsupported
    /// `card.unpair` with more than one of SLOT, `--others`, `--all`.
    case unpairChoice
    /// `card.init` in a batch run whose PIN would equal the duress PIN, without `--duress` or `--force`.
    case duressTrap(reason: String)
    /// A pairing command on a 4.0 card, which has no pairing.
    case noPairingOnVersion4
    /// `card.trust` without the connected card's identity key typed to confirm.
    case trustNotConfirmed(identity: String)
    case trustNotCompared
    case emptyPairingPassword

    /// Its sentences follow the command's name (`IdentifiableError.followsCommandName`), but
    /// for the one about pairing slots, which stands alone as the SDK's sentence does.
    public var followsCommandName: Bool {
        if case .noFreePairingSlots = self { false } else { true }
    }

    public var id: String {
        switch self {
        case .notConnected: "card.notConnected"
        case .notOpen: "card.notOpen"
        case .pinNotVerified: "card.pinNotVerified"
        case .blank: "card.blank"
        case .alreadyInitialized: "card.alreadyInitialized"
        case .noFreePairingSlots: "card.noFreePairingSlot"
        case .notPaired: "card.notPaired"
        case .alreadyPaired: "card.alreadyPaired"
        case .pairingRefused: "card.pairingRefused"
        case .lastTry: "card.lastTry"
        case .pinBlocked: "card.pinBlocked"
        case .pukBlocked: "card.pukBlocked"
        case .pinNotBlocked: "card.pinNotBlocked"
        case .wrongPINAfterDuressUnblock: "card.wrongPINAfterDuressUnblock"
        case .valueNeeded: "card.valueNeeded"
        case .valuesDiffer: "card.valuesDiffer"
        case .resetNotConfirmed: "card.resetNotConfirmed"
        case .resetUnsupported: "card.resetUnsupported"
        case .unpairChoice: "card.unpairChoice"
        case .duressTrap: "card.duressTrap"
        case .noPairingOnVersion4: "card.noPairing"
        case .trustNotConfirmed: "card.trustNotConfirmed"
        case .trustNotCompared: "card.trustNotCompared"
        case .emptyPairingPassword: "card.emptyPairingPassword"
        }
    }

    public var description: String {
        switch self {
        case .notConnected:
            "no card connected; run card.connect (the simulator) or card.connect pcsc [READER]"
        case .notOpen:
            "no secure channel is open; run card.login (or card.pair and card.open)"
        case .pinNotVerified:
            "the PIN is not verified; run card.verify or card.login"
        case .blank:
            "the card is blank (not initialized); run card.init first"
        case .alreadyInitialized(let uid):
            "the card is already initialized (instance \(uid)); card.reset erases it first"
        case .noFreePairingSlots(let total):
            "The card has no free pairing slots\(total.map { " (\($0) of \($0) used)" } ?? ""). From a paired session run "
                + "`card.unpair --others`, or factory-reset the card with `card.reset`."
        case .notPaired:
            "kcs holds no pairing for this card; run card.login (it pairs and stores the pairing) or card.pair"
        case .alreadyPaired(let slot):
            "kcs already holds a pairing for this card (slot \(slot)); card.login and card.open use it. "
                + "To pair anyway add --force (slot \(slot) stays taken until card.unpair \(slot))"
        case .pairingRefused(let slot):
            "the card refused kcs's stored pairing (slot \(slot)): it was unpaired or taken over by another client. "
                + "Run card.login --yes to forget it and pair again (this uses a free slot)"
        case .lastTry(let what):
            what == "PUK"
                ? "the PUK has 1 try left; kcs does not send a PUK that could block the card for good. "
                    + "Check it, then add --force (a wrong PUK leaves only card.reset)"
                : "the PIN has 1 try left; kcs does not send a PIN that could block the card. "
                    + "Check it, then add --force (a wrong PIN blocks it; card.unblock with the PUK frees it)"
        case .pinBlocked(let justNow):
            justNow
                ? "wrong PIN: no tries left, the PIN is now blocked; unblock it with the PUK: card.unblock"
                : "the PIN is blocked (no tries left); unblock it with the PUK: card.unblock"
        case .pukBlocked(let justNow):
            (justNow ? "wrong PUK: no tries left, the PUK is now blocked" : "the PUK is blocked (no tries left)")
                + "; only a factory reset (card.reset) makes the card usable again"
        case .pinNotBlocked(let n):
            "the PIN is not blocked (\(n) \(n == 1 ? "try" : "tries") left), so there is nothing to unblock; use card.verify"
        case .wrongPINAfterDuressUnblock(let n):
            (n == 0
                ? "wrong PIN: no tries left, the PIN now set is blocked (card.unblock with the PUK sets it again)"
                : "wrong PIN: \(n == 1 ? "1 try" : "\(n) tries") left")
                + " — and they are the duress PIN's tries: the PIN was unblocked in a duress session, so the PIN now set is "
                + "the one given to card.unblock, which opens the duress wallet, and the main PIN stays blocked; the main "
                + "wallet comes back only with a factory reset (card.reset) and a restore from its mnemonic"
        case .valueNeeded(let what, let option):
            "the \(what) is needed and standard input is not a terminal to ask for it; pass \(option)"
        case .valuesDiffer(let what):
            "the two \(what)s differ; nothing was changed"
        case .resetNotConfirmed(let typed):
            typed.map { "\"\($0)\" is not this card's short instance UID; nothing was erased" }
                ?? "erasing the card needs its short instance UID; add --confirm UID (the shortUID of card.info)"
        case .resetUnsupported:
            "this applet (older than 3.1) has no factory reset"
        case .unpairChoice:
            "give one of SLOT, --others or --all (none unpairs this session's own slot)"
        case .duressTrap(let reason):
            "\(reason); nothing was written to the card. Choose another PIN or PUK, give --duress PIN, "
                + "or add --force to initialize anyway"
        case .noPairingOnVersion4:
            "a 4.0 card needs no pairing and has no pairing slots: card.login opens its secure channel, "
                + "checked against the card's certificate"
        case .trustNotConfirmed(let identity):
            "trusting a card means typing its identity key, \(identity) (card.info shows it); nothing was stored"
        case .emptyPairingPassword:
            "an empty pairing password lets anyone pair with the card and try its PIN: give one, or --generate one; nothing was changed"
        case .trustNotCompared:
            "the identity given was read from the card being trusted, so nothing was compared: write the identity you "
                + "expect (from a source you trust), or say --trust-on-first-use; nothing was stored"
        }
    }
}

// MARK: - Helpers of the card commands (docs/card-console.md)

extension CardLink {
    /// How many persistent pairing slots the card has: the simulator's profile; what this
    /// session learned (`card.unpair --others` walks the table to its end); a reader's card by
    /// applet version (3.0: 5, 3.2: 10; 3.1: 100 when SELECT showed more than 5 free, else
    /// unknown — 3.1.0 has 5, 3.1.1 and 3.1.2 have 100 and report the same version).
    public var pairingSlotCount: Int? {
        if case .simulator(let card) = medium { return card.applet.profile.pairingSlots }
        if let n = known.learnedPairingSlotCount { return n }
        guard let v = info.version else { return nil }
        switch (v.major, v.minor) {
        case (3, 0): return 5
        case (3, 1): return (info.freePairingSlots ?? 0) > 5 ? 100 : nil
        case (3, 2): return 10
        default: return nil
        }
    }

    /// The fewest slots the card can have: `pairingSlotCount`, else 5 for an applet 3.1 (3.1.0
    /// has 5, 3.1.1 and 3.1.2 have 100); nil when nothing is known.
    public var leastPairingSlotCount: Int? {
        if let n = pairingSlotCount { return n }
        if let v = info.version, v.major == 3, v.minor == 1 { return 5 }
        return nil
    }

    /// Pairing slots in use that kcs's records do not explain (docs/card.md, "Pairing slots"):
    /// the slots used (total − free) beyond kcs's stored pairing for this card (`stored`) and this
    /// session's ephemeral one. Another client's pairings count too: kcs cannot tell them from a
    /// slot lost to an interrupted PAIR or UNPAIR. A lower bound when only the least total is
    /// known; nil when the free count or the total is unknown.
    public func unexplainedPairingSlots(stored: Bool) -> Int? {
        guard let free = known.freePairingSlots, let total = leastPairingSlotCount else { return nil }
        let ours = (stored ? 1 : 0) + (known.ephemeralPairing.map { $0.index != 0xFF } == true ? 1 : 0)
        return max(0, total - free - ours)
    }

    /// The warning for `unexplainedPairingSlots`, nil when there are none.
    public func unexplainedPairingSlotsWarning(stored: Bool) -> String? {
        guard let n = unexplainedPairingSlots(stored: stored), n > 0 else { return nil }
        let count =
            pairingSlotCount.map { "\(n) of the card's \($0) pairing slots \(n == 1 ? "is" : "are")" }
            ?? "at least \(n) of the card's pairing slots \(n == 1 ? "is" : "are")"
        return count + " used by pairings kcs holds no record of "
            + "(another client's, or lost to an interrupted pair or unpair); if they are not yours, free them from a "
            + "logged-in session with card.unpair --others"
    }
}

/// The two credentials whose tries the card counts.
public enum CardCredential: String {
    case pin = "PIN", puk = "PUK"
}

extension Session {
    /// PIN safety (docs/card-console.md): refuses to send `credential` when `status` (GET STATUS over the
    /// open channel) shows it blocked, or one try left and `force` is false.
    public static func checkTries(
        _ credential: CardCredential, in status: ApplicationStatus, force: Bool
    ) throws(CardCommandError) {
        let tries = credential == .pin ? status.pinRetries : status.pukRetries
        if tries == 0 {
            throw credential == .pin ? .pinBlocked(justNow: false) : .pukBlocked(justNow: false)
        }
        if tries == 1 && !force { throw .lastTry(credential: credential.rawValue) }
    }

    /// A failure of a command that sent a PIN or PUK, as the console reports it: the last try
    /// gone becomes "blocked"; anything else (tries left, a lost connection) stays as it is, so
    /// a transport failure is never a wrong PIN.
    public static func credentialFailure(_ error: Error) -> Error {
        switch error as? CardError {
        case .wrongPIN(0)?: CardCommandError.pinBlocked(justNow: true)
        case .wrongPUK(0)?: CardCommandError.pukBlocked(justNow: true)
        default: error
        }
    }

    /// Frees the pairing `card.login --ephemeral` made (UNPAIR over the open channel with the
    /// verified PIN). When that is impossible — the PIN was never verified, the connection
    /// dropped — the pairing is stored in the vault instead (unless kcs holds one for this card
    /// already), so `card.login` reuses the slot and `card.unpair` can free it: a slot is never
    /// lost silently. Returns the warnings to show; empty when the slot was freed.
    @discardableResult
    public func releaseEphemeralPairing() -> [String] {
        guard let card, let pairing = card.known.ephemeralPairing else { return [] }
        card.known.ephemeral(nil)
        // Applet 3.2's ephemeral slot FF lives in RAM; the card forgets it on deselection.
        if pairing.index == 0xFF { return [] }
        var reason: String
        if card.commands.isSecureChannelOpen, card.known.pairing == pairing, card.known.pinVerified {
            do {
                try card.commands.unpair(index: pairing.index)
                return []
            } catch {
                reason = String(describing: error)
            }
        } else if card.known.pairing == pairing, card.commands.isSecureChannelOpen {
            reason = "the PIN was not verified, and UNPAIR needs it"
        } else {
            reason = "the secure channel is closed"
        }
        let slot = pairing.index
        do {
            let store = try unlockedStore()
            let uid = card.info.instanceUID
            if uid.count == 16, try !store.pairings().contains(where: { $0.instanceUID == uid }) {
                try store.savePairing(pairing, instanceUID: uid)
                return [
                    "could not free this session's pairing (slot \(slot)): \(reason). kcs stored it instead, "
                        + "so card.login reuses the slot and card.unpair frees it"
                ]
            }
        } catch {
            reason += "; storing it failed too (\(error))"
        }
        return [
            "could not free this session's pairing (slot \(slot)): \(reason). Free it from a paired session "
                + "with card.unpair \(slot)"
        ]
    }

    /// True when kcs's store holds a pairing for `card` (listing pairings needs no vault; no
    /// store, or one that cannot be read, holds none).
    public func holdsPairing(for card: CardLink) -> Bool {
        guard let store = existingStore(), let held = try? store.pairings() else { return false }
        return held.contains { $0.instanceUID == card.info.instanceUID }
    }

    /// Shows each warning on the terminal's status line (`warning: …`).
    public func warn(_ warnings: [String]) {
        for w in warnings { prompts?.status("warning: " + w) }
    }

    /// Ends the session's use of the card: frees an ephemeral pairing (see
    /// `releaseEphemeralPairing`) and lets go of the card. The console calls it once when kcs
    /// exits, however the run ended; warnings go to standard error. Calling it again does nothing.
    public func close() {
        for warning in releaseEphemeralPairing() {
            FileHandle.standardError.write(Data("kcs: warning: \(warning)\n".utf8))
        }
        card?.disconnect()
        card = nil
    }
}

extension CardCommandError {
    public var exitClass: ExitClass {
        switch self {
        case .notConnected: .noCard
        case .lastTry: .wrongPIN
        case .wrongPINAfterDuressUnblock(let n): n == 0 ? .blocked : .wrongPIN
        case .pinBlocked, .pukBlocked: .blocked
        case .resetNotConfirmed: .cancelled
        // Values a batch run did not give, or typed twice differently: not the card's doing.
        case .valueNeeded, .valuesDiffer, .unpairChoice, .duressTrap, .emptyPairingPassword, .trustNotCompared:
            .runtimeError
        default: .cardError
        }
    }
}
