import WalletCrypto
import WalletMPC

/// The authenticated, encrypted channel two parties speak over (docs/two-party-protocol.md §7):
/// both send a hello (identity key, ephemeral X25519 key, nonce); each signs the handshake
/// transcript with its Ed25519 identity; libsodium's key exchange gives one key per direction, and
/// each direction is one `crypto_secretstream_xchacha20poly1305` stream (order, replay and
/// truncation protected inside the connection). Every message: 4-byte big-endian length ‖ bytes.
public final class SecureChannel: @unchecked Sendable {
    public static let maxMessage = 1 << 20
    /// The other party's identity public key (checked against the pinned one, when given).
    public let peerIdentity: [UInt8]
    let socket: SocketStream
    private let push: SecretStream
    private let pull: SecretStream
    /// Seconds allowed for each message.
    public var timeout: Int

    private init(socket: SocketStream, peerIdentity: [UInt8], push: SecretStream, pull: SecretStream, timeout: Int) {
        self.socket = socket
        self.peerIdentity = peerIdentity
        self.push = push
        self.pull = pull
        self.timeout = timeout
    }

    static func sendRaw(_ socket: SocketStream, _ bytes: [UInt8], what: String) throws(MPCLinkError) {
        let n = UInt32(bytes.count)
        try socket.write(
            [UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + bytes, what: what)
    }

    /// One length-prefixed message, whole within `seconds` (or by `deadline` when given).
    static func receiveRaw(
        _ socket: SocketStream, max: Int, seconds: Int, deadline: ContinuousClock.Instant? = nil,
        what: String
    ) throws(MPCLinkError) -> [UInt8] {
        let until = deadline ?? ContinuousClock.now + .seconds(seconds)
        let h = try socket.read(4, until: until, seconds: seconds, what: what)
        let n = Int(h[0]) << 24 | Int(h[1]) << 16 | Int(h[2]) << 8 | Int(h[3])
        guard n <= max else { throw .tooLarge(n) }
        return try socket.read(n, until: until, seconds: seconds, what: what)
    }

    /// Runs the handshake on a connected socket. `initiator`: the side that connected.
    /// `pinned`: the identity the peer must have (nil: any, for a first pairing — the caller shows
    /// both fingerprints and pins the peer's).
    public static func open(
        _ socket: SocketStream, identity: PartyIdentity, initiator: Bool, pinned: [UInt8]?,
        timeout: Int = 30
    ) throws(MPCLinkError) -> SecureChannel {
        // The whole handshake within `timeout`, however the peer trickles its bytes.
        let deadline = ContinuousClock.now + .seconds(timeout)
        let (ephPublic, ephSecret) = KeyExchange.keyPair()
        let nonce = SystemRandom().bytes(32)
        try sendRaw(socket, [1] + identity.publicKey + ephPublic + nonce, what: "the handshake")
        let hello = try receiveRaw(socket, max: 97, seconds: timeout, deadline: deadline, what: "the handshake")
        guard hello.count == 97, hello[0] == 1 else { throw .handshake("the peer's hello is not kcs-2pecdsa/1") }
        let peerIdentity = Array(hello[1..<33]), peerEph = Array(hello[33..<65]), peerNonce = Array(hello[65..<97])
        if let pinned, pinned != peerIdentity {
            throw .untrustedPeer(
                fingerprint: PartyIdentity.fingerprint(of: peerIdentity),
                expected: PartyIdentity.fingerprint(of: pinned))
        }
        // Keys: rx, tx for this side (libsodium's client = the initiator).
        guard
            let (rx, tx) = KeyExchange.sessionKeys(
                client: initiator, publicKey: ephPublic, secretKey: ephSecret, peer: peerEph)
        else {
            throw .handshake("the peer's ephemeral key is unusable")
        }
        let (eI, eR, nI, nR, iI, iR) =
            initiator
            ? (ephPublic, peerEph, nonce, peerNonce, identity.publicKey, peerIdentity)
            : (peerEph, ephPublic, peerNonce, nonce, peerIdentity, identity.publicKey)
        func transcript(_ role: String) -> [UInt8] {
            ChannelTranscript.hash(
                role: role, ephemeralI: eI, ephemeralR: eR, nonceI: nI, nonceR: nR, identityI: iI, identityR: iR)
        }
        let (push, header) = SecretStream.sender(key: tx)
        let mine = initiator ? "initiator" : "responder", theirs = initiator ? "responder" : "initiator"
        try sendRaw(socket, identity.sign(transcript(mine)) + header, what: "the handshake")
        let auth = try receiveRaw(
            socket, max: 64 + header.count, seconds: timeout, deadline: deadline, what: "the handshake")
        guard auth.count == 64 + header.count else { throw .handshake("the peer's signature message is malformed") }
        guard PartyIdentity.verify(Array(auth[0..<64]), transcript(theirs), publicKey: peerIdentity) else {
            throw .handshake("the peer's signature over the handshake does not verify")
        }
        guard let pull = SecretStream.receiver(key: rx, header: Array(auth[64...])) else {
            throw .handshake("the peer's stream header is invalid")
        }
        return SecureChannel(socket: socket, peerIdentity: peerIdentity, push: push, pull: pull, timeout: timeout)
    }

    /// Sends one message.
    public func send(_ message: [UInt8]) throws(MPCLinkError) {
        guard message.count <= Self.maxMessage else { throw .tooLarge(message.count) }
        try Self.sendRaw(socket, push.seal(message), what: "sending")
    }

    /// Receives one message (waiting at most `seconds`, else the channel's timeout).
    public func receive(seconds: Int? = nil, what: String = "the next message") throws(MPCLinkError) -> [UInt8] {
        let sealed = try Self.receiveRaw(
            socket, max: Self.maxMessage + SecretStream.tagBytes, seconds: seconds ?? timeout, what: what)
        guard let out = pull.open(sealed) else {
            throw .handshake("a message failed authentication (changed, replayed or out of order)")
        }
        return out
    }

    /// Sends a frame.
    public func send(_ frame: Frame) throws(MPCLinkError) { try send(frame.json) }

    /// Receives a frame; `MPCError.badFrame` for one that does not parse.
    public func receiveFrame(seconds: Int? = nil, what: String = "the next message") throws -> Frame {
        try Frame(json: try receive(seconds: seconds, what: what))
    }

    /// Closes the connection.
    public func close() { socket.shutdownNow() }
}

/// Runs one party of a session over a channel: the initiator sends first; every frame received
/// goes to `party`, every frame it returns goes out, until it is done; a failure on this side
/// sends an `abort` frame naming the check.
public enum ChannelRun {
    /// `first`: a frame already received (a server that read it to choose the party).
    /// `beforeSending`: called with each frame's step before it leaves (progress; a co-signer
    /// stores its share before its confirmation goes out).
    public static func run(
        _ party: TwoPartyStep, over channel: SecureChannel, initiator: Bool, first: Frame? = nil,
        firstTimeout: Int? = nil, beforeSending: ((Int) throws -> Void)? = nil
    ) throws {
        var waited = first != nil
        do {
            var outgoing = initiator ? try party.next(nil) : try first.map { try party.next($0) } ?? nil
            while true {
                if let f = outgoing {
                    try beforeSending?(f.step)
                    try channel.send(f)
                }
                if party.isDone { return }
                let incoming = try channel.receiveFrame(seconds: waited ? nil : firstTimeout)
                waited = true
                outgoing = try party.next(incoming)
            }
        } catch let e as MPCError {
            if case .peerAborted = e {} else { try? channel.send(party.abortFrame(for: e)) }
            throw e
        }
    }
}
