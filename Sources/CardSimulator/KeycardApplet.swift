import WalletCrypto

/// The Keycard package on a simulated Java Card: the Keycard applet 3.1 (and the Ident applet, which
/// shares its memory) as a state machine that takes raw command APDUs and returns raw responses
/// (data ‖ SW1 SW2), byte for byte what the Java Card applet answers (docs/keycard-protocol.md §4–§13).
///
/// State is split as on the card:
/// - **persistent** (`CardState`, the EEPROM): credentials, pairings, keys, chain codes, the current and
///   PIN-less paths, the active chain code, the STORE DATA slots, the identity. `SimulatedCard` writes it
///   to the card's state file after each command that changed it.
/// - **cleared on SELECT / de-selection**: the secure-channel session (keys, IV, authentication), the PIN
///   "verified" flags and which PIN object is current, a pending PAIR step.
/// - **cleared only on reset / power-off**: the derivation scratch buffer (see `AppletProfile.MasterXpubChainCode`).
///
/// Randomness (instance UID, secure-channel keys, challenges, salts, IVs, mnemonic entropy, generated
/// keys, signing nonces) comes from the injected `RandomSource`, drawn in this order:
/// install: instance UID (16), secure-channel key (32); INIT: new channel key (32); PAIR step 1: card
/// challenge (32); PAIR step 2: salt (32); OPEN SECURE CHANNEL: salt ‖ IV (48); MUTUALLY AUTHENTICATE:
/// card random (32); GENERATE MNEMONIC: entropy (4·CS); GENERATE KEY: seed (64); SIGN and IDENTIFY:
/// nonce entropy (32); FACTORY RESET: instance UID (16), channel key (32). A key draw repeats in the
/// (practically impossible) case that 32 bytes are not a valid secp256k1 scalar.
public final class KeycardApplet {
    /// The simulated build.
    public let profile: AppletProfile
    let random: any RandomSource

    /// The EEPROM as the applet sees it while a command runs.
    var state: CardState
    /// The EEPROM as last committed to `persist`: what the card would come back with after a tear.
    /// Between commands `state` equals it.
    private(set) var committed: CardState
    /// Writes the EEPROM durably (the card's state file); nil for a card that lives only in memory.
    /// Set by `SimulatedCard`.
    var persist: ((CardState) throws(SimulatorError) -> Void)?
    /// Why the last command was torn: a commit it needed could not be written. Cleared by `process`.
    private(set) var commitFailure: SimulatorError?

    // MARK: transient state

    /// Which instance of the package is selected.
    enum Selection { case none, keycard, ident }
    var selection = Selection.none

    /// `scEncKey` / `scMacKey` (Java Card `TYPE_AES_TRANSIENT_DESELECT`); nil when cleared.
    var session: (enc: Secret, mac: Secret)?
    var mutuallyAuthenticated = false
    /// The applet's 64-byte `secret` buffer (`CLEAR_ON_DESELECT`): bytes 0..<16 are the channel IV,
    /// 16..<32 the zeros that pad the MAC header blocks; PAIR and INIT reuse bytes 0..<32.
    var scBuffer = [UInt8](repeating: 0, count: 64)
    /// The pairing slot a PAIR step 1 reserved (`preassignedPairingOffset`).
    var pendingPairSlot: Int?

    /// Which `OwnerPIN` a PIN operation works on.
    enum PINKind { case main, duress, puk }
    /// The `OwnerPIN` validated flags.
    var validated: Set<PINKind> = []
    /// The applet's `pin` field: the main PIN, or the duress PIN after a duress login.
    var currentPIN = PINKind.main

    /// 4.0: the Secure Channel V2 session (cleared on SELECT and de-selection).
    var v2Session: V2Session?
    /// 4.0: true while an inner command runs (its data arrives decrypted: `unwrap` returns it).
    var insideV2 = false

    /// Told of each command that arrived through a secure channel, as the applet read it — header,
    /// the decrypted data (nil when it was answered before the data was read), and the answer
    /// (data ‖ SW) before it was encrypted — for `kcs sim attach --trace` (docs/card-explained.md).
    public var innerLog: ((_ header: [UInt8], _ data: [UInt8]?, _ answer: [UInt8]) -> Void)?
    /// V1: the header of the command being processed and its decrypted data, once `unwrap` read it.
    var innerCommand: (header: [UInt8], data: [UInt8]?)?

    /// `derivationOutput` (`CLEAR_ON_RESET`): private key ‖ chain code of the last derivation.
    var derivationScratch = [UInt8](repeating: 0, count: 64)

    // MARK: - Creating

    /// A freshly installed, PRE-INITIALIZED applet. Draws the instance UID and the secure-channel key
    /// from `random`.
    public init(profile: AppletProfile = .v3_1_0, random: any RandomSource = SystemRandom()) {
        self.profile = profile
        self.random = random
        if profile.isVersion4 {
            // A 4.0 applet has no instance UID nor static channel key: it draws nothing at install.
            state = CardState(instanceUID: [], secureChannelKey: .zeros(32), credentials: nil, pairings: [])
        } else {
            let uid = random.bytes(16)
            let key = PrivateKey.generate(using: random)
            state = CardState(
                instanceUID: uid, secureChannelKey: CardSecret(key.secret.bytesCopy),
                credentials: nil,
                pairings: Array(repeating: nil, count: profile.pairingSlots))
        }
        committed = state
    }

    /// An applet restored from its persistent state (the card was powered up again).
    init(state: CardState, profile: AppletProfile, random: any RandomSource) {
        self.profile = profile
        self.random = random
        self.state = state
        committed = state
        // On 4.0 the PIN in use is the applet's persistent `pin` field, which always goes with the chain
        // code the last VERIFY PIN chose (docs/keycard-protocol.md §14.1, §14.5): the state file keeps that.
        if profile.isVersion4, state.duressChainActive { currentPIN = .duress }
    }

    // MARK: - Facts (read-only, for tools and tests)

    /// False while PRE-INITIALIZED (before INIT and after FACTORY RESET).
    public var isInitialized: Bool { state.credentials != nil }
    /// True when a master key is loaded.
    public var hasKey: Bool { state.masterKey != nil }
    /// The instance UID SELECT reports.
    public var instanceUID: [UInt8] { state.instanceUID }
    /// The current secure-channel public key (SELECT tag `80`).
    public var secureChannelPublicKey: [UInt8] { scPrivateKey.publicKey.uncompressed }
    /// Free pairing slots.
    public var freePairingSlots: Int { state.freePairingSlots }
    /// True while a secure channel is open (after a successful MUTUALLY AUTHENTICATE).
    public var isSecureChannelOpen: Bool { isOpen }

    var scPrivateKey: PrivateKey {
        guard let key = try? PrivateKey(bytes: state.secureChannelKey.bytes) else {
            preconditionFailure("the stored secure-channel key is not a valid scalar")
        }
        return key
    }

    // MARK: - Card events

    /// SELECTs the Keycard instance and returns the SELECT response (§5), as `00 A4 04 00 09 <AID>` would.
    @discardableResult
    public func select() -> [UInt8] {
        process([0x00, 0xA4, 0x04, 0x00, UInt8(KeycardAID.keycardInstance.count)] + KeycardAID.keycardInstance)
    }

    /// De-selects whatever instance is selected (another applet was selected): the channel closes and
    /// the PIN authorisation and a pending PAIR are dropped.
    public func deselect() {
        selection = .none
        clearSelectionState()
    }

    /// A card reset or power cycle: de-selection plus the `CLEAR_ON_RESET` memory.
    public func reset() {
        deselect()
        derivationScratch = [UInt8](repeating: 0, count: 64)
    }

    func clearSelectionState() {
        session = nil
        mutuallyAuthenticated = false
        scBuffer = [UInt8](repeating: 0, count: 64)
        pendingPairSlot = nil
        validated = []
        v2Session = nil
        // On 4.0 the PIN in use (main or duress) is persistent: SELECT keeps it.
        if !profile.isVersion4 { currentPIN = .main }
    }

    // MARK: - Committing the EEPROM

    /// Makes the EEPROM as it is now durable (a Java Card transaction commit, or an `OwnerPIN` try
    /// counter write, which the card makes outside any transaction). Nothing to do when nothing
    /// changed since the last commit.
    ///
    /// When the write fails the card behaves as one torn from the reader at that moment: the
    /// command goes no further (the caller gets `6F00`, which `SimulatedCard.transmit` turns into
    /// a lost connection), the EEPROM is what was last committed and `commitFailure` says why.
    /// A counter decremented by an earlier commit therefore stays decremented.
    func commit() throws(CardStatus) {
        guard state != committed else { return }
        if let persist {
            do {
                try persist(state)
            } catch {
                commitFailure = error
                state = committed
                throw .unknown
            }
        }
        committed = state
    }

    /// Adopts the current `state` as committed without writing it (a card just written in full).
    func markCommitted() { committed = state }

    // MARK: - APDU processing

    /// Processes one command APDU and returns the response APDU (data ‖ SW1 SW2). SELECT by AID is
    /// handled as the Java Card runtime does: the Keycard or Ident instance (exact or partial AID) is
    /// selected; any other AID de-selects and answers `6A82`. With nothing selected, other commands
    /// answer `6D00`. A malformed APDU answers `6700`.
    public func process(_ command: [UInt8]) -> [UInt8] {
        commitFailure = nil
        let response = dispatch(command)
        // Every command's effect is committed before its answer leaves the card.
        if commitFailure == nil {
            do throws(CardStatus) { try commit() } catch { return error.bytes }
        }
        return response
    }

    func dispatch(_ command: [UInt8]) -> [UInt8] {
        guard let apdu = CommandAPDU(command) else { return CardStatus.wrongLength.bytes }
        innerCommand = innerLog == nil ? nil : (apdu.header, nil)
        if apdu.isSelectByAID {
            deselect()
            switch Self.instance(matching: apdu.data) {
            case .keycard:
                selection = .keycard
                return profile.isVersion4 ? selectResponseV4() : selectResponse()
            case .ident:
                selection = .ident
                return identSelect()
            case .none:
                return CardStatus.fileNotFound.bytes
            }
        }
        switch selection {
        case .none: return CardStatus.insNotSupported.bytes
        case .ident: return identProcess(apdu)
        case .keycard where profile.isVersion4: return processV4(apdu)
        case .keycard: return state.credentials == nil ? processPreInitialized(apdu) : processInitialized(apdu)
        }
    }

    /// The package instance an AID names: exactly, or as a prefix of at least 5 bytes (partial selection).
    static func instance(matching aid: [UInt8]) -> Selection {
        for (candidate, selection) in [
            (KeycardAID.keycardInstance, Selection.keycard),
            (KeycardAID.identInstance, Selection.ident),
        ]
        where aid.count >= 5 && aid.count <= candidate.count && Array(candidate.prefix(aid.count)) == aid {
            return selection
        }
        return .none
    }

    /// What a command handler produced (the applet's three ways of answering).
    enum Reply {
        /// `setOutgoingAndSend`: plain data, SW 9000.
        case plain([UInt8])
        /// `secureChannel.respond`: data wrapped with SW 9000 inside.
        case wrapped([UInt8])
        /// Nothing sent: the dispatcher answers 9000, wrapped if the channel is open.
        case done
        /// Bytes returned as they are (FACTORY RESET).
        case final([UInt8])
    }

    /// PRE-INITIALIZED: only INIT and IDENTIFY (§4). Nothing here is caught by the applet, so any
    /// cipher failure surfaces as the runtime's `6F00`.
    func processPreInitialized(_ apdu: CommandAPDU) -> [UInt8] {
        do throws(CardStatus) {
            switch apdu.ins {
            case 0xFE:
                try initialize(apdu)
                return CardStatus(CardStatus.ok).bytes
            case 0x14:
                return try finish(identify(apdu))
            default:
                throw CardStatus.insNotSupported
            }
        } catch {
            return error.bytes
        }
    }

    /// INITIALIZED: the dispatcher of `KeycardApplet.process` with its exception handler: while the
    /// channel is open every status word except `6982` comes back wrapped — with the current IV, which
    /// is the stale one when the handler failed before reading the payload (§9.9).
    func processInitialized(_ apdu: CommandAPDU) -> [UInt8] {
        do throws(CardStatus) {
            let reply: Reply
            switch apdu.ins {
            case 0x10: reply = try openSecureChannel(apdu)
            case 0x11: reply = try mutuallyAuthenticate(apdu)
            case 0x12: reply = try pair(apdu)
            case 0x13: reply = try unpair(apdu)
            case 0x14: reply = try identify(apdu)
            case 0xF2: reply = try getStatus(apdu)
            case 0x20: reply = try verifyPIN(apdu)
            case 0x21: reply = try changePIN(apdu)
            case 0x22: reply = try unblockPIN(apdu)
            case 0xD0: reply = try loadKey(apdu)
            case 0xD1: reply = try deriveKey(apdu)
            case 0xD2: reply = try generateMnemonic(apdu)
            case 0xD3: reply = try removeKey(apdu)
            case 0xD4: reply = try generateKey(apdu)
            case 0xC0: reply = try sign(apdu)
            case 0xC1: reply = try setPinlessPath(apdu)
            case 0xC2: reply = try exportKey(apdu)
            case 0xCA: reply = try getData(apdu)
            case 0xE2: reply = try storeData(apdu)
            case 0xFD: reply = try factoryReset(apdu)
            default: throw CardStatus.insNotSupported
            }
            return finish(reply)
        } catch {
            if isOpen && error != .securityStatusNotSatisfied {
                return respond([], sw: error.sw)
            }
            return error.bytes
        }
    }

    func finish(_ reply: Reply) -> [UInt8] {
        switch reply {
        case .plain(let data): data + [0x90, 0x00]
        case .wrapped(let data): respond(data, sw: CardStatus.ok)
        case .done: isOpen ? respond([], sw: CardStatus.ok) : [0x90, 0x00]
        case .final(let bytes): bytes
        }
    }
}
