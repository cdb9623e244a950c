import WalletCrypto

// MARK: - Session keys

/// The keys of one Secure Channel V2 session (Keycard 4.0; docs/keycard-protocol.md §14.2).
///
/// HKDF-SHA256 with one output block: `PRK = HMAC(salt, X)`, `OKM = HMAC(PRK, "sc_v2_ccm" ‖ 01)`,
/// where X is the raw ECDH X coordinate of the two ephemeral keys and the salt the client's 32
/// random bytes. `OKM[0..<16]` encrypts host → card, `OKM[16..<32]` card → host, both AES-128.
public struct SessionKeysV2: Sendable, CustomStringConvertible {
    /// The transcript label and HKDF info prefix.
    public static let label: [UInt8] = Array("sc_v2_ccm".utf8)

    /// AES-128 key of commands (host to card).
    public let hostToCard: Secret
    /// AES-128 key of answers (card to host).
    public let cardToHost: Secret

    /// Keys given directly (tests).
    public init(hostToCard: Secret, cardToHost: Secret) throws(CardError) {
        guard hostToCard.count == 16, cardToHost.count == 16 else {
            throw .invalidInput(command: .openSecureChannel, reason: "Secure Channel V2 keys are 16 bytes each")
        }
        self.hostToCard = hostToCard
        self.cardToHost = cardToHost
    }

    /// The session keys from the ECDH X coordinate and the client's salt.
    public static func derive(sharedX: Secret, salt: [UInt8]) -> SessionKeysV2 {
        let prk = Hash.hmacSHA256(key: Secret(bytes: salt), data: sharedX)
        let okm = Hash.hmacSHA256(key: prk, data: Secret(bytes: label + [0x01]))
        return okm.withUnsafeBytes { b in
            try! SessionKeysV2(hostToCard: Secret(bytes: b[0..<16]), cardToHost: Secret(bytes: b[16..<32]))
        }
    }

    /// The digest the card signs with its identity key: SHA-256(label ‖ salt ‖ client key ‖ card key),
    /// both keys uncompressed (65 bytes).
    public static func transcriptDigest(salt: [UInt8], clientKey: [UInt8], cardKey: [UInt8]) -> [UInt8] {
        Hash.sha256(label + salt + clientKey + cardKey)
    }

    public var description: String { "<secure-channel V2 session keys>" }
}

// MARK: - Secure channel V2

/// Secure Channel V2 (Keycard 4.0; docs/keycard-protocol.md §14.3): every command travels whole
/// (CLA INS P1 P2 Lc data, Lc always present) inside SECURED APDU `80 18 00 00`, sealed with
/// AES-128-CCM (8-byte tag, 13-byte nonce, no associated data); the answer is the sealed inner
/// data ‖ SW under the other key. The nonce is a counter both sides keep, the same for a command
/// and its answer, and one more for each round trip: nothing of it travels.
///
/// Behaviour the card asks for: a plain `69 82` (the card closed the session: a tag or length
/// failure) closes this side and throws `channelClosed`; any other plain answer (`69 85`, no
/// session; or a word no session produces) and a `90 00` too short to hold a tag close it and
/// throw `unprotectedAnswer` with the status word the card sent; a wrong tag on an answer closes
/// and throws `responseMACMismatch`; a transport error closes (whether the card counted the round
/// trip is unknown).
public final class SecureChannelV2: APDUChannel {
    /// Largest inner APDU: 247 bytes (header 5 + data 242), so the sealed command fits Lc 255.
    public static let maximumInnerAPDU = 247
    /// Largest inner command data.
    public static let maximumPayload = maximumInnerAPDU - 5
    /// The tag length.
    public static let tagLength = 8

    /// The channel the SECURED APDUs travel through.
    public let inner: APDUChannel

    private var keys: SessionKeysV2?
    /// The card trace, when one is on (`KeycardCommandSet.tracer`).
    weak var tracer: CardTracer?
    /// The counter of the next round trip.
    public private(set) var counter: UInt64 = 0

    /// A closed channel over `inner`.
    public init(wrapping inner: APDUChannel) {
        self.inner = inner
    }

    /// True while session keys are installed.
    public var isOpen: Bool { keys != nil }

    /// Installs session keys; the next command uses nonce 0.
    public func open(with keys: SessionKeysV2) {
        self.keys = keys
        counter = 0
    }

    /// Forgets the keys.
    public func close() {
        keys = nil
        counter = 0
    }

    /// The 13-byte nonce of round trip `n`: n big-endian.
    public static func nonce(_ n: UInt64) -> [UInt8] {
        [UInt8](repeating: 0, count: 5) + (0..<8).reversed().map { UInt8(truncatingIfNeeded: n >> (8 * UInt64($0))) }
    }

    /// The inner APDU as the card reads it: the header, Lc (also when 0), the data; never Le.
    public static func innerBytes(_ command: CommandAPDU) -> [UInt8] {
        [command.cla, command.ins, command.p1, command.p2, UInt8(truncatingIfNeeded: command.data.count)] + command.data
    }

    // MARK: APDUChannel

    public func send(_ command: CommandAPDU) throws(CardError) -> ResponseAPDU {
        let name = CardCommand(command)
        let wrapped = try wrap(command)
        let outer: ResponseAPDU
        do {
            outer = try inner.send(wrapped)
        } catch {
            close()
            throw error
        }
        return try unwrap(outer, command: name)
    }

    /// The SECURED APDU carrying `command` under the current nonce.
    ///
    /// - Throws: `secureChannelNotOpen` when closed; `invalidInput` past 242 data bytes.
    public func wrap(_ command: CommandAPDU) throws(CardError) -> CommandAPDU {
        let name = CardCommand(command)
        guard let keys else { throw .secureChannelNotOpen(command: name) }
        guard command.data.count <= Self.maximumPayload else {
            throw .invalidInput(
                command: name,
                reason:
                    "the data is \(command.data.count) bytes; at most \(Self.maximumPayload) fit in a secure-channel command"
            )
        }
        var plain = Self.innerBytes(command)
        defer { Secret.wipe(&plain) }
        let sealed: [UInt8]
        do {
            sealed = try AESCipher.ccmSeal(
                plain, key: keys.hostToCard, nonce: Self.nonce(counter), tagLength: Self.tagLength)
        } catch {
            throw .cryptoFailure(error)
        }
        if tracer != nil { traceWrap(command, sealed: sealed) }
        return CommandAPDU(cla: 0x80, ins: 0x18, p1: 0, p2: 0, data: sealed, le: nil)
    }

    /// The inner answer of the last wrapped command (or of an outer command the card answered
    /// inside the session, as it does a stray INS while a session is open); advances the counter.
    public func unwrap(_ response: ResponseAPDU, command: CardCommand) throws(CardError) -> ResponseAPDU {
        guard let keys else { throw .secureChannelNotOpen(command: command) }
        guard response.sw == StatusWord.ok, response.data.count >= Self.tagLength + 2 else {
            // A plain answer (§14.3): the card closed the session (`69 82`), or answered something
            // no session seals — reported as the status word it is, never as a MAC failure.
            close()
            if response.sw == StatusWord.securityStatusNotSatisfied { throw .channelClosed(command: command) }
            throw .unprotectedAnswer(command: command, sw: response.sw, dataCount: response.data.count)
        }
        var plain: [UInt8]
        do {
            plain = try AESCipher.ccmOpen(
                response.data, key: keys.cardToHost, nonce: Self.nonce(counter), tagLength: Self.tagLength)
        } catch .authenticationFailed {
            close()
            throw .responseMACMismatch(command: command)
        } catch {
            close()
            throw .cryptoFailure(error)
        }
        counter += 1
        if tracer != nil { traceUnwrap(plainCount: plain.count) }
        defer { Secret.wipe(&plain) }
        let n = plain.count
        return ResponseAPDU(data: Array(plain[..<(n - 2)]), sw1: plain[n - 2], sw2: plain[n - 1])
    }
}
