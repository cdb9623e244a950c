import WalletCrypto

/// A kcs home's Ed25519 identity for two-party sessions: the channel's handshake is signed with
/// it, and pid = SHA-256(public key) names the party in every proof (docs/two-party-protocol.md
/// §7). The secret half never prints.
public struct PartyIdentity: Sendable, CustomStringConvertible {
    public let publicKey: [UInt8]
    let secretKey: Secret

    /// A fresh identity.
    public static func generate() -> PartyIdentity {
        let (pk, sk) = Ed25519.keyPair()
        return PartyIdentity(publicKey: pk, secretKey: sk)
    }

    /// From the 64-byte libsodium secret key (seed ‖ public key).
    public init(secretKey: Secret) throws(MPCLinkError) {
        guard secretKey.count == 64 else { throw .handshake("an identity secret key is 64 bytes") }
        self.secretKey = secretKey
        publicKey = secretKey.withUnsafeBytes { Array($0[32..<64]) }
    }

    init(publicKey: [UInt8], secretKey: Secret) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The 64-byte secret key, for the store to seal (never shown).
    public var secretKeyForStorage: Secret { secretKey }

    /// The party id of the protocol: SHA-256 of the public key.
    public var pid: [UInt8] { Hash.sha256(publicKey) }

    /// What a person compares on both screens: the pid's first 16 bytes as 8 groups of 4 hex digits.
    public var fingerprint: String { Self.fingerprint(of: publicKey) }

    public static func fingerprint(of publicKey: [UInt8]) -> String {
        let hex = Hex.encode(Array(Hash.sha256(publicKey).prefix(16)))
        return stride(from: 0, to: 32, by: 4).map { i in
            String(hex[hex.index(hex.startIndex, offsetBy: i)..<hex.index(hex.startIndex, offsetBy: i + 4)])
        }.joined(separator: " ")
    }

    func sign(_ message: [UInt8]) -> [UInt8] { Ed25519.sign(message, secretKey: secretKey) }

    static func verify(_ signature: [UInt8], _ message: [UInt8], publicKey: [UInt8]) -> Bool {
        Ed25519.verify(signature, message, publicKey: publicKey)
    }

    public var description: String { "identity \(fingerprint)" }
}
