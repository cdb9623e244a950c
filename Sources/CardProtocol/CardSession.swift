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
    /// and only a stored pairing can free or reuse it (docs/keycard-protocol.md §8.3).
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
    /// The pairing the channel was opened with; nil on a 4.0 card (no pairing).
    public let pairing: Pairing?
    /// True when this walk ran INIT.
    public let initialized: Bool
    /// True when this walk ran PAIR: persist `pairing` (keyed by the instance UID). Never on 4.0.
    public let paired: Bool
    /// True when the PIN was verified.
    public let pinVerified: Bool
}

/// The steps of the walk a caller decides (the application layer's login, or `SessionOptions`):
/// each is called at its point of the walk, in this order, and may throw to stop it there.
public struct CardWalkSteps {
    /// Each SELECT's answer as the walk reads it (the first, after INIT, after a refused pairing).
    public var selected: (ApplicationInfo) throws -> Void = { _ in }
    /// INIT parameters for a blank card; nil stops the walk with `notInitialized`.
    public var initialization: (ApplicationInfo) throws -> InitParameters? = { _ in nil }
    /// The pairing kept for this card, if any: the walk opens the channel with it first.
    public var storedPairing: (ApplicationInfo) throws -> Pairing? = { _ in nil }
    /// The card refused the stored pairing (its slot is empty or holds another key): true
    /// forgets it and pairs again (the walk SELECTs first); false stops with the card's error.
    public var pairingRefused: (Pairing, CardError) throws -> Bool = { _, _ in false }
    /// The secret and mode to PAIR with; nil stops the walk with `pairingRequired`. Asked only
    /// when the walk has to pair.
    public var pairingSecret: (ApplicationInfo) throws -> (secret: PairingSecret, mode: PairingMode)? = { _ in nil }
    /// PAIR succeeded, before the channel is opened: keep the pairing here. If a later step
    /// fails the slot stays used on the card, and only a kept pairing can free or reuse it
    /// (docs/keycard-protocol.md §8.3).
    public var paired: (Pairing) throws -> Void = { _ in }
    /// The secure channel is open with this pairing (nil on a 4.0 card: no pairing).
    public var opened: (Pairing?) throws -> Void = { _ in }
    /// 4.0: the certificate SELECT gave, before any channel is opened; throw to refuse the card.
    /// By default only the Keycard production and test CAs are trusted.
    public var certificate: (CardCertificate) throws -> Void = { certificate in
        guard certificate.issuer != .unknown else {
            throw CardError.untrustedCertificate(
                identity: certificate.identityPublicKey.description,
                ca: certificate.caPublicKey.description)
        }
    }
    /// 4.0: INIT parameters for a blank card, asked before the channel opens; nil stops the walk
    /// with `notInitialized`.
    public var initializationV2: (ApplicationInfo) throws -> InitParametersV2? = { _ in nil }
    /// The PIN to verify at the end; nil leaves the channel open with the PIN unverified.
    public var pin: Secret?
    /// When set, GET STATUS runs before VERIFY PIN and this sees its answer (the PIN's safety
    /// rules: refuse to send a PIN that could block the card).
    public var beforeVerify: ((ApplicationStatus) throws -> Void)?

    /// Steps that decide nothing: set the ones the caller needs.
    public init() {}
}

/// The usual way into a card (docs/keycard-protocol.md §9.11 recovery sequence, plus INIT and PAIR
/// when needed): SELECT → INIT (blank card) → SELECT → OPEN SECURE CHANNEL with the stored
/// pairing, or PAIR → OPEN SECURE CHANNEL → MUTUALLY AUTHENTICATE → (GET STATUS) → VERIFY PIN.
/// This is the one walk kcs has: the console's `card.login` takes it with its own steps.
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
    ///   `untrustedCertificate` for a 4.0 card of an unknown CA; `pairingRequired` when there is no
    ///   pairing and no secret; any card error of the commands on the way (e.g.
    ///   `noFreePairingSlot`, `cardCryptogramMismatch`, `wrongPIN(triesLeft:)`).
    public func open(_ options: SessionOptions) throws(CardError) -> SessionResult {
        var steps = CardWalkSteps()
        steps.initialization = { _ in options.initialization }
        steps.storedPairing = { _ in options.pairing }
        steps.pairingSecret = { _ in
            (options.pairingSecret ?? options.initialization?.pairingSecret).map { ($0, options.pairingMode) }
        }
        steps.paired = { options.onPaired?($0) }
        steps.pin = options.pin
        do {
            return try open(steps)
        } catch let error as CardError {
            throw error
        } catch {
            // These steps throw nothing of their own: every error of the walk is the card's.
            throw .malformedResponse(command: .select, detail: "\(error)")
        }
    }

    /// The walk with the caller's steps. Throws the card's errors (`CardError`, as `open(_:)`
    /// lists them) and whatever a step throws, at the point it throws.
    public func open(_ steps: CardWalkSteps) throws -> SessionResult {
        var info = try commands.select()
        try steps.selected(info)
        if info.usesSecureChannelV2 { return try openV2(steps, selected: info) }
        var initialized = false
        if !info.isInitialized {
            guard let parameters = try steps.initialization(info) else { throw CardError.notInitialized }
            try commands.initialize(parameters)
            info = try commands.select()
            try steps.selected(info)
            guard info.isInitialized else {
                throw CardError.malformedResponse(command: .select, detail: "the card is still blank after INIT")
            }
            initialized = true
        }
        var reused: Pairing?
        if let stored = try steps.storedPairing(info) {
            if let refusal = try openRefusal(with: stored) {
                guard try steps.pairingRefused(stored, refusal) else { throw refusal }
                info = try commands.select()
                try steps.selected(info)
            } else {
                reused = stored
            }
        }
        let pairing: Pairing
        if let reused {
            pairing = reused
        } else {
            guard let request = try steps.pairingSecret(info) else { throw CardError.pairingRequired }
            pairing = try commands.pair(secret: request.secret, mode: request.mode)
            try steps.paired(pairing)
            try commands.openSecureChannel(pairing: pairing)
        }
        let paired = reused == nil
        try steps.opened(pairing)
        let verified = try verifyPIN(steps)
        return SessionResult(
            applicationInfo: info, pairing: pairing, initialized: initialized, paired: paired,
            pinVerified: verified)
    }
}

extension CardSession {
    /// The 4.0 walk (docs/keycard-protocol.md §14): the certificate → [blank: INIT parameters] →
    /// OPEN SECURE CHANNEL → [INIT → SELECT (the same identity) → OPEN SECURE CHANNEL] →
    /// (GET STATUS) → VERIFY PIN. No pairing. A blank card is never sent VERIFY PIN: before INIT
    /// the applet answers every command but INIT with an empty `90 00`.
    private func openV2(_ steps: CardWalkSteps, selected first: ApplicationInfo) throws -> SessionResult {
        var info = first
        guard let certificate = info.certificate else {
            throw CardError.malformedResponse(command: .select, detail: "a 4.0 card's SELECT carries no certificate")
        }
        try steps.certificate(certificate)
        var parameters: InitParametersV2?
        if !info.isInitialized {
            guard let given = try steps.initializationV2(info) else { throw CardError.notInitialized }
            parameters = given
        }
        try commands.openSecureChannelV2()
        if let parameters {
            try commands.initializeV2(parameters)
            info = try commands.select()
            try steps.selected(info)
            guard info.isInitialized, info.certificate == certificate else {
                throw CardError.malformedResponse(
                    command: .select, detail: "the card is still blank after INIT, or another card answered")
            }
            try commands.openSecureChannelV2()
        }
        try steps.opened(nil)
        let verified = try verifyPIN(steps)
        return SessionResult(
            applicationInfo: info, pairing: nil, initialized: parameters != nil, paired: false,
            pinVerified: verified)
    }

    /// The walk's last step: (GET STATUS, then) VERIFY PIN when the steps give a PIN; true when verified.
    private func verifyPIN(_ steps: CardWalkSteps) throws -> Bool {
        guard let pin = steps.pin else { return false }
        if let beforeVerify = steps.beforeVerify { try beforeVerify(try commands.getStatus()) }
        try commands.verifyPIN(pin)
        return true
    }

    /// Opens the channel with a stored pairing: nil when it opened, the card's error when it
    /// refused the pairing; any other error is thrown.
    private func openRefusal(with pairing: Pairing) throws(CardError) -> CardError? {
        do throws(CardError) {
            try commands.openSecureChannel(pairing: pairing)
            return nil
        } catch {
            guard error.isPairingRefusal else { throw error }
            return error
        }
    }
}

extension CardError {
    /// True for the ways a card refuses a stored pairing: its slot is empty (`6A 86` to OPEN
    /// SECURE CHANNEL) or holds another key (the handshake fails).
    public var isPairingRefusal: Bool {
        switch self {
        case .incorrectP1P2(.openSecureChannel), .channelClosed(.mutuallyAuthenticate),
            .securityStatusNotSatisfied(.mutuallyAuthenticate), .responseMACMismatch(.mutuallyAuthenticate):
            true
        default: false
        }
    }
}
