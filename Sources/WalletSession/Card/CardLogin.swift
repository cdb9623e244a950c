import CardProtocol
import WalletCore
import WalletCrypto
import WalletStore

// Getting into a card: pairing that is stored and never lost, the walk of `card.login` (on
// `CardSession`, the one walk), and the duress check after it (docs/card.md, "Pairing slots",
// "Duress logins").

/// What `card.login` is asked to do besides verifying the PIN.
public struct CardLoginRequest {
    /// Pair for this session only; the slot is freed on every way out, nothing is stored.
    public var ephemeral = false
    /// Send the PIN even when only one try is left.
    public var force = false
    /// Forget a refused stored pairing and pair again without asking.
    public var repairWithoutAsking = false
    /// A pairing option was given (a password, the default password, an ephemeral pairing):
    /// refused on a 4.0 card, which has no pairing, as `card.init --pairing` is.
    public var pairingOptionGiven = false
    /// The pairing secret, asked only when the walk has to pair.
    public var pairingSecret: () throws -> PairingSecret

    public init(pairingSecret: @escaping () throws -> PairingSecret) {
        self.pairingSecret = pairingSecret
    }
}

/// What a login did.
public struct CardLoginResult {
    /// The pairing the channel is open with; nil on a 4.0 card (no pairing).
    public let pairing: Pairing?
    /// True when this login ran PAIR (no stored pairing, or a refused one replaced).
    public let paired: Bool
    /// Things the person should know (a slot left, a refused pairing forgotten, a duress login).
    public let warnings: [String]
}

extension CardLink {
    /// PAIR's precondition as SELECT last showed it: a card with no free slot is not asked.
    public func checkFreePairingSlot() throws(CardCommandError) {
        if info.freePairingSlots == 0 { throw .noFreePairingSlots(total: pairingSlotCount) }
    }

    /// After PAIR and keeping the pairing: SELECT again for the free count, and the warnings
    /// when one slot or none is left.
    public func pairingSlotWarnings(after pairing: Pairing) throws(CardError) -> [String] {
        let free = try select().freePairingSlots
        guard pairing.index != 0xFF, let free, free <= 1 else { return [] }
        return [
            free == 1
                ? "one pairing slot is left on the card; free unused ones with card.unpair --others"
                : "that was the card's last free pairing slot; free unused ones with card.unpair --others"
        ]
    }

    /// PAIR (`card.pair`): checks the free count first, `keep` stores the pairing at once (the
    /// slot is used from here on), then SELECT refreshes the count.
    public func pair(
        secret: PairingSecret, mode: PairingMode = .persistentOrEphemeral,
        keep: (Pairing) throws -> Void
    ) throws -> (pairing: Pairing, warnings: [String]) {
        try checkFreePairingSlot()
        let pairing: Pairing
        do {
            pairing = try commands.pair(secret: secret, mode: mode)
        } catch .noFreePairingSlot {
            throw CardCommandError.noFreePairingSlots(total: pairingSlotCount)
        }
        try keep(pairing)
        return (pairing, try pairingSlotWarnings(after: pairing))
    }

    // MARK: Duress logins

    /// The store setting that says this 4.0 card's PIN was unblocked in a duress session: the PIN
    /// in use is then the duress PIN that card.unblock set, and the main PIN is blocked
    /// (docs/keycard-protocol.md §14.5).
    public var duressUnblockSetting: String { "card.duress-unblocked." + instanceUID }

    /// The store setting that says kcs initialized this card with the duress PIN equal to the PIN
    /// (the duress trap, confirmed at `card.init`): every login on it is a duress login.
    public var duressTrapSetting: String { "card.duress-trap." + instanceUID }

    /// The way out of the duress trap, as every warning about it says it.
    static let duressTrapRemedy =
        "reset it (card.reset) and initialize it with a duress PIN of its own (card.init --duress)"

    /// The key kcs records beside the master key to tell a duress login (docs/card.md, "Duress
    /// logins"): `m/0`, one public derivation. A duress PIN keeps the master key and its key UID
    /// but derives with another chain code (docs/keycard-protocol.md §10.2), so every child differs.
    public static let keyCheckPath = try! CardKeyPath(source: .master, components: [ChildIndex(0)])

    /// The card's public key at `keyCheckPath`; nil when the card's key has no chain code (the
    /// card refuses to derive, `69 85`).
    public func keyCheckKey() throws -> PublicKey? {
        do {
            return try commands.exportKey(.derive(Self.keyCheckPath), kind: .publicKey).publicKey
        } catch CardError.conditionsNotSatisfied(.exportKey) where known.pinVerified {
            return nil
        }
    }

    /// Compares this session's keys with what kcs recorded for the card when it recorded its key
    /// (`card_key_checks`, docs/store.md); needs the verified PIN. Returns the warning to show, nil
    /// when they agree or nothing was recorded (or the card holds no key).
    public func keyCheckWarning(store: WalletStore) throws -> String? {
        guard let check = try store.cardKeyCheck(instanceUID: info.instanceUID), info.hasMasterKey else {
            return nil
        }
        guard info.keyUID == check.keyUID else {
            return "the card's key (key UID \(Hex.encode(Array(info.keyUID.prefix(4))))…) is not the one kcs "
                + "recorded for this card (key UID \(Hex.encode(Array(check.keyUID.prefix(4))))…): another client "
                + "loaded or generated a key; use card to record it"
        }
        let master = try commands.exportKey(
            .derive(try CardKeyPath(source: .master, components: [])),
            kind: .publicKey
        ).publicKey
        let derived = try keyCheckKey()
        guard master == check.masterPublicKey, derived == check.publicKey else {
            if try store.setting(duressTrapSetting) == "1" {
                return "every login on this card is a duress login: the card was initialized with the duress PIN equal "
                    + "to the PIN, so this session's keys differ from the ones recorded for it (\(check.path)); "
                    + Self.duressTrapRemedy
            }
            return "this session's keys differ from the ones recorded for this card — a duress login? "
                + "(the master key is the recorded one, but \(check.path) is not: the PIN given selects other keys)"
        }
        return nil
    }
}

/// What `card.change` changes: the PIN, the PUK or the pairing password.
public enum ChangeableCredential: String, Sendable, CaseIterable {
    case pin, puk, pairing
}

/// A pairing `card.pair` made and stored.
public struct CardPairingResult {
    public let pairing: Pairing
    /// The card's free slots after it, when SELECT said.
    public let freePairingSlots: Int?
    public let warnings: [String]
}

/// What kcs holds for the connected card's pairings, and the card's slots (`card.pairings`).
public struct CardPairings {
    public let card: String
    public let shortUID: String
    public let pairingSlots: Int?
    public let freePairingSlots: Int?
    /// The slot of the pairing kcs keeps in the vault for this card.
    public let storedSlot: Int?
    /// The slot of this session's open secure channel.
    public let sessionSlot: Int?
    /// True while `card.login --ephemeral`'s pairing is held.
    public let ephemeral: Bool
    /// Slots in use that neither kcs nor this session explains (docs/card.md, "Pairing slots").
    public let unexplained: Int?
    public let warning: String?
}

extension Session {
    /// `card.pair`: frees the session's ephemeral pairing and SELECTs; opens the vault before a
    /// slot is used (a slot is used only when its pairing can be kept); refuses a card kcs is
    /// paired with unless `force`, and a card without a free slot before `secret` is asked;
    /// then PAIR, storing the pairing the moment the card answers.
    public func pairCard(force: Bool, secret: () throws -> PairingSecret) throws -> CardPairingResult {
        let card = try requireCard()
        let (info, released) = try startOver(card)
        let store = try unlockedStore()
        if let held = try store.pairings().first(where: { $0.instanceUID == info.instanceUID }), !force {
            throw CardCommandError.alreadyPaired(slot: held.slot)
        }
        try card.checkFreePairingSlot()
        let (pairing, slotWarnings) = try card.pair(secret: try secret()) { pairing in
            try store.savePairing(pairing, instanceUID: info.instanceUID)
        }
        return CardPairingResult(
            pairing: pairing, freePairingSlots: card.info.freePairingSlots, warnings: released + slotWarnings)
    }

    /// `card.logout`: frees an ephemeral pairing, then SELECTs, which ends the channel; a card
    /// that is gone is forgotten on this side all the same. Returns the ephemeral slot freed
    /// (nil: none, or it could not be freed — the warnings say why).
    public func logOutCard() throws -> (freed: UInt8?, warnings: [String]) {
        let card = try requireCard()
        let ephemeral = card.known.ephemeralPairing
        let warnings = releaseEphemeralPairing()
        do {
            try card.select()
        } catch {
            card.commands.closeSecureChannel()
            card.known.channelClosed()
        }
        return (warnings.isEmpty ? ephemeral?.index : nil, warnings)
    }

    /// `card.verify`: VERIFY PIN over the open channel — six digits, refused with one try left
    /// unless `force` — then the duress check `card.login` makes (docs/card.md, "Duress logins"):
    /// its warning, if any.
    public func verifyPIN(_ pin: Secret, force: Bool) throws -> String? {
        let card = try requireChannel()
        try KeycardCommands.checkDigits(pin, count: 6, what: "PIN", command: .verifyPIN)
        try Self.checkTries(.pin, in: card.commands.getStatus(), force: force)
        card.known.pinChecked(false)
        do { try card.commands.verifyPIN(pin) } catch { throw pinFailure(error, on: card) }
        card.known.pinChecked(true)
        return try checkCardKeys(card)
    }

    /// `card.pairings` for the connected 3.x card; SELECT first to refresh the free slots unless
    /// a channel is open (SELECT would end it).
    public func cardPairings() throws -> CardPairings {
        let card = try requireCard()
        try card.requirePairings()
        if !card.commands.isSecureChannelOpen { try card.select() }
        let uid = card.info.instanceUID
        let stored = try store().pairings().first { $0.instanceUID == uid }
        let open = card.commands.isSecureChannelOpen ? card.known.pairing : nil
        return CardPairings(
            card: card.name, shortUID: card.shortUID, pairingSlots: card.pairingSlotCount,
            freePairingSlots: card.known.freePairingSlots, storedSlot: stored.map { Int($0.slot) },
            sessionSlot: open.map { Int($0.index) }, ephemeral: card.known.ephemeralPairing != nil,
            unexplained: card.unexplainedPairingSlots(stored: stored != nil),
            warning: card.unexplainedPairingSlotsWarning(stored: stored != nil))
    }
}

extension Session {
    /// The way into a pairing (`card.pair`): frees the session's ephemeral pairing, then SELECT;
    /// refuses a blank card. Returns SELECT's answer and the warnings of the release.
    public func startOver(_ card: CardLink) throws -> (info: ApplicationInfo, warnings: [String]) {
        try card.requirePairings()
        let warnings = releaseEphemeralPairing()
        let info = try card.select()
        guard info.isInitialized else { throw CardCommandError.blank }
        return (info, warnings)
    }

    /// The secure channel for a command that needs no PIN — `card.unblock`, which a blocked PIN
    /// cannot log in for: the open one, else one opened with the stored pairing (as `card.open`),
    /// so a new process goes straight from `card.login`'s "unblock it with the PUK" to unblocking.
    public func channelOpeningIfNeeded() throws -> CardLink {
        let card = try requireCard()
        if card.hasOpenChannel { return card }
        warn(try openChannel().warnings)
        return try requireChannel()
    }

    /// `card.open`: the card walk (`CardSession`) up to the open channel with the pairing kcs
    /// stored for the card, the PIN left unverified. Frees an earlier ephemeral pairing first;
    /// refuses a blank card, a card kcs holds no pairing for, and names a refused pairing
    /// (`card.login --yes` pairs again). Returns the slot (nil on a 4.0 card, which has no pairing
    /// slots) and the warnings of the release.
    public func openChannel() throws -> (slot: UInt8?, warnings: [String]) {
        let card = try requireCard()
        let warnings = releaseEphemeralPairing()
        var slot: UInt8?
        var steps = CardWalkSteps()
        steps.selected = { card.known.select($0) }
        steps.initialization = { _ in throw CardCommandError.blank }
        steps.initializationV2 = { _ in throw CardCommandError.blank }
        steps.certificate = { try self.trustCertificate($0, on: card) }
        steps.storedPairing = { info in
            guard let stored = try self.unlockedStore().pairing(instanceUID: info.instanceUID) else {
                throw CardCommandError.notPaired
            }
            slot = stored.slot
            return stored.pairing
        }
        steps.pairingRefused = { stored, _ in throw CardCommandError.pairingRefused(slot: slot ?? stored.index) }
        steps.opened = { card.known.channelOpened($0) }
        _ = try CardSession(commands: card.commands).open(steps)
        return (slot, warnings)
    }

    /// After VERIFY PIN: the duress check against what kcs recorded for the card (none without
    /// a store). Keeps the warning on the link, where `card.export` and `sign` repeat it.
    public func checkCardKeys(_ card: CardLink) throws -> String? {
        guard let recorded = existingStore() else { return nil }
        let warning = try card.keyCheckWarning(store: recorded)
        // A 4.0 card's UNBLOCK serves the PIN last used (docs/card.md, "Keycard 4.0"): remember
        // whether that was the duress PIN, in this store, for card.unblock to warn.
        if card.isVersion4 {
            try recorded.setSetting(card.duressLoginSetting, to: warning == nil ? nil : "1")
            // The main PIN answered: it is not the one a duress UNBLOCK left blocked any more.
            if warning == nil { try recorded.setSetting(card.duressUnblockSetting, to: nil) }
        }
        guard let warning else { return nil }
        card.known.keysChecked(warning: warning)
        return warning
    }

    /// Before UNBLOCK on a 4.0 card: a warning when the last login kcs saw on it was a duress
    /// login — UNBLOCK then gives the duress PIN a new value and the main PIN stays blocked
    /// (docs/keycard-protocol.md §14.5); nil otherwise.
    public func duressUnblockWarning(_ card: CardLink) throws -> String? {
        guard card.isVersion4, try existingStore()?.setting(card.duressLoginSetting) == "1" else { return nil }
        return "the last login kcs saw on this card used the duress PIN: a 4.0 card's UNBLOCK then sets a new duress "
            + "PIN, and the main PIN (its wallet) stays blocked until a factory reset and a restore from the mnemonic"
    }

    /// `card.unblock`'s UNBLOCK PIN, once the PIN is known blocked and the new PIN given: warns
    /// first when the last login kcs saw was a duress login (see `duressUnblockWarning`), and then
    /// remembers that the PIN was unblocked in a duress session, so a later wrong-PIN answer can
    /// say whose tries it counts (`pinFailure`). Returns the warning, nil when there is none.
    public func unblockPIN(_ card: CardLink, puk: Secret, newPIN: Secret) throws -> String? {
        let warning = try duressUnblockWarning(card)
        if let warning { prompts?.warn("card.unblock: " + warning) }
        do { try card.commands.unblockPIN(puk: puk, newPIN: newPIN) } catch { throw Session.credentialFailure(error) }
        card.known.pinChecked(true)
        if warning != nil { try existingStore()?.setSetting(card.duressUnblockSetting, to: "1") }
        return warning
    }

    /// A failed VERIFY PIN as the console reports it (`credentialFailure`), except on a 4.0 card
    /// whose PIN kcs saw unblocked in a duress session: there the card counts the tries of the PIN
    /// in use, which is the duress PIN card.unblock set, and the main PIN stays blocked
    /// (docs/keycard-protocol.md §14.5), so "wrong PIN: 2 tries left" would be read as the main
    /// PIN's — the error says whose tries they are.
    public func pinFailure(_ error: Error, on card: CardLink) -> Error {
        if card.isVersion4, case .wrongPIN(let tries)? = error as? CardError,
            (try? existingStore()?.setting(card.duressUnblockSetting)) == "1"
        {
            return CardCommandError.wrongPINAfterDuressUnblock(triesLeft: tries)
        }
        return Session.credentialFailure(error)
    }

    /// `card.change`: CHANGE PIN, CHANGE PUK or CHANGE PAIRING SECRET on the logged-in card, with
    /// the new value `newValue` gives (asked by what it is: "PIN", "PUK", "pairing password");
    /// a 4.0 card has no pairing password. After a PIN change, the duress note, if any.
    public func changeCredential(
        _ credential: ChangeableCredential, newValue: (String) throws -> Secret
    ) throws -> String? {
        let card = try requireLoggedIn()
        switch credential {
        case .pin: try card.commands.changePIN(try newValue("PIN"))
        case .puk: try card.commands.changePUK(try newValue("PUK"))
        case .pairing:
            try card.requirePairings()
            try card.commands.changePairingSecret(try PairingSecret(password: try newValue("pairing password")))
        }
        return credential == .pin ? duressChangeNote(card) : nil
    }

    /// After CHANGE PIN: on a 4.0 card after a duress login, the PIN changed is the duress PIN.
    public func duressChangeNote(_ card: CardLink) -> String? {
        guard card.isVersion4, card.known.keyWarning != nil else { return nil }
        return "this session is a duress login, so the duress PIN changed; the main PIN is as it was"
    }

    /// `card.login`: the card walk (`CardSession`) from SELECT to a verified PIN on the connected
    /// card. The steps kcs decides: frees an earlier ephemeral pairing first; refuses a blank card;
    /// reuses the pairing stored in the vault (an ephemeral login keeps nothing there), and when
    /// the card refuses it, forgets it and pairs again once confirmed; keeps a new pairing the
    /// moment PAIR answers; refuses a PIN that could block the card; then the duress check.
    public func login(pin: Secret, _ request: CardLoginRequest) throws -> CardLoginResult {
        let card = try requireCard()
        if request.pairingOptionGiven, card.isVersion4 { throw CardCommandError.noPairingOnVersion4 }
        try KeycardCommands.checkDigits(pin, count: 6, what: "PIN", command: .verifyPIN)
        var warnings = releaseEphemeralPairing()
        var store: WalletStore?
        var steps = CardWalkSteps()
        steps.selected = { card.known.select($0) }
        steps.initialization = { _ in throw CardCommandError.blank }
        steps.initializationV2 = { _ in throw CardCommandError.blank }
        steps.certificate = { try self.trustCertificate($0, on: card) }
        steps.storedPairing = { info in
            // An ephemeral login keeps nothing in the vault.
            store = request.ephemeral ? nil : try self.unlockedStore()
            return try store?.pairing(instanceUID: info.instanceUID)?.pairing
        }
        steps.pairingRefused = { stored, _ in
            guard let store else { return false }
            guard request.repairWithoutAsking || self.prompts?.isInteractive == true else {
                throw CardCommandError.pairingRefused(slot: stored.index)
            }
            try self.confirm(
                "The card refused kcs's stored pairing (slot \(stored.index)): it was unpaired or taken over "
                    + "by another client. Forget it and pair again (this uses a free slot)?",
                yes: request.repairWithoutAsking)
            try store.deletePairing(instanceUID: card.info.instanceUID)
            warnings.append("forgot the refused pairing (slot \(stored.index))")
            return true
        }
        steps.pairingSecret = { info in
            // A card with no free slot is not asked to pair, nor the person for a password.
            try card.checkFreePairingSlot()
            let secret = try request.pairingSecret()
            // Applet 3.2 pairs an ephemeral login in its RAM slot (FF), which uses no slot.
            let mode: PairingMode =
                store == nil && (info.version.map { $0 >= AppletVersion(major: 3, minor: 2) } ?? false)
                ? .ephemeral : .persistentOrEphemeral
            return (secret, mode)
        }
        steps.paired = { pairing in
            if let store {
                try store.savePairing(pairing, instanceUID: card.info.instanceUID)
            } else {
                card.known.ephemeral(pairing)
            }
            warnings += try card.pairingSlotWarnings(after: pairing)
        }
        steps.opened = { card.known.channelOpened($0) }
        steps.pin = pin
        steps.beforeVerify = { try Session.checkTries(.pin, in: $0, force: request.force) }
        let result: SessionResult
        do {
            result = try CardSession(commands: card.commands).open(steps)
        } catch CardError.noFreePairingSlot {
            throw CardCommandError.noFreePairingSlots(total: card.pairingSlotCount)
        } catch {
            throw pinFailure(error, on: card)
        }
        card.known.pinChecked(true)
        // A duress PIN opens the card with other keys and nothing in the answer says so
        // (docs/card.md, "Duress logins"): compare with what kcs recorded for this card.
        if let warning = try checkCardKeys(card) { warnings.append(warning) }
        return CardLoginResult(pairing: result.pairing, paired: result.paired, warnings: warnings)
    }
}
