import CardProtocol
import WalletCore

/// What a console session knows of its card beyond what the command set holds (docs/card-console.md):
/// the last SELECT answer, the channel this session opened, and what it learned on the way. One
/// value on `CardLink`, changed only by the transitions below, so what a SELECT forgets and what
/// survives it is written once.
public struct CardFacts: Sendable {
    /// The last SELECT answer this link read. The command set keeps its own copy true to key
    /// changes and forgets it after INIT and FACTORY RESET until the next SELECT; `CardLink.info`
    /// reads the command set's, and this one while the command set has none.
    public private(set) var selected: ApplicationInfo
    /// The pairing of the open secure channel (3.x), if one is open.
    public private(set) var pairing: Pairing?
    /// True once VERIFY PIN succeeded on the open channel.
    public private(set) var pinVerified = false
    /// Set by `card.login` when this session's keys differ from the ones kcs recorded for the
    /// card (docs/card.md, "Duress logins"); `card.export` and `sign` repeat it.
    public private(set) var keyWarning: String?
    /// The pairing `card.login --ephemeral` made, until it is unpaired (kept apart from
    /// `pairing`, which a SELECT forgets, so the slot is freed on every way out).
    public private(set) var ephemeralPairing: Pairing?
    /// The PIN-less path as set by `card.pinless` in this session (the applet cannot report it).
    public private(set) var pinlessPath: DerivationPath?
    /// Free persistent pairing slots as this session knows them: SELECT's count, then all but
    /// this session's after `card.unpair --others`; nil when unknown (docs/card.md, "Pairing slots").
    public private(set) var freePairingSlots: Int?
    /// The slot total this session learned: UNPAIR answers `6A 86` past the end of the table.
    public private(set) var learnedPairingSlotCount: Int?

    init(selected: ApplicationInfo) {
        self.selected = selected
        freePairingSlots = selected.freePairingSlots
    }

    /// A SELECT answered (this link's or the card walk's): its free slots; no channel, no
    /// verified PIN, no key warning. The ephemeral pairing, the PIN-less path and the slot total
    /// outlive it.
    mutating func select(_ answer: ApplicationInfo) {
        selected = answer
        freePairingSlots = answer.freePairingSlots
        channelClosed()
        keyWarning = nil
    }

    /// The secure channel opened with `pairing` (nil on a 4.0 card); the PIN is not verified yet.
    mutating func channelOpened(_ pairing: Pairing?) {
        self.pairing = pairing
        pinVerified = false
    }

    /// The channel is gone (the card was pulled, or a SELECT ended it).
    mutating func channelClosed() {
        pairing = nil
        pinVerified = false
    }

    /// VERIFY PIN answered: `verified` or not.
    mutating func pinChecked(_ verified: Bool) { pinVerified = verified }

    /// The duress check's finding after a login or a key change (nil: the keys are the recorded ones).
    mutating func keysChecked(warning: String?) { keyWarning = warning }

    /// `card.login --ephemeral` paired (`pairing`), or the ephemeral pairing was freed (nil).
    mutating func ephemeral(_ pairing: Pairing?) { ephemeralPairing = pairing }

    /// `card.pinless` set the PIN-less path (nil: cleared).
    mutating func pinless(_ path: DerivationPath?) { pinlessPath = path }

    /// What UNPAIR taught: the slot total (when it answered `6A 86`) and the free slots (nil: unknown).
    mutating func pairingSlots(total: Int?, free: Int?) {
        if let total { learnedPairingSlotCount = total }
        freePairingSlots = free
    }
}
