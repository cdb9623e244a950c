import WalletCore
import WalletCrypto

/// Sends the Keycard commands of docs/keycard-protocol.md §10 and turns their status words into
/// `CardError`s. It owns the `SecureChannel` (opened by `openSecureChannel(pairing:)`) and
/// decides per command whether it travels plain or protected; the bytes themselves come
/// from the pure builders in `KeycardCommands`.
///
/// All randomness (INIT's ephemeral key and IV, PAIR's challenge, the channel's ephemeral
/// key, MUTUALLY AUTHENTICATE's bytes, IDENTIFY's challenge) is drawn from `random`, in
/// that order within each command, so a scripted source reproduces a session byte for byte.
///
/// Not thread-safe: a card session is sequential.
public final class KeycardCommandSet {
    /// How a command travels.
    public enum Route: Sendable {
        /// Never wrapped (SELECT, INIT, PAIR, OPEN SECURE CHANNEL, FACTORY RESET).
        case plain
        /// Always wrapped; `secureChannelNotOpen` when the channel is closed.
        case secure
        /// Wrapped when the channel is open, plain otherwise (GET DATA, IDENTIFY, PIN-less SIGN).
        case automatic
    }

    /// The plain channel to the card.
    public let channel: APDUChannel
    /// The secure channel over `channel` (3.x cards).
    public let secureChannel: SecureChannel
    /// Secure Channel V2 over `channel` (4.0 cards).
    public let secureChannelV2: SecureChannelV2
    /// Where random inputs come from.
    public let random: RandomSource
    /// Receives one record per command (plaintext inside the channel, secrets masked).
    public var trace: APDUTraceSink?
    /// Watches every exchange down to the wire and the channel's steps (`card.trace`); nil costs nothing.
    public var tracer: CardTracer? {
        didSet {
            secureChannel.tracer = tracer
            secureChannelV2.tracer = tracer
            ((channel as? PlainChannel)?.transport as? TappedTransport)?.tracer = tracer
        }
    }

    /// What the last SELECT answered; nil before SELECT and after INIT or FACTORY RESET
    /// (the card's key changed: select again).
    public private(set) var applicationInfo: ApplicationInfo?
    /// True after a successful MUTUALLY AUTHENTICATE (3.x) or OPEN SECURE CHANNEL (4.0), until
    /// the channel closes.
    public var isSecureChannelOpen: Bool { (secureChannel.isOpen && authenticated) || secureChannelV2.isOpen }

    private var authenticated = false

    /// 4.0: the current key path, kept here (the applet has none; SIGN and EXPORT carry the full
    /// path). DERIVE KEY and the "make current" options move it; a key loaded, generated or
    /// removed puts it back to the master, as a 3.x applet does.
    public private(set) var currentPathV2: [ChildIndex] = []

    private var isVersion4: Bool { applicationInfo?.usesSecureChannelV2 ?? false }

    /// `path` as an absolute path from the host-kept current path (4.0).
    private func absoluteV2(_ path: CardKeyPath, command: CardCommand) throws(CardError) -> DerivationPath {
        var components: [ChildIndex]
        switch path.source {
        case .master: components = path.components
        case .current: components = currentPathV2 + path.components
        case .parent:
            guard !currentPathV2.isEmpty else { throw .wrongP1P2(command: command) }
            components = currentPathV2.dropLast() + path.components
        case .pinless: throw Self.noPinlessOnVersion4(command)
        }
        guard components.count <= CardKeyPath.maximumDepth else { throw .keyPathTooDeep(depth: components.count) }
        return DerivationPath(absolute: true, components)
    }

    private static func noPinlessOnVersion4(_ command: CardCommand) -> CardError {
        .invalidInput(command: command, reason: "a 4.0 card has no PIN-less path: every signature needs the PIN")
    }

    /// A command set over `channel` (usually a `PlainChannel`).
    public init(channel: APDUChannel, random: RandomSource = SystemRandom(), trace: APDUTraceSink? = nil) {
        self.channel = channel
        self.secureChannel = SecureChannel(wrapping: channel)
        self.secureChannelV2 = SecureChannelV2(wrapping: channel)
        self.random = random
        self.trace = trace
    }

    /// A command set over a `PlainChannel` on `transport`.
    public convenience init(
        transport: CardTransport, random: RandomSource = SystemRandom(),
        trace: APDUTraceSink? = nil
    ) {
        self.init(channel: PlainChannel(transport: transport), random: random, trace: trace)
    }

    // MARK: - Sending

    /// Sends any command (for raw APDUs); the status word is returned, not checked.
    public func transmit(_ command: CommandAPDU, route: Route = .automatic) throws(CardError) -> ResponseAPDU {
        let v2 = secureChannelV2.isOpen
        let secure =
            switch route {
            case .plain: false
            case .secure: true
            case .automatic: secureChannel.isOpen || v2
            }
        let target: APDUChannel =
            if !secure { channel } else if applicationInfo?.usesSecureChannelV2 ?? false { secureChannelV2 } else {
                secureChannel
            }
        if let tracer {
            try tracer.begin(command, channel: !secure ? "plain" : target === secureChannelV2 ? "V2" : "V1")
        }
        do {
            var response = try target.send(command)
            if !secure, v2 { response = try answerInsideV2Session(response, to: command) }
            trace?(APDUTraceRecord(command: command, secure: secure, response: response, error: nil))
            tracer?.end(response, error: nil)
            return response
        } catch {
            if secure, !secureChannel.isOpen { authenticated = false }
            trace?(APDUTraceRecord(command: command, secure: secure, response: nil, error: error))
            tracer?.end(nil, error: error)
            throw error
        }
    }

    /// A 4.0 card answers an outer command it refuses while a session is open (a stray INS,
    /// FACTORY RESET with wrong P1/P2) inside the session, counting a round trip; a FACTORY RESET
    /// that ran answers plain `90 00` and ends the session (docs/keycard-protocol.md §14.3).
    private func answerInsideV2Session(
        _ response: ResponseAPDU, to command: CommandAPDU
    ) throws(CardError) -> ResponseAPDU {
        let name = CardCommand(command)
        if response.sw == StatusWord.ok, response.data.count >= SecureChannelV2.tagLength + 2 {
            return try secureChannelV2.unwrap(response, command: name)
        }
        if name == .factoryReset || name == .select { secureChannelV2.close() }
        return response
    }

    /// Sends a command and returns its data when the status word is `90 00`.
    @discardableResult
    private func run(_ command: CommandAPDU, route: Route) throws(CardError) -> [UInt8] {
        let response = try transmit(command, route: route)
        try CardError.check(response, command: CardCommand(command))
        return response.data
    }

    // MARK: - Selection, INIT, pairing

    /// SELECT the Keycard applet (§5). Closes the secure channel: the card has closed its side.
    @discardableResult
    public func select(aid: [UInt8] = KeycardCommands.instanceAID) throws(CardError) -> ApplicationInfo {
        closeSecureChannel()
        applicationInfo = nil
        let data = try run(KeycardCommands.select(aid: aid), route: .plain)
        let info = try ApplicationInfo(selectResponse: data)
        applicationInfo = info
        return info
    }

    /// INIT a blank card (§7.2) with a fresh ephemeral key and IV. Select again afterwards:
    /// the card now has a new secure-channel key.
    public func initialize(_ parameters: InitParameters) throws(CardError) {
        guard let cardKey = applicationInfo?.secureChannelPublicKey else { throw .notSelected(command: .initialize) }
        let ephemeral = PrivateKey.generate(using: random)
        let iv = random.bytes(16)
        let command = try KeycardCommands.initialize(parameters, cardKey: cardKey, ephemeralKey: ephemeral, iv: iv)
        try run(command, route: .plain)
        applicationInfo = nil
    }

    /// PAIR (§8.1): proves both sides know `secret` and returns the new pairing. Persist it.
    ///
    /// - Throws: `cardCryptogramMismatch` when the card does not know the secret (wrong
    ///   pairing password); `noFreePairingSlot` when every slot is taken.
    public func pair(secret: PairingSecret, mode: PairingMode = .persistentOrEphemeral) throws(CardError) -> Pairing {
        guard !isVersion4 else { throw .invalidInput(command: .pair, reason: "a 4.0 card needs no pairing") }
        guard !secureChannel.isOpen else {
            throw .invalidInput(
                command: .pair,
                reason: "a secure channel is open; select the card again before pairing")
        }
        let challenge = random.bytes(32)
        let first = try run(KeycardCommands.pairStep1(challenge: challenge, mode: mode), route: .plain)
        let cryptogram = try KeycardCommands.clientCryptogram(
            secret: secret, clientChallenge: challenge,
            stepOneResponse: first)
        let second = try run(KeycardCommands.pairStep2(cryptogram: cryptogram), route: .plain)
        return try KeycardCommands.pairing(secret: secret, stepTwoResponse: second)
    }

    /// UNPAIR slot `index` (§8.2); needs the channel and the PIN.
    public func unpair(index: UInt8) throws(CardError) {
        try run(KeycardCommands.unpair(index: index), route: .secure)
    }

    // MARK: - Secure channel

    /// OPEN SECURE CHANNEL, then MUTUALLY AUTHENTICATE (§9.1–§9.3).
    public func openSecureChannel(pairing: Pairing) throws(CardError) {
        try beginSecureChannel(pairing: pairing)
        try mutuallyAuthenticate()
    }

    /// OPEN SECURE CHANNEL only: sends a fresh ephemeral key and installs the session keys
    /// (§9.1, §9.2). The channel is usable once `mutuallyAuthenticate()` succeeds.
    public func beginSecureChannel(pairing: Pairing) throws(CardError) {
        guard let cardKey = applicationInfo?.secureChannelPublicKey else {
            throw .notSelected(command: .openSecureChannel)
        }
        closeSecureChannel()
        let ephemeral = PrivateKey.generate(using: random)
        let data = try run(
            KeycardCommands.openSecureChannel(index: pairing.index, publicKey: ephemeral.publicKey),
            route: .plain)
        let shared: Secret
        do { shared = try ephemeral.sharedSecretX(with: cardKey) } catch { throw .cryptoFailure(error) }
        let keys = try SessionKeys.derive(sharedSecret: shared, pairingKey: pairing.key, cardResponse: data)
        secureChannel.open(with: keys)
        tracer?.keyScheduleV1(shared: shared, pairingKey: pairing.key, answer: data, keys: keys)
    }

    /// MUTUALLY AUTHENTICATE (§9.3): the card's answer must carry a valid MAC (checked by the
    /// channel) and exactly 32 bytes. Any failure closes the channel.
    public func mutuallyAuthenticate() throws(CardError) {
        do throws(CardError) {
            let data = try run(KeycardCommands.mutuallyAuthenticate(challenge: random.bytes(32)), route: .secure)
            guard data.count == 32 else {
                throw CardError.malformedResponse(
                    command: .mutuallyAuthenticate,
                    detail: "the card answered \(data.count) bytes instead of 32")
            }
            authenticated = true
        } catch {
            closeSecureChannel()
            throw error
        }
    }

    /// Forgets the session keys on this side.
    public func closeSecureChannel() {
        secureChannel.close()
        secureChannelV2.close()
        authenticated = false
    }

    // MARK: - Secure Channel V2 (4.0)

    /// OPEN SECURE CHANNEL on a 4.0 card (§14.2): sends a fresh salt (drawn first) and ephemeral
    /// key (drawn second), checks the card's signature over the transcript with the identity key
    /// of the certificate SELECT gave (high S accepted: the applet does not normalise), and only
    /// then installs the session keys. Whether that certificate's CA is trusted is the caller's
    /// decision, taken before this.
    ///
    /// - Throws: `notSelected` before a 4.0 SELECT; `identityNotVerified` when the signature does
    ///   not verify (nothing installed).
    public func openSecureChannelV2() throws(CardError) {
        guard let certificate = applicationInfo?.certificate else { throw .notSelected(command: .openSecureChannel) }
        closeSecureChannel()
        let salt = random.bytes(32)
        let ephemeral = PrivateKey.generate(using: random)
        let clientKey = ephemeral.publicKey.uncompressed
        let data = try run(
            CommandAPDU(ins: 0x10, p1: 0, p2: 0, data: salt + clientKey), route: .plain)
        guard data.count > 65 else {
            throw .malformedResponse(
                command: .openSecureChannel,
                detail: "expected the card's key (65) and a signature, got \(data.count) bytes")
        }
        let cardKeyBytes = Array(data[0..<65])
        let cardKey: PublicKey
        let signature: ECDSASignature
        do {
            cardKey = try PublicKey(bytes: cardKeyBytes)
            signature = try ECDSASignature(der: Array(data[65...]), lenient: true)
        } catch {
            throw .malformedResponse(command: .openSecureChannel, detail: error.description)
        }
        let digest = SessionKeysV2.transcriptDigest(salt: salt, clientKey: clientKey, cardKey: cardKeyBytes)
        guard Secp256k1.verify(signature, digest: digest, publicKey: certificate.identityPublicKey, allowHighS: true)
        else {
            throw .identityNotVerified(
                reason:
                    "the card's signature over the secure-channel handshake does not verify with its certificate key")
        }
        let shared: Secret
        do { shared = try ephemeral.sharedSecretX(with: cardKey) } catch { throw .cryptoFailure(error) }
        let keys = SessionKeysV2.derive(sharedX: shared, salt: salt)
        secureChannelV2.open(with: keys)
        tracer?.keyScheduleV2(
            certificate: certificate, salt: salt, digest: digest, shared: shared, keys: keys)
    }

    /// INIT a blank 4.0 card inside the channel (§14.4). Select again afterwards.
    public func initializeV2(_ parameters: InitParametersV2) throws(CardError) {
        try run(KeycardCommands.initializeV2(parameters), route: .secure)
        applicationInfo = nil
    }

    /// SIGN on a 4.0 card (§14.6): ECDSA, checked against the key the card returns; or Schnorr.
    public func signV2(digest: [UInt8], path: DerivationPath) throws(CardError) -> CardSignature {
        let data = try run(KeycardCommands.signV2(digest: digest, path: path, algorithm: .ecdsa), route: .secure)
        return try CardSignature(response: data, digest: digest)
    }

    /// SIGN with BIP-340 Schnorr on a 4.0 card (§14.6): the card adds `tweak` to the (even-Y)
    /// key at `path`; the signature is checked here under the tweaked key Q = P + t·G before it is
    /// returned (a zero tweak signs with P itself, the Taproot tweak gives a key-path signature).
    public func signSchnorrV2(
        digest: [UInt8], tweak: [UInt8], path: DerivationPath,
        expectedKey: PublicKey? = nil
    ) throws(CardError) -> CardSchnorrSignature {
        let data = try run(
            KeycardCommands.signV2(digest: digest, path: path, algorithm: .schnorr(tweak: tweak)), route: .secure)
        return try CardSchnorrSignature(response: data, digest: digest, tweak: tweak, expectedKey: expectedKey)
    }

    /// LOAD KEY P1 04 on a 4.0 card (§14.9): enters LEE mode with `seed` (16…64 bytes); returns the key UID.
    @discardableResult
    public func loadLEESeed(_ seed: Secret) throws(CardError) -> [UInt8] {
        guard (16...64).contains(seed.count) else {
            throw .invalidInput(command: .loadKey, reason: "a LEE seed is 16 to 64 bytes, got \(seed.count)")
        }
        var data = seed.withUnsafeBytes { Array($0) }
        defer { Secret.wipe(&data) }
        return keyChanged(
            try KeycardCommands.keyUID(
                run(CommandAPDU(ins: 0xD0, p1: 0x04, p2: 0, data: data), route: .secure),
                command: .loadKey), leeMode: true)
    }

    /// EXPORT LEE on a 4.0 card in LEE mode (§14.9): the nullifier and viewing secret keys at `path`.
    public func exportLEE(path: DerivationPath) throws(CardError) -> LEEKeys {
        let command = CommandAPDU(
            ins: 0xC3, p1: 0, p2: 0, data: try KeycardCommands.pathBytes(path, command: .exportLEE))
        var data = try run(command, route: .secure)
        defer { Secret.wipe(&data) }
        return try LEEKeys(response: data)
    }

    /// EXPORT BIP85 on a 4.0 card (§14.8): `length` bytes (1…64) of BIP-85 entropy at `path`
    /// (under m/83696968', every index hardened).
    public func exportBIP85(path: DerivationPath, length: Int) throws(CardError) -> Secret {
        guard (1...64).contains(length) else {
            throw .invalidInput(command: .exportBIP85, reason: "BIP-85 entropy is 1 to 64 bytes, got \(length)")
        }
        let command = CommandAPDU(
            ins: 0xC4, p1: UInt8(length), p2: 0, data: try KeycardCommands.pathBytes(path, command: .exportBIP85))
        var data = try run(command, route: .secure)
        defer { Secret.wipe(&data) }
        guard data.count == length else {
            throw .malformedResponse(command: .exportBIP85, detail: "expected \(length) bytes, got \(data.count)")
        }
        return Secret(bytes: data)
    }

    /// ECDH on a 4.0 card (§14.8): x(k·peer) with the key at `path` (NIP-44 or EIP-1581 subtrees only).
    public func ecdh(peer: PublicKey, path: DerivationPath) throws(CardError) -> Secret {
        let command = CommandAPDU(
            ins: 0xC5, p1: 0x01, p2: 0x00,
            data: peer.uncompressed + (try KeycardCommands.pathBytes(path, command: .ecdh)))
        var data = try run(command, route: .secure)
        defer { Secret.wipe(&data) }
        guard data.count == 32 else {
            throw .malformedResponse(command: .ecdh, detail: "expected 32 bytes, got \(data.count)")
        }
        return Secret(bytes: data)
    }

    /// GET CHALLENGE on a 4.0 card (§14.8): `length` (1…245) random bytes from the card.
    public func getChallenge(length: Int) throws(CardError) -> [UInt8] {
        guard (1...245).contains(length) else {
            throw .invalidInput(command: .getChallenge, reason: "a challenge is 1 to 245 bytes, got \(length)")
        }
        let data = try run(CommandAPDU(ins: 0x84, p1: UInt8(length), p2: 0, data: []), route: .secure)
        guard data.count == length else {
            throw .malformedResponse(command: .getChallenge, detail: "expected \(length) bytes, got \(data.count)")
        }
        return data
    }

    /// EXPORT KEY on a 4.0 card (§14.7).
    public func exportKeyV2(path: DerivationPath, kind: ExportKind) throws(CardError) -> ExportedKey {
        try ExportedKey(response: run(KeycardCommands.exportKeyV2(path: path, kind: kind), route: .secure))
    }

    // MARK: - Identity and status

    /// IDENTIFY (§11) with a random challenge (or `challenge`), verified.
    public func identify(challenge: [UInt8]? = nil) throws(CardError) -> CardIdentity {
        let challenge = challenge ?? random.bytes(32)
        let data = try run(KeycardCommands.identify(challenge: challenge), route: .automatic)
        return try CardIdentity(response: data, challenge: challenge)
    }

    /// GET STATUS P1=00 (§10.1): PIN and PUK tries, key loaded.
    public func getStatus() throws(CardError) -> ApplicationStatus {
        try ApplicationStatus(response: run(KeycardCommands.getStatus(.application), route: .secure))
    }

    /// GET STATUS P1=01 (§10.1): the current key path (absolute; `m` for the master).
    public func getKeyPath() throws(CardError) -> DerivationPath {
        if isVersion4 { return DerivationPath(absolute: true, currentPathV2) }
        return try KeycardCommands.keyPath(statusResponse: run(KeycardCommands.getStatus(.keyPath), route: .secure))
    }

    // MARK: - Credentials

    /// VERIFY PIN (§10.2).
    ///
    /// - Throws: `wrongPIN(triesLeft:)` for a wrong PIN (0 = blocked).
    public func verifyPIN(_ pin: Secret) throws(CardError) {
        try run(KeycardCommands.verifyPIN(pin), route: .secure)
    }

    /// CHANGE PIN P1=00 (§10.3).
    public func changePIN(_ pin: Secret) throws(CardError) {
        try run(KeycardCommands.changePIN(pin), route: .secure)
    }

    /// CHANGE PIN P1=01: a new PUK (§10.3).
    public func changePUK(_ puk: Secret) throws(CardError) {
        try run(KeycardCommands.changePUK(puk), route: .secure)
    }

    /// CHANGE PIN P1=02: a new pairing secret for future PAIRs (§10.3).
    public func changePairingSecret(_ secret: PairingSecret) throws(CardError) {
        guard !isVersion4 else {
            throw .invalidInput(command: .changePairingSecret, reason: "a 4.0 card has no pairing secret")
        }
        try run(KeycardCommands.changePairingSecret(secret), route: .secure)
    }

    /// UNBLOCK PIN (§10.4): sets and verifies `newPIN`.
    ///
    /// - Throws: `wrongPUK(triesLeft:)` for a wrong PUK.
    public func unblockPIN(puk: Secret, newPIN: Secret) throws(CardError) {
        try run(KeycardCommands.unblockPIN(puk: puk, newPIN: newPIN), route: .secure)
    }

    // MARK: - Keys

    /// LOAD KEY P1=01/02 (§10.5); returns the key UID.
    @discardableResult
    public func loadKey(
        privateKey: PrivateKey, publicKey: PublicKey? = nil,
        chainCode: [UInt8]? = nil
    ) throws(CardError) -> [UInt8] {
        let data = try run(
            KeycardCommands.loadKey(privateKey: privateKey, publicKey: publicKey, chainCode: chainCode),
            route: .secure)
        return keyChanged(try KeycardCommands.keyUID(data, command: .loadKey))
    }

    /// LOAD KEY P1=02 from an extended private key; returns the key UID.
    @discardableResult
    public func loadKey(extendedKey: ExtendedKey) throws(CardError) -> [UInt8] {
        keyChanged(
            try KeycardCommands.keyUID(
                run(KeycardCommands.loadKey(extendedKey: extendedKey), route: .secure),
                command: .loadKey))
    }

    /// LOAD KEY P1=03 with a BIP39 seed (§10.5); returns the key UID.
    @discardableResult
    public func loadKey(seed: Secret) throws(CardError) -> [UInt8] {
        keyChanged(
            try KeycardCommands.keyUID(run(KeycardCommands.loadKey(seed: seed), route: .secure), command: .loadKey))
    }

    /// DERIVE KEY (§10.6): sets the current path (discouraged; pass paths to SIGN/EXPORT).
    public func deriveKey(_ path: CardKeyPath) throws(CardError) {
        if isVersion4 {
            currentPathV2 = try absoluteV2(path, command: .deriveKey).components
            return
        }
        try run(KeycardCommands.deriveKey(path), route: .secure)
    }

    /// GENERATE MNEMONIC (§10.7): a new mnemonic from the card's RNG; nothing is stored.
    public func generateMnemonic(wordCount: Mnemonic.WordCount = .twelve) throws(CardError) -> Mnemonic {
        let data = try run(KeycardCommands.generateMnemonic(wordCount: wordCount), route: .secure)
        return try KeycardCommands.mnemonic(indexes: data)
    }

    /// REMOVE KEY (§10.8).
    public func removeKey() throws(CardError) {
        try run(KeycardCommands.removeKey(), route: .secure)
        keyChanged([])
    }

    /// GENERATE KEY (§10.8); returns the key UID.
    @discardableResult
    public func generateKey() throws(CardError) -> [UInt8] {
        keyChanged(
            try KeycardCommands.keyUID(run(KeycardCommands.generateKey(), route: .secure), command: .generateKey))
    }

    /// Keeps `applicationInfo` true to the card after a command that loaded, generated or removed the
    /// key (SELECT's key UID and, on 4.0, LEE mode, which the card would report now); returns `uid`.
    private func keyChanged(_ uid: [UInt8], leeMode: Bool = false) -> [UInt8] {
        currentPathV2 = []
        applicationInfo = applicationInfo?.replacingKeyUID(uid, leeMode: leeMode)
        return uid
    }

    // MARK: - Signing and export

    /// SIGN (§10.9) a 32-byte digest; PIN-less signing goes plain when no channel is open.
    public func sign(digest: [UInt8], option: SignOption = .current) throws(CardError) -> CardSignature {
        if isVersion4 {
            let path: DerivationPath
            switch option {
            case .current: path = DerivationPath(absolute: true, currentPathV2)
            case .derive(let p), .deriveAndMakeCurrent(let p): path = try absoluteV2(p, command: .sign)
            case .pinless: throw Self.noPinlessOnVersion4(.sign)
            }
            let signature = try signV2(digest: digest, path: path)
            if case .deriveAndMakeCurrent = option { currentPathV2 = path.components }
            return signature
        }
        let route: Route = option == .pinless ? .automatic : .secure
        let data = try run(KeycardCommands.sign(digest: digest, option: option), route: route)
        return try CardSignature(response: data, digest: digest)
    }

    /// SET PINLESS PATH (§10.10); nil removes it.
    public func setPinlessPath(_ path: CardKeyPath?) throws(CardError) {
        guard !isVersion4 else { throw Self.noPinlessOnVersion4(.setPinlessPath) }
        try run(KeycardCommands.setPinlessPath(path), route: .secure)
    }

    /// EXPORT KEY (§10.11).
    public func exportKey(_ option: ExportOption = .current, kind: ExportKind) throws(CardError) -> ExportedKey {
        if isVersion4 {
            let path: DerivationPath
            switch option {
            case .current: path = DerivationPath(absolute: true, currentPathV2)
            case .derive(let p), .deriveAndMakeCurrent(let p): path = try absoluteV2(p, command: .exportKey)
            }
            let exported = try exportKeyV2(path: path, kind: kind)
            if case .deriveAndMakeCurrent = option { currentPathV2 = path.components }
            return exported
        }
        return try ExportedKey(response: run(KeycardCommands.exportKey(option, kind: kind), route: .secure))
    }

    // MARK: - Data and reset

    /// GET DATA (§10.12); wrapped when the channel is open.
    public func getData(_ slot: DataSlot = .publicData) throws(CardError) -> [UInt8] {
        try run(KeycardCommands.getData(slot), route: .automatic)
    }

    /// STORE DATA (§10.12).
    public func storeData(_ data: [UInt8], slot: DataSlot = .publicData) throws(CardError) {
        try run(KeycardCommands.storeData(data, slot: slot), route: .secure)
    }

    /// The largest NDEF file a 4.0 card holds (§14.11).
    public static let ndefFileSize = 512
    /// The largest NDEF slot of an applet before 3.2, stored whole by one STORE DATA (§10.12).
    public static let ndefSlotSize = 223
    /// Bytes per STORE DATA chunk of the NDEF file: a multiple of 4 (offsets are given as offset / 4)
    /// that fits either secure channel's payload.
    static let ndefChunkSize = 220

    /// True when the card keeps NDEF data as a 512-byte file read and written at offsets (3.2 and
    /// 4.0), false for the single slot of 3.0 and 3.1 (§10.12); a card not selected is taken as the
    /// newer kind.
    private var ndefIsFile: Bool {
        applicationInfo?.version.map { $0 >= AppletVersion(major: 3, minor: 2) } ?? true
    }

    /// The NDEF bytes this card holds at most, NLEN (2 bytes) included: 512, or 223 before 3.2.
    public var ndefCapacity: Int { ndefIsFile ? Self.ndefFileSize : Self.ndefSlotSize }

    /// The NDEF file, NLEN (2 bytes) ‖ record (§14.11, §10.12), read in segments: offset 0, then
    /// the offset reached while it is below NLEN + 2. Before 3.2 the slot comes whole, and an empty
    /// slot (nothing ever stored) is an empty file. A length beyond the card's capacity, a segment
    /// not ending on a multiple of 4 or an empty segment is a malformed answer.
    public func readNDEFFile() throws(CardError) -> [UInt8] {
        var file = try run(KeycardCommands.getData(.ndef), route: .automatic)
        if file.isEmpty, !ndefIsFile { return [0, 0] }
        guard file.count >= 2 else {
            throw .malformedResponse(command: .getData, detail: "the NDEF file has no 2-byte length")
        }
        let total = 2 + (Int(file[0]) << 8 | Int(file[1]))
        guard total <= ndefCapacity else {
            throw .malformedResponse(
                command: .getData, detail: "NDEF length \(total - 2) exceeds the \(ndefCapacity)-byte file")
        }
        guard ndefIsFile || file.count >= total else {
            throw .malformedResponse(
                command: .getData,
                detail: "NDEF length \(total - 2), but the slot holds \(file.count - 2) bytes after it")
        }
        while file.count < total {
            guard file.count % 4 == 0 else {
                throw .malformedResponse(
                    command: .getData, detail: "an NDEF segment ended at byte \(file.count), not a multiple of 4")
            }
            let segment = try run(KeycardCommands.getData(.ndef, offset: file.count), route: .automatic)
            guard !segment.isEmpty else { throw .malformedResponse(command: .getData, detail: "an empty NDEF segment") }
            file += segment
        }
        return Array(file.prefix(total))
    }

    /// Writes the NDEF file (NLEN ‖ record, NLEN matching; at most `ndefCapacity` bytes): in
    /// 220-byte chunks at offsets that are multiples of 4 (§14.11), or in one STORE DATA before 3.2
    /// (§10.12). Needs the PIN.
    public func writeNDEFFile(_ file: [UInt8]) throws(CardError) {
        guard file.count >= 2, file.count <= ndefCapacity, Int(file[0]) << 8 | Int(file[1]) == file.count - 2 else {
            throw .invalidInput(
                command: .storeData,
                reason:
                    "an NDEF file is its 2-byte length then the record, at most \(ndefCapacity) bytes on this card; got \(file.count) bytes"
            )
        }
        guard ndefIsFile else {
            try run(KeycardCommands.storeData(file, slot: .ndef), route: .secure)
            return
        }
        for offset in stride(from: 0, to: file.count, by: Self.ndefChunkSize) {
            let chunk = Array(file[offset..<min(file.count, offset + Self.ndefChunkSize)])
            try run(KeycardCommands.storeData(chunk, slot: .ndef, p2: UInt8(offset / 4)), route: .secure)
        }
    }

    /// FACTORY RESET (§10.13): erases keys, credentials and pairings. Select again afterwards.
    public func factoryReset() throws(CardError) {
        defer {
            closeSecureChannel()
            applicationInfo = nil
        }
        try run(KeycardCommands.factoryReset(), route: .plain)
    }
}
