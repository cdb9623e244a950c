import CardPCSC
import CardProtocol
import CardSimulator
import Foundation
import WalletCore
import WalletCrypto
import WalletStore

// Connecting to a card, INIT with the duress check, freeing pairing slots and the factory reset
// (docs/card-console.md). The commands' arguments are checked by the builtins; what happens on
// the card and in kcs's books happens here.

/// Where `card.connect` goes.
public enum CardMediumChoice {
    /// A simulated card in the kcs home, by name; made with `profile` when missing (default 3.1.0).
    case simulator(name: String, profile: AppletProfile? = nil)
    /// The card in the PC/SC reader whose name contains `query` (the first reader when nil).
    case reader(query: String?, timeout: Double)
}

/// What `card.unpair` frees.
public enum UnpairChoice: Equatable {
    /// This session's own slot (the session ends).
    case own
    /// One slot by number.
    case slot(UInt8)
    /// Every slot but this session's.
    case others
    /// Every slot, this session's too (the session ends).
    case all
}

/// What `card.unpair` did.
public struct UnpairResult: Equatable {
    /// The slots freed, in order.
    public let unpaired: [UInt8]
    /// True when this session's own slot went (the card must be logged in again).
    public let loggedOut: Bool
    /// The free slots now, when known (`nil`: not reported, or unknown).
    public let freePairingSlots: Int?
    /// False when the free count is not part of the answer (one slot by number: it may have been free).
    public let reportsFreeSlots: Bool
}

/// `card.init`'s values, checked and ready.
public struct CardInitRequest {
    /// A 3.x card's INIT values.
    public var parameters: InitParameters?
    /// A 4.0 card's INIT values (a distinct duress PIN, no pairing password).
    public var parametersV2: InitParametersV2?
    /// Generated values to show once after INIT (`card.init --generate`), as `what: value` lines.
    public var shown: [String]
    /// INIT anyway when the duress PIN would equal the PIN (`--force`).
    public var force: Bool

    public init(parameters: InitParameters, shown: [String] = [], force: Bool = false) {
        self.parameters = parameters
        self.shown = shown
        self.force = force
    }

    public init(parametersV2: InitParametersV2, shown: [String] = []) {
        self.parametersV2 = parametersV2
        self.shown = shown
        self.force = false
    }
}

extension Session {
    /// `card.connect`: opens the card (a simulated card is made blank when missing), lets go of
    /// the card before (an ephemeral pairing on it freed first), and returns the warning when
    /// the card has used pairing slots kcs's records do not explain (a lost slot is never silent).
    public func connectCard(_ choice: CardMediumChoice) throws -> String? {
        // An ephemeral pairing on the card we leave is freed first.
        warn(releaseEphemeralPairing())
        let link: CardLink
        switch choice {
        case .simulator(let name, let profile):
            link = try CardLink.simulator(
                named: name, in: try cardsDirectory(), profile: profile, random: random,
                dropAfter: environment["KCS_SIM_DROP_AFTER"].flatMap { Int($0) },
                tracer: tracerForConnection(real: false))
        case .reader(let query, let timeout):
            link = try CardLink.reader(
                matching: query, timeout: timeout, random: random, tracer: tracerForConnection(real: true)
            ) { self.prompts?.status($0) }
        }
        card?.disconnect()
        card = link
        guard link.info.isInitialized,
            let warning = link.unexplainedPairingSlotsWarning(stored: holdsPairing(for: link))
        else {
            return nil
        }
        warn([warning])
        return warning
    }

    /// `card.init`: refuses an initialized card; checks the duress trap before INIT (applet
    /// 3.1+ makes the PUK's first 6 digits the duress PIN unless one is given, and a PIN equal
    /// to the duress PIN logs in under duress every time — docs/keycard-protocol.md §7.2, §10.2): at a
    /// terminal it explains and asks, in a batch run it refuses unless `force`. Then INIT,
    /// SELECT, and the generated values shown once. `values` gives them (asking or generating)
    /// once the card is known to be blank. Returns the warnings.
    public func initializeCard(values: () throws -> CardInitRequest) throws -> [String] {
        let card = try requireCard()
        guard !(try card.select()).isInitialized else {
            throw CardCommandError.alreadyInitialized(shortUID: card.shortUID)
        }
        let request = try values()
        var warnings: [String] = []
        if card.isVersion4 {
            // 4.0: INIT inside the secure channel (docs/keycard-protocol.md §14.4), then SELECT again.
            guard let parameters = request.parametersV2 else { throw CardError.notSelected(command: .initialize) }
            var steps = CardWalkSteps()
            steps.selected = { card.known.select($0) }
            steps.certificate = { try self.trustCertificate($0, on: card) }
            steps.initializationV2 = { _ in parameters }
            _ = try CardSession(commands: card.commands).open(steps)
            try card.select()
            showOnce(request.shown)
            return warnings
        }
        guard let parameters = request.parameters else { throw CardError.notSelected(command: .initialize) }
        if let trap = Self.duressTrap(parameters) {
            if !request.force {
                guard let prompts, prompts.isInteractive else { throw CardCommandError.duressTrap(reason: trap) }
                prompts.write(
                    "\(trap): the words you load would give other keys than you expect, and signing "
                        + "would still say verified. Choose another PIN or PUK, or give --duress PIN.\n")
                try confirm("Initialize the card anyway?", yes: false)
            }
            warnings.append(trap + ". Reset and choose another PIN or PUK, or give --duress")
        }
        try card.commands.initialize(parameters)
        try card.select()
        // Remembered, so that card.load can name the trap when the words give other keys.
        if !warnings.isEmpty { try store().setSetting(card.duressTrapSetting, to: "1") }
        showOnce(request.shown)
        return warnings
    }

    /// Generated INIT values, shown once.
    private func showOnce(_ shown: [String]) {
        if !shown.isEmpty {
            show((["Write these down; they are shown only now:"] + shown.map { "  " + $0 }).joined(separator: "\n"))
        }
    }

    /// Why INIT with these values would make every login a duress login, nil when it would not.
    static func duressTrap(_ p: InitParameters) -> String? {
        if let duress = p.duressPIN, duress == p.pin {
            return "the duress PIN equals the PIN: every login would run in duress mode (other keys)"
        }
        if p.duressPIN == nil, startsWith(p.puk, p.pin) {
            return "the PUK's first 6 digits equal the PIN; applet 3.1+ makes them the duress PIN, so "
                + "every login would run in duress mode (other keys)"
        }
        return nil
    }

    /// True when `secret` starts with the bytes of `prefix` (compared in constant time).
    public static func startsWith(_ secret: Secret, _ prefix: Secret) -> Bool {
        secret.withUnsafeBytes { s in
            prefix.withUnsafeBytes { p in s.count >= p.count && ConstantTime.equal(s.prefix(p.count), p) }
        }
    }

    /// `card.unpair`: frees pairing slots from a logged-in session, confirmed first for
    /// `others`/`all` (`yes` in a batch run), and forgets kcs's stored pairing when its slot
    /// goes. Walking the table for `others` learns the card's slot total where UNPAIR answers
    /// `6A 86` (docs/card.md, "Pairing slots").
    public func unpair(_ choice: UnpairChoice, yes: Bool) throws -> UnpairResult {
        let card = try requireLoggedIn()
        guard let ours = card.known.pairing?.index else { throw CardCommandError.notOpen }
        let uid = card.info.instanceUID
        let store = try self.store()
        let stored = try store.pairings().first { $0.instanceUID == uid }?.slot
        let total = card.pairingSlotCount

        switch choice {
        case .others, .all:
            try confirm(
                choice == .all
                    ? "Unpair every client of this card, kcs included? All must pair again"
                    : "Unpair every other client of this card? They must pair again",
                yes: yes)
            var freed: [UInt8] = []
            // Slot indexes stop at the table's end (6A 86), or at 0x7F (0x80 and up are refused):
            // where they stop is the slot total, and all but this session's slot are free.
            var end = UInt8(total ?? 0x7F)
            var slot: UInt8 = 0
            while slot < end {
                if slot != ours {
                    switch Result(catching: { () throws(CardError) in try card.commands.unpair(index: slot) }) {
                    case .success: freed.append(slot)
                    case .failure(.incorrectP1P2): end = slot
                    case .failure(let error): throw error
                    }
                }
                slot += 1
            }
            card.known.pairingSlots(total: total ?? Int(end), free: Int(end) - 1)
            if let stored, stored != ours { try store.deletePairing(instanceUID: uid) }
            guard choice == .all else {
                return UnpairResult(
                    unpaired: freed, loggedOut: false, freePairingSlots: card.known.freePairingSlots,
                    reportsFreeSlots: true)
            }
            try unpairOwn(card, slot: ours, stored: stored == ours, store: store)
            return UnpairResult(
                unpaired: freed + [ours], loggedOut: true, freePairingSlots: card.info.freePairingSlots,
                reportsFreeSlots: true)
        case .slot(let slot) where slot != ours:
            try card.commands.unpair(index: slot)
            // One more free slot, or none when it was free already: this session cannot tell.
            card.known.pairingSlots(total: nil, free: nil)
            if stored == slot { try store.deletePairing(instanceUID: uid) }
            return UnpairResult(unpaired: [slot], loggedOut: false, freePairingSlots: nil, reportsFreeSlots: false)
        case .own, .slot:
            try unpairOwn(card, slot: ours, stored: stored == ours, store: store)
            return UnpairResult(
                unpaired: [ours], loggedOut: true, freePairingSlots: card.info.freePairingSlots,
                reportsFreeSlots: true)
        }
    }

    /// Frees this session's own slot (forgetting it when kcs stored it) and ends the session.
    private func unpairOwn(_ card: CardLink, slot: UInt8, stored: Bool, store: WalletStore) throws {
        try card.commands.unpair(index: slot)
        if stored { try store.deletePairing(instanceUID: card.info.instanceUID) }
        card.known.ephemeral(nil)
        try card.select()
    }

    /// `card.reset`: FACTORY RESET once `typed` (asked at a terminal when nil) is the card's
    /// short instance UID; frees every slot (an ephemeral one too) and forgets what kcs kept
    /// for the card (its pairing, its key check). Returns whether a stored pairing was forgotten.
    public func factoryReset(typed given: String?) throws -> (initialized: Bool, forgotPairing: Bool) {
        let card = try requireCard()
        // An open session keeps its SELECT answer (and its pairing, should the reset be declined).
        if !card.commands.isSecureChannelOpen { try card.select() }
        let info = card.info
        guard info.isInitialized else { throw CardCommandError.blank }
        guard info.capabilities.contains(.factoryReset) else { throw CardCommandError.resetUnsupported }
        let typed: String
        if let given {
            typed = given
        } else {
            guard let prompts, prompts.isInteractive else { throw CardCommandError.resetNotConfirmed(typed: nil) }
            guard
                let answer = try prompts.ask(
                    prompt: "card.reset erases this card's keys, PIN, PUK and every pairing. "
                        + "Type its short instance UID (shown in the prompt and by card.info) to confirm: ")
            else { throw SessionError.cancelled }
            typed = answer
        }
        guard typed.trimmingCharacters(in: .whitespaces).lowercased() == card.shortUID else {
            throw CardCommandError.resetNotConfirmed(typed: typed)
        }
        // The reset frees every slot, an ephemeral one included.
        card.known.ephemeral(nil)
        // FACTORY RESET goes plain: an open session is closed first (otherwise the SELECT
        // above is still the last APDU sent).
        if card.commands.isSecureChannelOpen { try card.select() }
        try card.commands.factoryReset()
        let forgot = try self.store().deletePairing(instanceUID: info.instanceUID)
        try self.store().deleteCardKeyCheck(instanceUID: info.instanceUID)
        // What kcs knew of the card's PINs goes with them (a 4.0 card keeps its instance UID).
        for setting in [card.duressLoginSetting, card.duressUnblockSetting, card.duressTrapSetting] {
            try self.store().setSetting(setting, to: nil)
        }
        return (try card.select().isInitialized, forgot)
    }
}
