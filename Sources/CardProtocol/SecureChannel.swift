import WalletCrypto

// MARK: - Session keys

/// The keys of one Secure Channel V1 session (docs/keycard-protocol.md §9.2).
///
/// `K = SHA-512(ECDH-X ‖ pairing key ‖ salt)`; the encryption key is `K[0..<32]`, the MAC
/// key `K[32..<64]`, both AES-256; the first IV comes from the OPEN SECURE CHANNEL answer.
/// Both keys are `Secret`s and never print.
public struct SessionKeys: Sendable, CustomStringConvertible {
    /// AES-256 key for AES-CBC encryption of payloads.
    public let encryptionKey: Secret
    /// AES-256 key for the CBC-MAC.
    public let macKey: Secret
    /// IV0, the IV for the first protected command (MUTUALLY AUTHENTICATE).
    public let iv: [UInt8]

    /// Keys given directly (tests, or a session restored by the caller).
    ///
    /// - Throws: `CardError.invalidInput` unless both keys are 32 bytes and the IV 16.
    public init(encryptionKey: Secret, macKey: Secret, iv: [UInt8]) throws(CardError) {
        guard encryptionKey.count == 32, macKey.count == 32, iv.count == 16 else {
            throw .invalidInput(
                command: .openSecureChannel,
                reason: "session keys must be 32 bytes each and the IV 16 bytes")
        }
        self.encryptionKey = encryptionKey
        self.macKey = macKey
        self.iv = iv
    }

    /// Derives the session keys (§9.2) from the ECDH X coordinate, the pairing key and the
    /// 48-byte OPEN SECURE CHANNEL answer (salt 32 ‖ IV 16).
    ///
    /// - Throws: `CardError.malformedResponse` when the answer is not 48 bytes.
    public static func derive(
        sharedSecret: Secret, pairingKey: Secret,
        cardResponse: [UInt8]
    ) throws(CardError) -> SessionKeys {
        guard cardResponse.count == 48 else {
            throw .malformedResponse(
                command: .openSecureChannel,
                detail: "expected salt (32) ‖ IV (16) = 48 bytes, got \(cardResponse.count)")
        }
        var input = [UInt8]()
        input.reserveCapacity(96)
        sharedSecret.withUnsafeBytes { input += $0 }
        pairingKey.withUnsafeBytes { input += $0 }
        input += cardResponse[0..<32]
        var k = Hash.sha512(input)
        Secret.wipe(&input)
        defer { Secret.wipe(&k) }
        return try SessionKeys(
            encryptionKey: Secret(bytes: k[0..<32]), macKey: Secret(bytes: k[32..<64]),
            iv: Array(cardResponse[32..<48]))
    }

    public var description: String { "<secure-channel session keys>" }
}

// MARK: - Secure channel

/// Secure Channel V1 (docs/keycard-protocol.md §9): wraps every command in AES-256-CBC with an
/// AES-CBC-MAC, checks and decrypts every answer, and keeps the IV chain of §9.7.
///
/// It adopts `APDUChannel` and wraps another channel (docs/habits.md §7): callers send
/// plaintext commands and get plaintext answers with the *inner* status word.
///
/// Behaviour the spec asks for:
/// - plain answers while open (§9.8): `69 82` closes the channel and throws
///   `channelClosed`; any other plain status word (`69 85`, `6F 0X`, FACTORY RESET's
///   `90 00`) is returned as is;
/// - the response MAC is checked in constant time before anything is decrypted; a mismatch
///   closes the channel;
/// - the stale-IV answers of §9.9 (errors raised before the card read the payload) are
///   decrypted with the previous IV when the command MAC gives invalid padding.
///
/// Deterministic: keys and IV come only from `open(with:)`.
public final class SecureChannel: APDUChannel {
    /// Largest plaintext command payload: 223 bytes → 224 encrypted → Lc 240 (§9.10).
    public static let maximumPayload = 223

    /// The channel the wrapped APDUs travel through.
    public let inner: APDUChannel

    private var keys: SessionKeys?
    /// The card trace, when one is on (`KeycardCommandSet.tracer`).
    weak var tracer: CardTracer?
    /// True until the first command after `open` is wrapped (its IV is IV0).
    private var firstCommand = false
    /// After `wrap`: the command MAC (the IV for decrypting the answer). After `unwrap`: the
    /// response MAC (the IV for the next command).
    private var iv: [UInt8] = []
    /// The IV the last command was encrypted with (what a stale-IV answer uses, §9.9).
    private var previousIV: [UInt8] = []

    /// A closed channel over `inner`.
    public init(wrapping inner: APDUChannel) {
        self.inner = inner
    }

    /// True while session keys are installed.
    public var isOpen: Bool { keys != nil }

    /// The current position of the IV chain (empty when closed); exposed for tests.
    public var currentIV: [UInt8] { iv }

    /// Installs session keys; the next command is encrypted with `keys.iv`.
    public func open(with keys: SessionKeys) {
        self.keys = keys
        iv = keys.iv
        previousIV = keys.iv
        firstCommand = true
    }

    /// Forgets the keys. The card forgets its side on SELECT, reset or a MAC failure.
    public func close() {
        keys = nil
        iv = []
        previousIV = []
    }

    // MARK: APDUChannel

    public func send(_ command: CommandAPDU) throws(CardError) -> ResponseAPDU {
        let name = CardCommand(command)
        let wrapped = try wrap(command)
        let outer: ResponseAPDU
        do {
            outer = try inner.send(wrapped)
        } catch {
            // Whether the card saw the command is unknown, so is the IV chain.
            close()
            throw error
        }
        if name == .factoryReset && outer.data.isEmpty {
            // A FACTORY RESET that ran is answered plain 9000: the card has forgotten the session
            // (§9.8, §10.13). One refused before its payload is read (wrong P1/P2) comes back
            // wrapped with the stale IV (§9.9) and is unwrapped like any other answer.
            close()
            return outer
        }
        return try unwrap(outer, command: name)
    }

    // MARK: Wrapping

    /// Wraps a plaintext command (§9.4) and advances the IV to the command MAC.
    ///
    /// - Throws: `secureChannelNotOpen` when closed; `invalidInput` for more than 223 bytes.
    public func wrap(_ command: CommandAPDU) throws(CardError) -> CommandAPDU {
        let name = CardCommand(command)
        guard let keys else { throw .secureChannelNotOpen(command: name) }
        guard command.data.count <= Self.maximumPayload else {
            throw .invalidInput(
                command: name,
                reason: "the data is \(command.data.count) bytes; at most "
                    + "\(Self.maximumPayload) fit in a secure-channel command")
        }
        let ciphertext = try Self.encrypt(command.data, key: keys.encryptionKey, iv: iv)
        let lc = UInt8(16 + ciphertext.count)
        let meta = [command.cla, command.ins, command.p1, command.p2, lc] + [UInt8](repeating: 0, count: 11)
        let mac = try Self.mac(meta + ciphertext, key: keys.macKey)
        if tracer != nil { traceWrap(command, iv: iv, ciphertext: ciphertext, lc: lc, mac: mac, first: firstCommand) }
        firstCommand = false
        previousIV = iv
        iv = mac
        return CommandAPDU(
            cla: command.cla, ins: command.ins, p1: command.p1, p2: command.p2,
            data: mac + ciphertext, le: nil)
    }

    /// Checks and decrypts an answer to the last wrapped command (§9.6).
    ///
    /// Plain answers (§9.8) come back unchanged, except `69 82`, which closes the channel
    /// and throws `channelClosed`. A response MAC mismatch closes the channel and throws
    /// `responseMACMismatch`.
    public func unwrap(_ response: ResponseAPDU, command: CardCommand) throws(CardError) -> ResponseAPDU {
        guard let keys else { throw .secureChannelNotOpen(command: command) }
        if tracer != nil, response.sw != StatusWord.ok || response.data.isEmpty { tracePlain(response.sw) }
        if response.sw == StatusWord.securityStatusNotSatisfied {
            close()
            throw .channelClosed(command: command)
        }
        if response.sw != StatusWord.ok || response.data.isEmpty { return response }

        let data = response.data
        guard data.count >= 32, data.count % 16 == 0 else {
            close()
            throw .malformedResponse(
                command: command,
                detail: "a protected answer is a 16-byte MAC and whole "
                    + "16-byte blocks, got \(data.count) bytes")
        }
        let receivedMAC = Array(data[0..<16])
        let ciphertext = Array(data[16...])
        let meta = [UInt8(data.count & 0xff)] + [UInt8](repeating: 0, count: 15)
        let expectedMAC = try Self.mac(meta + ciphertext, key: keys.macKey)
        guard ConstantTime.equal(receivedMAC, expectedMAC) else {
            close()
            throw .responseMACMismatch(command: command)
        }

        // §9.9: an error raised before the card read the payload is encrypted with the IV the
        // command used. Try the command MAC first; fall back when that gives no valid answer.
        let primary = try Self.decryptAnswer(ciphertext, key: keys.encryptionKey, iv: iv)
        var plaintext: [UInt8]
        var stale = false
        if let primary, Self.isPlausible(primary) {
            plaintext = primary
        } else if let old = try Self.decryptAnswer(ciphertext, key: keys.encryptionKey, iv: previousIV),
            Self.isPlausible(old)
        {
            plaintext = old
            stale = true
        } else if let primary {
            plaintext = primary
        } else {
            close()
            throw .malformedResponse(command: command, detail: "the protected answer has invalid padding")
        }
        iv = receivedMAC
        previousIV = receivedMAC
        if tracer != nil {
            traceUnwrap(received: receivedMAC, length: data.count, plainCount: plaintext.count, stale: stale)
        }
        defer { Secret.wipe(&plaintext) }
        let n = plaintext.count
        return ResponseAPDU(data: Array(plaintext[..<(n - 2)]), sw1: plaintext[n - 2], sw2: plaintext[n - 1])
    }

    /// Decrypts and unpads; nil when the padding is invalid or no status word fits.
    private static func decryptAnswer(_ ciphertext: [UInt8], key: Secret, iv: [UInt8]) throws(CardError) -> [UInt8]? {
        guard let plain = try decrypt(ciphertext, key: key, iv: iv), plain.count >= 2 else { return nil }
        return plain
    }

    /// A status word the applet can produce: `90 00` or `6X XX`.
    private static func isPlausible(_ plain: [UInt8]) -> Bool {
        let sw1 = plain[plain.count - 2]
        let sw2 = plain[plain.count - 1]
        return (sw1 == 0x90 && sw2 == 0x00) || (0x62...0x6F).contains(sw1)
    }

    // MARK: - Primitives (§6)

    /// ISO/IEC 9797-1 method 2: `80`, then `00`s up to a multiple of `blockSize`; always
    /// adds at least one byte.
    public static func pad(_ data: [UInt8], blockSize: Int = 16) -> [UInt8] {
        var out = data
        out.append(0x80)
        while out.count % blockSize != 0 { out.append(0) }
        return out
    }

    /// Removes method-2 padding: trailing `00`s, then a mandatory `80`, all within the last
    /// block. Nil when the padding is invalid.
    public static func unpad(_ data: [UInt8], blockSize: Int = 16) -> [UInt8]? {
        var i = data.count - 1
        while i >= 0, data[i] == 0x00 { i -= 1 }
        guard i >= 0, data[i] == 0x80, data.count - i <= blockSize else { return nil }
        return Array(data[..<i])
    }

    /// AES-256-CBC of `pad(data)` (§6).
    public static func encrypt(_ data: [UInt8], key: Secret, iv: [UInt8]) throws(CardError) -> [UInt8] {
        var padded = pad(data)
        defer { Secret.wipe(&padded) }
        do { return try AESCipher.cbcEncrypt(padded, key: key, iv: iv) } catch { throw .cryptoFailure(error) }
    }

    /// AES-256-CBC decryption followed by `unpad`; nil when the data is not whole blocks or
    /// the padding is invalid (which is how a wrong key or IV usually shows).
    public static func decrypt(_ data: [UInt8], key: Secret, iv: [UInt8]) throws(CardError) -> [UInt8]? {
        guard data.count % 16 == 0, !data.isEmpty, iv.count == 16 else { return nil }
        return unpad(try decryptRaw(data, key: key, iv: iv))
    }

    private static func decryptRaw(_ data: [UInt8], key: Secret, iv: [UInt8]) throws(CardError) -> [UInt8] {
        do { return try AESCipher.cbcDecrypt(data, key: key, iv: iv) } catch { throw .cryptoFailure(error) }
    }

    /// AES-CBC-MAC: zero IV, no padding (the input is block-aligned), last cipher block (§6).
    public static func mac(_ data: [UInt8], key: Secret) throws(CardError) -> [UInt8] {
        precondition(data.count % 16 == 0 && !data.isEmpty, "CBC-MAC input must be whole blocks")
        do {
            let blocks = try AESCipher.cbcEncrypt(data, key: key, iv: [UInt8](repeating: 0, count: 16))
            return Array(blocks.suffix(16))
        } catch {
            throw .cryptoFailure(error)
        }
    }
}
