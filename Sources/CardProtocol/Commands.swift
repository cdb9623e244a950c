import WalletCore
import WalletCrypto

// MARK: - Parameters

/// What INIT stores on a blank card (docs/keycard-protocol.md §7.2).
///
/// The payload is 50 bytes (PIN ‖ PUK ‖ pairing secret), 52 with retry limits, 58 with a
/// duress PIN. Limits and the duress PIN are 3.1+; when only a duress PIN is given the
/// applet defaults (3 PIN tries, 5 PUK tries) are sent with it.
public struct InitParameters: Sendable {
    /// 6 ASCII digits.
    public let pin: Secret
    /// 12 ASCII digits.
    public let puk: Secret
    /// The pairing secret (usually from a pairing password).
    public let pairingSecret: PairingSecret
    /// PIN tries, 2…10 (3.1+); nil = applet default 3.
    public let pinRetries: UInt8?
    /// PUK tries, 3…12 (3.1+); nil = applet default 5.
    public let pukRetries: UInt8?
    /// 6-digit duress PIN (3.1+); nil = the applet's default (first 6 PUK digits).
    public let duressPIN: Secret?

    /// Checks the values the applet would refuse with `6A 80`.
    ///
    /// - Throws: `CardError.invalidInput` naming the offending argument (never its value).
    public init(
        pin: Secret, puk: Secret, pairingSecret: PairingSecret, pinRetries: UInt8? = nil,
        pukRetries: UInt8? = nil, duressPIN: Secret? = nil
    ) throws(CardError) {
        try KeycardCommands.checkDigits(pin, count: 6, what: "PIN", command: .initialize)
        try KeycardCommands.checkDigits(puk, count: 12, what: "PUK", command: .initialize)
        if let duressPIN {
            try KeycardCommands.checkDigits(duressPIN, count: 6, what: "duress PIN", command: .initialize)
        }
        if let pinRetries, !(2...10).contains(pinRetries) {
            throw .invalidInput(command: .initialize, reason: "PIN tries must be 2 to 10, got \(pinRetries)")
        }
        if let pukRetries, !(3...12).contains(pukRetries) {
            throw .invalidInput(command: .initialize, reason: "PUK tries must be 3 to 12, got \(pukRetries)")
        }
        self.pin = pin
        self.puk = puk
        self.pairingSecret = pairingSecret
        self.pinRetries = pinRetries
        self.pukRetries = pukRetries
        self.duressPIN = duressPIN
    }

    /// The plaintext payload (50, 52 or 58 bytes). Wipe it after use.
    func payload() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(58)
        pin.withUnsafeBytes { out += $0 }
        puk.withUnsafeBytes { out += $0 }
        pairingSecret.secret.withUnsafeBytes { out += $0 }
        if pinRetries != nil || pukRetries != nil || duressPIN != nil {
            out.append(pinRetries ?? 3)
            out.append(pukRetries ?? 5)
        }
        duressPIN?.withUnsafeBytes { out += $0 }
        return out
    }
}

/// What INIT stores on a blank 4.0 card (docs/keycard-protocol.md §14.4): PIN ‖ PUK ‖ PIN tries ‖
/// PUK tries ‖ duress PIN, always the 26-byte form. There is no pairing secret.
///
/// The duress PIN is required and must differ from the PIN: a 4.0 applet given no duress PIN
/// makes it equal to the PIN, and as VERIFY PIN tries the duress PIN first, every login would
/// then open the duress wallet. PIN tries are 2 to 6: the applet accepts up to 10 in its checks
/// and then fails (`6F 00`) for 7 to 10, leaving the card blank.
public struct InitParametersV2: Sendable {
    /// 6 ASCII digits.
    public let pin: Secret
    /// 12 ASCII digits.
    public let puk: Secret
    /// PIN tries, 2…6.
    public let pinRetries: UInt8
    /// PUK tries, 3…12.
    public let pukRetries: UInt8
    /// 6 ASCII digits, not the PIN.
    public let duressPIN: Secret

    /// Checks what the applet would refuse, and the duress trap.
    ///
    /// - Throws: `CardError.invalidInput` naming the offending argument (never its value).
    public init(
        pin: Secret, puk: Secret, duressPIN: Secret, pinRetries: UInt8 = 3, pukRetries: UInt8 = 5
    ) throws(CardError) {
        try KeycardCommands.checkDigits(pin, count: 6, what: "PIN", command: .initialize)
        try KeycardCommands.checkDigits(puk, count: 12, what: "PUK", command: .initialize)
        try KeycardCommands.checkDigits(duressPIN, count: 6, what: "duress PIN", command: .initialize)
        guard duressPIN != pin else {
            throw .invalidInput(
                command: .initialize,
                reason: "the duress PIN must differ from the PIN: the card would open the duress wallet at every login")
        }
        guard (2...6).contains(pinRetries) else {
            throw .invalidInput(
                command: .initialize, reason: "PIN tries must be 2 to 6 on a 4.0 card, got \(pinRetries)")
        }
        guard (3...12).contains(pukRetries) else {
            throw .invalidInput(command: .initialize, reason: "PUK tries must be 3 to 12, got \(pukRetries)")
        }
        self.pin = pin
        self.puk = puk
        self.duressPIN = duressPIN
        self.pinRetries = pinRetries
        self.pukRetries = pukRetries
    }

    /// The 26-byte payload. Wipe it after use.
    func payload() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(26)
        pin.withUnsafeBytes { out += $0 }
        puk.withUnsafeBytes { out += $0 }
        out += [pinRetries, pukRetries]
        duressPIN.withUnsafeBytes { out += $0 }
        return out
    }
}

/// The signature algorithm of a 4.0 SIGN (P2, docs/keycard-protocol.md §14.6).
public enum SignAlgorithm: Sendable, Hashable {
    /// ECDSA over secp256k1 (P2 `00`).
    case ecdsa
    /// BIP-340 Schnorr with a 32-byte tweak added to the (even-Y) key first (P2 `03`); a zero
    /// tweak signs with the key itself, the BIP-341 TapTweak gives a Taproot key-path signature.
    case schnorr(tweak: [UInt8])
}

/// What SIGN signs with (P1 bits 1–0 and 7–6, docs/keycard-protocol.md §10.9).
public enum SignOption: Sendable, Hashable {
    /// The current key (P1 `00`).
    case current
    /// Derive from the path's source, keep the current path (P1 `01` | source).
    case derive(CardKeyPath)
    /// Derive and make the result the current path (P1 `02` | source).
    case deriveAndMakeCurrent(CardKeyPath)
    /// The PIN-less path (P1 `03`); works without a PIN, and without a channel when none is open.
    case pinless
}

/// Which key EXPORT KEY exports (P1, docs/keycard-protocol.md §10.11).
public enum ExportOption: Sendable, Hashable {
    /// The current key (P1 `00`).
    case current
    /// Derive from the path's source, keep the current path (P1 `01` | source).
    case derive(CardKeyPath)
    /// Derive and make it current (P1 `02` | source).
    case deriveAndMakeCurrent(CardKeyPath)
}

/// What EXPORT KEY returns (P2, §10.11).
public enum ExportKind: UInt8, Sendable, CaseIterable {
    /// The private key; only under `m/43'/60'/1581'` (EIP-1581).
    case privateKey = 0x00
    /// The public key.
    case publicKey = 0x01
    /// The public key and chain code (3.1+); refused under EIP-1581 paths.
    case extendedPublicKey = 0x02
}

/// The data slots of GET DATA / STORE DATA (P1, §10.12).
public enum DataSlot: UInt8, Sendable, CaseIterable {
    /// Public data, ≤ 127 bytes.
    case publicData = 0x00
    /// The NDEF record served by the NDEF applet.
    case ndef = 0x01
    /// The Cash applet's data.
    case cash = 0x02
}

/// GET STATUS P1 (§10.1).
public enum StatusKind: UInt8, Sendable {
    /// The `A3` application status.
    case application = 0x00
    /// The current key path.
    case keyPath = 0x01
}

// MARK: - Builders

/// Pure builders for every 3.x command (docs/keycard-protocol.md §10) and the pure parts of their
/// handshakes. Nothing here sends or keeps state; random inputs are arguments, so every
/// APDU is reproducible in tests. Commands that travel in the secure channel are built in
/// plaintext; `SecureChannel` wraps them.
public enum KeycardCommands {
    /// The default Keycard instance AID `A0 00 00 08 04 00 01 01 01` (§3).
    public static let instanceAID: [UInt8] = [0xA0, 0x00, 0x00, 0x08, 0x04, 0x00, 0x01, 0x01, 0x01]
    /// The Ident applet instance AID (§3, §11).
    public static let identAID: [UInt8] = [0xA0, 0x00, 0x00, 0x08, 0x04, 0x00, 0x01, 0x04, 0x01]

    /// SELECT by AID: `00 A4 04 00 Lc AID 00` (§3).
    public static func select(aid: [UInt8] = instanceAID) -> CommandAPDU {
        CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: aid, le: 0x00)
    }

    /// INIT (§7.2): `41 ‖ ephemeral public key ‖ IV ‖ AES-256-CBC(ECDH-X, IV, pad(payload))`.
    ///
    /// - Parameters:
    ///   - cardKey: the pre-initialized card's key from SELECT (§5.1).
    ///   - ephemeralKey: a fresh client key (random in production, fixed in tests).
    ///   - iv: 16 random bytes.
    public static func initialize(
        _ parameters: InitParameters, cardKey: PublicKey, ephemeralKey: PrivateKey,
        iv: [UInt8]
    ) throws(CardError) -> CommandAPDU {
        guard iv.count == 16 else { throw .invalidInput(command: .initialize, reason: "the IV must be 16 bytes") }
        let shared: Secret
        do { shared = try ephemeralKey.sharedSecretX(with: cardKey) } catch { throw .cryptoFailure(error) }
        var payload = parameters.payload()
        defer { Secret.wipe(&payload) }
        let ciphertext = try SecureChannel.encrypt(payload, key: shared, iv: iv)
        return CommandAPDU(ins: 0xFE, data: [0x41] + ephemeralKey.publicKey.uncompressed + iv + ciphertext)
    }

    /// PAIR step 1: `80 12 00 P2 20 <client challenge>` (§8.1).
    public static func pairStep1(challenge: [UInt8], mode: PairingMode = .persistentOrEphemeral) -> CommandAPDU {
        CommandAPDU(ins: 0x12, p1: 0x00, p2: mode.rawValue, data: challenge)
    }

    /// PAIR step 2: `80 12 01 00 20 <client cryptogram>` (§8.1).
    public static func pairStep2(cryptogram: [UInt8]) -> CommandAPDU {
        CommandAPDU(ins: 0x12, p1: 0x01, p2: 0x00, data: cryptogram)
    }

    /// Checks PAIR step 1's answer — card cryptogram (32) ‖ card challenge (32) — and returns
    /// the client cryptogram `SHA-256(secret ‖ card challenge)` for step 2.
    ///
    /// - Throws: `cardCryptogramMismatch` when the card's cryptogram is not
    ///   `SHA-256(secret ‖ client challenge)` (compared in constant time);
    ///   `malformedResponse` when the answer is not 64 bytes.
    public static func clientCryptogram(
        secret: PairingSecret, clientChallenge: [UInt8],
        stepOneResponse data: [UInt8]
    ) throws(CardError) -> [UInt8] {
        guard data.count == 64 else {
            throw .malformedResponse(command: .pair, detail: "step 1 answers 64 bytes, got \(data.count)")
        }
        let expected = hashSecret(secret.secret, then: clientChallenge)
        guard ConstantTime.equal(expected, data[0..<32]) else { throw .cardCryptogramMismatch }
        return hashSecret(secret.secret, then: Array(data[32..<64]))
    }

    /// The pairing from PAIR step 2's answer — index (1) ‖ salt (32): key = `SHA-256(secret ‖ salt)`.
    public static func pairing(secret: PairingSecret, stepTwoResponse data: [UInt8]) throws(CardError) -> Pairing {
        guard data.count == 33 else {
            throw .malformedResponse(command: .pair, detail: "step 2 answers 33 bytes, got \(data.count)")
        }
        var key = hashSecret(secret.secret, then: Array(data[1..<33]))
        return try Pairing(index: data[0], key: Secret(consuming: &key))
    }

    /// UNPAIR: `80 13 <index> 00` (§8.2), sent in the secure channel.
    public static func unpair(index: UInt8) -> CommandAPDU {
        CommandAPDU(ins: 0x13, p1: index)
    }

    /// OPEN SECURE CHANNEL: `80 10 <index> 00 41 <client ephemeral public key>` (§9.1).
    public static func openSecureChannel(index: UInt8, publicKey: PublicKey) -> CommandAPDU {
        CommandAPDU(ins: 0x10, p1: index, data: publicKey.uncompressed)
    }

    /// MUTUALLY AUTHENTICATE: `80 11 00 00` + 32 random bytes (§9.3), sent in the channel.
    public static func mutuallyAuthenticate(challenge: [UInt8]) -> CommandAPDU {
        CommandAPDU(ins: 0x11, data: challenge)
    }

    /// IDENTIFY: `80 14 00 00 20 <challenge>` (§11).
    public static func identify(challenge: [UInt8]) -> CommandAPDU {
        CommandAPDU(ins: 0x14, data: challenge)
    }

    /// GET STATUS: `80 F2 P1 00` (§10.1).
    public static func getStatus(_ kind: StatusKind = .application) -> CommandAPDU {
        CommandAPDU(ins: 0xF2, p1: kind.rawValue)
    }

    /// VERIFY PIN: `80 20 00 00 06 <PIN>` (§10.2).
    public static func verifyPIN(_ pin: Secret) throws(CardError) -> CommandAPDU {
        try checkDigits(pin, count: 6, what: "PIN", command: .verifyPIN)
        return CommandAPDU(ins: 0x20, data: bytes(pin))
    }

    /// CHANGE PIN P1 `00`: the new 6-digit PIN (§10.3).
    public static func changePIN(_ pin: Secret) throws(CardError) -> CommandAPDU {
        try checkDigits(pin, count: 6, what: "PIN", command: .changePIN)
        return CommandAPDU(ins: 0x21, p1: 0x00, data: bytes(pin))
    }

    /// CHANGE PIN P1 `01`: the new 12-digit PUK (§10.3).
    public static func changePUK(_ puk: Secret) throws(CardError) -> CommandAPDU {
        try checkDigits(puk, count: 12, what: "PUK", command: .changePUK)
        return CommandAPDU(ins: 0x21, p1: 0x01, data: bytes(puk))
    }

    /// CHANGE PIN P1 `02`: the new 32-byte pairing secret (§10.3).
    public static func changePairingSecret(_ secret: PairingSecret) -> CommandAPDU {
        CommandAPDU(ins: 0x21, p1: 0x02, data: bytes(secret.secret))
    }

    /// UNBLOCK PIN: `80 22 00 00 12 <PUK 12> <new PIN 6>` (§10.4).
    public static func unblockPIN(puk: Secret, newPIN: Secret) throws(CardError) -> CommandAPDU {
        try checkDigits(puk, count: 12, what: "PUK", command: .unblockPIN)
        try checkDigits(newPIN, count: 6, what: "new PIN", command: .unblockPIN)
        return CommandAPDU(ins: 0x22, data: bytes(puk) + bytes(newPIN))
    }

    /// LOAD KEY P1 `01` (key pair) or `02` (with a chain code): the `A1` template
    /// `[80 41 pub] 81 20 priv [82 20 chain code]` (§10.5).
    public static func loadKey(
        privateKey: PrivateKey, publicKey: PublicKey? = nil,
        chainCode: [UInt8]? = nil
    ) throws(CardError) -> CommandAPDU {
        if let chainCode, chainCode.count != 32 {
            throw .invalidInput(command: .loadKey, reason: "the chain code must be 32 bytes, got \(chainCode.count)")
        }
        var fields = [TLV]()
        if let publicKey { fields.append(TLV(tag: 0x80, value: publicKey.uncompressed)) }
        var key = bytes(privateKey.secret)
        defer { Secret.wipe(&key) }
        fields.append(TLV(tag: 0x81, value: key))
        if let chainCode { fields.append(TLV(tag: 0x82, value: chainCode)) }
        let data = TLV(tag: 0xA1, children: fields).encoded
        return CommandAPDU(ins: 0xD0, p1: chainCode == nil ? 0x01 : 0x02, data: data)
    }

    /// LOAD KEY P1 `02` from an extended private key (its key, public key and chain code).
    public static func loadKey(extendedKey: ExtendedKey) throws(CardError) -> CommandAPDU {
        guard let privateKey = extendedKey.privateKey else {
            throw .invalidInput(command: .loadKey, reason: "the card needs an extended private key, got a public one")
        }
        return try loadKey(privateKey: privateKey, publicKey: extendedKey.publicKey, chainCode: extendedKey.chainCode)
    }

    /// LOAD KEY P1 `03`: a BIP39 seed (64 bytes; 3.2 accepts 16–64) (§10.5).
    public static func loadKey(seed: Secret) throws(CardError) -> CommandAPDU {
        guard (16...64).contains(seed.count) else {
            throw .invalidInput(command: .loadKey, reason: "a seed must be 16 to 64 bytes, got \(seed.count)")
        }
        return CommandAPDU(ins: 0xD0, p1: 0x03, data: bytes(seed))
    }

    /// DERIVE KEY: `80 D1 <source> 00 <path>` (§10.6).
    public static func deriveKey(_ path: CardKeyPath) throws(CardError) -> CommandAPDU {
        if path.source == .pinless, !path.isEmpty {
            throw .invalidInput(command: .deriveKey, reason: "the PIN-less source takes no path")
        }
        return CommandAPDU(ins: 0xD1, p1: path.source.rawValue, data: path.bytes)
    }

    /// GENERATE MNEMONIC: P1 = checksum bits, 4…8 for 12…24 words (§10.7).
    public static func generateMnemonic(wordCount: Mnemonic.WordCount = .twelve) -> CommandAPDU {
        CommandAPDU(ins: 0xD2, p1: UInt8(wordCount.checksumBits))
    }

    /// REMOVE KEY: `80 D3 00 00` (§10.8).
    public static func removeKey() -> CommandAPDU { CommandAPDU(ins: 0xD3) }

    /// GENERATE KEY: `80 D4 00 00` (§10.8).
    public static func generateKey() -> CommandAPDU { CommandAPDU(ins: 0xD4) }

    /// SIGN: `80 C0 P1 00 <hash 32> [path]` (§10.9). P2 is always `00` (ECDSA): later
    /// 3.2 builds and 4.0 read it as the algorithm.
    public static func sign(digest: [UInt8], option: SignOption = .current) throws(CardError) -> CommandAPDU {
        guard digest.count == 32 else {
            throw .invalidInput(command: .sign, reason: "the digest must be 32 bytes, got \(digest.count)")
        }
        let p1: UInt8
        var data = digest
        switch option {
        case .current:
            p1 = 0x00
        case .derive(let path):
            p1 = 0x01 | (try sourceBits(path, command: .sign))
            data += path.bytes
        case .deriveAndMakeCurrent(let path):
            p1 = 0x02 | (try sourceBits(path, command: .sign))
            data += path.bytes
        case .pinless:
            p1 = 0x03
        }
        return CommandAPDU(ins: 0xC0, p1: p1, p2: 0x00, data: data)
    }

    /// INIT on a 4.0 card: `80 FE 00 00 1A <payload>`, sent inside the secure channel (§14.4).
    public static func initializeV2(_ parameters: InitParametersV2) -> CommandAPDU {
        CommandAPDU(ins: 0xFE, data: parameters.payload())
    }

    /// SIGN on a 4.0 card: `80 C0 01 P2 <hash 32> [tweak 32] <path>`, the path always absolute
    /// (empty = the master), P2 the algorithm (§14.6).
    public static func signV2(
        digest: [UInt8], path: DerivationPath, algorithm: SignAlgorithm
    ) throws(CardError) -> CommandAPDU {
        guard digest.count == 32 else {
            throw .invalidInput(command: .sign, reason: "the digest must be 32 bytes, got \(digest.count)")
        }
        let bytes = try pathBytes(path, command: .sign)
        switch algorithm {
        case .ecdsa:
            return CommandAPDU(ins: 0xC0, p1: 0x01, p2: 0x00, data: digest + bytes)
        case .schnorr(let tweak):
            guard tweak.count == 32 else {
                throw .invalidInput(command: .sign, reason: "the Schnorr tweak must be 32 bytes, got \(tweak.count)")
            }
            return CommandAPDU(ins: 0xC0, p1: 0x01, p2: 0x03, data: digest + tweak + bytes)
        }
    }

    /// EXPORT KEY on a 4.0 card: `80 C2 00 <kind> <path>`, the path absolute (§14.7).
    public static func exportKeyV2(path: DerivationPath, kind: ExportKind) throws(CardError) -> CommandAPDU {
        CommandAPDU(ins: 0xC2, p1: 0x00, p2: kind.rawValue, data: try pathBytes(path, command: .exportKey))
    }

    /// An absolute path as 4-byte big-endian indexes, at most 10.
    static func pathBytes(_ path: DerivationPath, command: CardCommand) throws(CardError) -> [UInt8] {
        guard path.components.count <= CardKeyPath.maximumDepth else {
            throw .keyPathTooDeep(depth: path.components.count)
        }
        return path.components.flatMap { c in
            (0..<4).reversed().map { UInt8(truncatingIfNeeded: c.raw >> (8 * UInt32($0))) }
        }
    }

    /// SET PINLESS PATH: an absolute path, or nil to remove it (§10.10).
    public static func setPinlessPath(_ path: CardKeyPath?) throws(CardError) -> CommandAPDU {
        if let path, path.source != .master {
            throw .invalidInput(
                command: .setPinlessPath,
                reason: "the PIN-less path must be absolute (m/…), got \(path)")
        }
        return CommandAPDU(ins: 0xC1, data: path?.bytes ?? [])
    }

    /// EXPORT KEY: `80 C2 <option | source> <kind> [path]` (§10.11).
    public static func exportKey(_ option: ExportOption = .current, kind: ExportKind) throws(CardError) -> CommandAPDU {
        switch option {
        case .current:
            return CommandAPDU(ins: 0xC2, p1: 0x00, p2: kind.rawValue)
        case .derive(let path):
            return CommandAPDU(
                ins: 0xC2, p1: 0x01 | (try sourceBits(path, command: .exportKey)), p2: kind.rawValue,
                data: path.bytes)
        case .deriveAndMakeCurrent(let path):
            return CommandAPDU(
                ins: 0xC2, p1: 0x02 | (try sourceBits(path, command: .exportKey)), p2: kind.rawValue,
                data: path.bytes)
        }
    }

    /// GET DATA: `80 CA <slot> <offset / 4>` (§10.12); the offset is a 4.0 card's NDEF segment (§14.11).
    public static func getData(_ slot: DataSlot = .publicData, offset: Int = 0) -> CommandAPDU {
        CommandAPDU(ins: 0xCA, p1: slot.rawValue, p2: UInt8(offset / 4))
    }

    /// STORE DATA: `80 E2 <slot> <P2> <data>`; P2 is the 3.2 NDEF offset / 4, else `00` (§10.12).
    public static func storeData(
        _ data: [UInt8], slot: DataSlot = .publicData,
        p2: UInt8 = 0
    ) throws(CardError) -> CommandAPDU {
        guard data.count <= SecureChannel.maximumPayload else {
            throw .invalidInput(
                command: .storeData,
                reason: "at most \(SecureChannel.maximumPayload) bytes fit, got \(data.count)")
        }
        return CommandAPDU(ins: 0xE2, p1: slot.rawValue, p2: p2, data: data)
    }

    /// FACTORY RESET: `80 FD AA 55` (§10.13).
    public static func factoryReset() -> CommandAPDU { CommandAPDU(ins: 0xFD, p1: 0xAA, p2: 0x55) }

    // MARK: - Response parsers

    /// The 32-byte key UID answered by LOAD KEY and GENERATE KEY.
    public static func keyUID(_ data: [UInt8], command: CardCommand) throws(CardError) -> [UInt8] {
        guard data.count == 32 else {
            throw .malformedResponse(command: command, detail: "expected a 32-byte key UID, got \(data.count) bytes")
        }
        return data
    }

    /// The current key path of GET STATUS P1=01, as an absolute path.
    public static func keyPath(statusResponse data: [UInt8]) throws(CardError) -> DerivationPath {
        do {
            return try CardKeyPath(source: .master, bytes: data).derivationPath
        } catch {
            throw .malformedResponse(command: .getStatus, detail: error.description)
        }
    }

    /// The mnemonic of GENERATE MNEMONIC's answer: one big-endian 16-bit English word index
    /// per word (§10.7).
    ///
    /// - Throws: `malformedResponse` for an odd length, an index ≥ 2048, a word count BIP39
    ///   does not allow or a wrong checksum.
    public static func mnemonic(indexes data: [UInt8]) throws(CardError) -> Mnemonic {
        guard data.count % 2 == 0 else {
            throw .malformedResponse(
                command: .generateMnemonic,
                detail: "word indexes are 2 bytes each, got \(data.count) bytes")
        }
        let list = Wordlist(.english)
        var phrase = [UInt8]()
        defer { Secret.wipe(&phrase) }
        var i = 0
        while i < data.count {
            let index = Int(data[i]) << 8 | Int(data[i + 1])
            guard index < Wordlist.size else {
                throw .malformedResponse(command: .generateMnemonic, detail: "word index \(index) is not below 2048")
            }
            if i > 0 { phrase.append(0x20) }
            phrase += Array(list[index].utf8)
            i += 2
        }
        do {
            return try Mnemonic(phrase: Secret(bytes: phrase), language: .english)
        } catch {
            throw .malformedResponse(command: .generateMnemonic, detail: error.description)
        }
    }

    // MARK: - Helpers

    /// Checks that `value` is `count` ASCII digits, naming `what` (never the value). Public so
    /// the console can refuse a PIN of the wrong form before it looks at the tries left.
    public static func checkDigits(_ value: Secret, count: Int, what: String, command: CardCommand) throws(CardError) {
        let ok = value.withUnsafeBytes { b in b.count == count && b.allSatisfy { (0x30...0x39).contains($0) } }
        guard ok else { throw .invalidInput(command: command, reason: "the \(what) must be \(count) digits") }
    }

    private static func sourceBits(_ path: CardKeyPath, command: CardCommand) throws(CardError) -> UInt8 {
        guard path.source != .pinless else {
            throw .invalidInput(command: command, reason: "the PIN-less source cannot be combined with a path")
        }
        return path.source.rawValue
    }

    /// The bytes of a secret, for an APDU that has to carry them.
    static func bytes(_ secret: Secret) -> [UInt8] { secret.withUnsafeBytes { Array($0) } }

    /// SHA-256(secret ‖ data).
    static func hashSecret(_ secret: Secret, then data: [UInt8]) -> [UInt8] {
        var input = bytes(secret) + data
        defer { Secret.wipe(&input) }
        return Hash.sha256(input)
    }
}
