import WalletCore
import WalletCrypto

/// What `CardSession.open(_:)` needs. Every field is optional; the walk stops with a
/// precise error when it needs one that is missing.
public struct SessionOptions: Sendable {
    /// Verified at the end when given.
    public var pin: Secret?
    /// A stored pairing for this card (preferred over pairing again).
    public var pairing: Pairing?
    /// The secret to PAIR with when no pairing is given.
    public var pairingSecret: PairingSecret?
    /// INIT parameters, used only when the card is blank. Its pairing secret is then used
    /// to pair if neither `pairing` nor `pairingSecret` is given.
    public var initialization: InitParameters?
    /// PAIR's mode on applet 3.2.
    public var pairingMode: PairingMode
    /// Called as soon as PAIR succeeds, before the channel is opened: persist the pairing here.
    /// If a later step fails (a lost connection, a wrong PIN) the slot is used on the card,
    /// and only a stored pairing can free or reuse it (keycard-protocol §8.3).
    public var onPaired: (@Sendable (Pairing) -> Void)?

    /// Options; leave out what the walk should not do.
    public init(
        pin: Secret? = nil, pairing: Pairing? = nil, pairingSecret: PairingSecret? = nil,
        initialization: InitParameters? = nil, pairingMode: PairingMode = .persistentOrEphemeral,
        onPaired: (@Sendable (Pairing) -> Void)? = nil
    ) {
        self.pin = pin
        self.pairing = pairing
        self.pairingSecret = pairingSecret
        self.initialization = initialization
        self.pairingMode = pairingMode
        self.onPaired = onPaired
    }
}

/// What the walk did, so the caller can store a new pairing.
public struct SessionResult: Sendable {
    /// SELECT's answer (after INIT, the second SELECT's).
    public let applicationInfo: ApplicationInfo
    /// The pairing the channel was opened with.
    public let pairing: Pairing
    /// True when this walk ran INIT.
    public let initialized: Bool
    /// True when this walk ran PAIR: persist `pairing` (keyed by the instance UID).
    public let paired: Bool
    /// True when the PIN was verified.
    public let pinVerified: Bool
}

/// The usual way into a card (keycard-protocol §9.11 recovery sequence, plus INIT and PAIR
/// when needed): SELECT → INIT (blank card) → SELECT → PAIR (no stored pairing) →
/// OPEN SECURE CHANNEL → MUTUALLY AUTHENTICATE → VERIFY PIN.
public final class CardSession {
    /// The command set, for everything after the walk.
    public let commands: KeycardCommandSet

    /// A session on a command set.
    public init(commands: KeycardCommandSet) {
        self.commands = commands
    }

    /// A session on a transport; `random` feeds every random input, `trace` sees every command.
    public convenience init(
        transport: CardTransport, random: RandomSource = SystemRandom(),
        trace: APDUTraceSink? = nil
    ) {
        self.init(commands: KeycardCommandSet(transport: transport, random: random, trace: trace))
    }

    /// Walks from a fresh connection to an open, authenticated channel (and a verified PIN
    /// when `options.pin` is given).
    ///
    /// - Throws: `notInitialized` for a blank card without INIT parameters;
    ///   `unsupportedVersion` for applet 4.0 and later; `pairingRequired` when there is no
    ///   pairing and no secret; any card error of the commands on the way (e.g.
    ///   `noFreePairingSlot`, `cardCryptogramMismatch`, `wrongPIN(triesLeft:)`).
    public func open(_ options: SessionOptions) throws(CardError) -> SessionResult {
        var info = try commands.select()
        var initialized = false
        if !info.isInitialized {
            guard let parameters = options.initialization else { throw .notInitialized }
            try commands.initialize(parameters)
            info = try commands.select()
            guard info.isInitialized else {
                throw .malformedResponse(command: .select, detail: "the card is still blank after INIT")
            }
            initialized = true
        }
        if let version = info.version, version.usesSecureChannelV2 {
            throw .unsupportedVersion(major: version.major, minor: version.minor)
        }
        let pairing: Pairing
        var paired = false
        if let stored = options.pairing {
            pairing = stored
        } else if let secret = options.pairingSecret ?? options.initialization?.pairingSecret {
            pairing = try commands.pair(secret: secret, mode: options.pairingMode)
            paired = true
            options.onPaired?(pairing)
        } else {
            throw .pairingRequired
        }
        try commands.openSecureChannel(pairing: pairing)
        var verified = false
        if let pin = options.pin {
            try commands.verifyPIN(pin)
            verified = true
        }
        return SessionResult(
            applicationInfo: info, pairing: pairing, initialized: initialized, paired: paired,
            pinVerified: verified)
    }
}
