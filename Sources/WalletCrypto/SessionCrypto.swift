internal import CSodium

// libsodium's signatures, key exchange and secret streams, wrapped once for the two-party
// channel (docs/two-party-protocol.md §7): Ed25519 identities, X25519 session keys, and one
// XChaCha20-Poly1305 secret stream per direction.

/// Ed25519 (libsodium's crypto_sign).
public enum Ed25519 {
    /// A fresh key pair: the 32-byte public key and the 64-byte secret key (seed ‖ public key).
    public static func keyPair() -> (publicKey: [UInt8], secretKey: Secret) {
        _ = sodium_init()
        var pk = [UInt8](repeating: 0, count: 32)
        let sk = Secret(count: 64) { buf in _ = crypto_sign_keypair(&pk, buf.bindMemory(to: UInt8.self).baseAddress!) }
        return (pk, sk)
    }

    /// The 64-byte detached signature of `message`.
    public static func sign(_ message: [UInt8], secretKey: Secret) -> [UInt8] {
        var sig = [UInt8](repeating: 0, count: 64)
        secretKey.withUnsafeBytes { sk in
            _ = crypto_sign_detached(
                &sig, nil, message, UInt64(message.count), sk.bindMemory(to: UInt8.self).baseAddress!)
        }
        return sig
    }

    public static func verify(_ signature: [UInt8], _ message: [UInt8], publicKey: [UInt8]) -> Bool {
        signature.count == 64 && publicKey.count == 32
            && crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }
}

/// X25519 session keys (libsodium's crypto_kx): the side that connected is the client.
public enum KeyExchange {
    public static func keyPair() -> (publicKey: [UInt8], secretKey: Secret) {
        _ = sodium_init()
        var pk = [UInt8](repeating: 0, count: 32)
        let sk = Secret(count: 32) { buf in _ = crypto_kx_keypair(&pk, buf.bindMemory(to: UInt8.self).baseAddress!) }
        return (pk, sk)
    }

    /// (rx, tx) for this side; nil for an unusable peer key.
    public static func sessionKeys(
        client: Bool, publicKey: [UInt8], secretKey: Secret, peer: [UInt8]
    ) -> (rx: Secret, tx: Secret)? {
        guard peer.count == 32 else { return nil }
        var rx = [UInt8](repeating: 0, count: 32), tx = [UInt8](repeating: 0, count: 32)
        defer {
            Secret.wipe(&rx)
            Secret.wipe(&tx)
        }
        let ok = secretKey.withUnsafeBytes { sk in
            let s = sk.bindMemory(to: UInt8.self).baseAddress!
            return client
                ? crypto_kx_client_session_keys(&rx, &tx, publicKey, s, peer)
                : crypto_kx_server_session_keys(&rx, &tx, publicKey, s, peer)
        }
        guard ok == 0 else { return nil }
        return (Secret(bytes: rx), Secret(bytes: tx))
    }
}

/// One direction of a crypto_secretstream_xchacha20poly1305 stream: messages in order, each
/// authenticated; a changed, dropped, replayed or reordered message fails.
public final class SecretStream: @unchecked Sendable {
    public static let headerBytes = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
    public static let tagBytes = Int(crypto_secretstream_xchacha20poly1305_ABYTES)
    private var state = crypto_secretstream_xchacha20poly1305_state()

    private init() {}

    deinit { withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) } }

    /// A sending stream under `key` and the header the receiver needs.
    public static func sender(key: Secret) -> (SecretStream, header: [UInt8]) {
        let stream = SecretStream()
        var header = [UInt8](repeating: 0, count: headerBytes)
        key.withUnsafeBytes { k in
            _ = crypto_secretstream_xchacha20poly1305_init_push(
                &stream.state, &header, k.bindMemory(to: UInt8.self).baseAddress!)
        }
        return (stream, header)
    }

    /// A receiving stream under `key` from the sender's header; nil for a bad header.
    public static func receiver(key: Secret, header: [UInt8]) -> SecretStream? {
        guard header.count == headerBytes else { return nil }
        let stream = SecretStream()
        let ok = key.withUnsafeBytes { k in
            crypto_secretstream_xchacha20poly1305_init_pull(
                &stream.state, header, k.bindMemory(to: UInt8.self).baseAddress!)
        }
        return ok == 0 ? stream : nil
    }

    /// The next message sealed.
    public func seal(_ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: message.count + Self.tagBytes)
        _ = crypto_secretstream_xchacha20poly1305_push(
            &state, &out, nil, message, UInt64(message.count), nil, 0,
            UInt8(crypto_secretstream_xchacha20poly1305_TAG_MESSAGE))
        return out
    }

    /// The next message opened; nil when it fails authentication.
    public func open(_ sealed: [UInt8]) -> [UInt8]? {
        guard sealed.count >= Self.tagBytes else { return nil }
        var out = [UInt8](repeating: 0, count: sealed.count - Self.tagBytes)
        var tag: UInt8 = 0
        guard
            crypto_secretstream_xchacha20poly1305_pull(&state, &out, nil, &tag, sealed, UInt64(sealed.count), nil, 0)
                == 0
        else {
            return nil
        }
        return out
    }
}
