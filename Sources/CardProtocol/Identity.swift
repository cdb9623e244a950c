import WalletCrypto

/// The result of IDENTIFY (docs/keycard-protocol.md §11): the card proved it holds the identity key
/// of its certificate, and the certificate names the CA that issued it.
///
/// Verification never depends on which CA it is: a valid proof under an unknown CA parses
/// fine and reports `issuer == .unknown`, so the caller decides what to trust.
public struct CardIdentity: Sendable, Equatable, CustomStringConvertible {
    /// Who issued the certificate.
    public enum Issuer: String, Sendable, Hashable {
        /// The Keycard production CA: a genuine Keycard.
        case production
        /// The Keycard test-card CA.
        case test
        /// A CA this client does not know.
        case unknown
    }

    /// The Keycard production CA `029AB99E…501C` (§11; D4's `029a9b9e…` is a digit swap).
    public static let productionCA = try! PublicKey(
        bytes: Hex.decode(
            "029AB99EE1E7A71BDF45B3F9C58C99866FF1294D2C1E304E228A86E10C3343501C"))
    /// The kcs simulator CA: private key SHA-256("kcs-test-ca"), public key `02B0D0B8…F6B9`. It is public
    /// on purpose (the Keycard 4.0 notes' test vectors use it): it certifies simulated cards only, and kcs
    /// trusts it only for a simulated card (docs/card.md, "Keycard 4.0").
    public static let simulatorCA = try! PrivateKey(bytes: Hash.sha256(Array("kcs-test-ca".utf8)))

    /// Who certified a card, in words (the card trace): a Keycard CA, the kcs simulator CA, or another.
    public static func issuerName(_ ca: PublicKey) -> String {
        switch Issuer(ca: ca) {
        case .production: "the Keycard production CA"
        case .test: "the Keycard test CA"
        case .unknown:
            ca == simulatorCA.publicKey
                ? "the kcs simulator CA (trusted for a simulated card only)"
                : "a CA that is not a Keycard CA (trusted only if card.trust was given this identity)"
        }
    }

    /// The Keycard test-card CA (§11).
    public static let testCA = try! PublicKey(
        bytes: Hex.decode(
            "025877220AAAE6E54A6F974602D5995C0FE24A3EA7DDABD8644BEC795B9DA00743"))

    /// The 98-byte certificate: compressed identity key (33) ‖ r (32) ‖ s (32) ‖ v (1).
    public let certificate: [UInt8]
    /// The card's identity key.
    public let identityPublicKey: PublicKey
    /// The CA key recovered from the certificate's signature.
    public let caPublicKey: PublicKey

    /// Which known CA `caPublicKey` is.
    public var issuer: Issuer { Issuer(ca: caPublicKey) }

    /// Parses and verifies IDENTIFY's answer `A0 { 8A 62 <certificate>; 30 … DER }` for `challenge`:
    /// (1) the DER signature (not low-S normalised) verifies over the raw challenge with the
    /// certificate's identity key; (2) the CA key is recovered from (r, s, v) over
    /// SHA-256(compressed identity key).
    ///
    /// - Throws: `malformedResponse` for a bad layout; `identityNotVerified` when the card's
    ///   signature does not verify or no CA key can be recovered.
    public init(response data: [UInt8], challenge: [UInt8]) throws(CardError) {
        do {
            self = try CardIdentity.parse(data, challenge: challenge)
        } catch .malformedTLV(let offset, let reason) {
            throw .malformedResponse(command: .identify, detail: "TLV error at byte \(offset): \(reason)")
        }
    }

    private init(certificate: [UInt8], identityPublicKey: PublicKey, caPublicKey: PublicKey) {
        self.certificate = certificate
        self.identityPublicKey = identityPublicKey
        self.caPublicKey = caPublicKey
    }

    private static func parse(_ data: [UInt8], challenge: [UInt8]) throws(CardError) -> CardIdentity {
        guard challenge.count == 32 else {
            throw .invalidInput(command: .identify, reason: "the challenge must be 32 bytes, got \(challenge.count)")
        }
        let template = try TLV.parseFirst(data)
        guard template.tag == 0xA0 else {
            throw .malformedResponse(command: .identify, detail: "expected template A0, got \(hexByte(template.tag))")
        }
        let fields = try template.children()
        guard let cert = fields.first(tag: 0x8A)?.value, cert.count == 98 else {
            throw .malformedResponse(command: .identify, detail: "the template has no 98-byte certificate (8A)")
        }
        guard let der = fields.first(tag: 0x30) else {
            throw .malformedResponse(command: .identify, detail: "the template has no DER signature (30)")
        }
        let certificate = try CardCertificate(bytes: cert, command: .identify)
        let cardSignature: ECDSASignature
        do {
            cardSignature = try ECDSASignature(der: der.encoded, lenient: true)
        } catch {
            throw .malformedResponse(command: .identify, detail: error.description)
        }
        guard
            Secp256k1.verify(
                cardSignature, digest: challenge, publicKey: certificate.identityPublicKey, allowHighS: true)
        else {
            throw .identityNotVerified(
                reason: "IDENTIFY: the card's signature over the challenge does not verify with its certificate key")
        }
        let identityKey = certificate.identityPublicKey, caKey = certificate.caPublicKey
        return CardIdentity(certificate: cert, identityPublicKey: identityKey, caPublicKey: caKey)
    }

    /// `identity 03…, issued by the production CA`.
    public var description: String { Issuer.describe(identity: identityPublicKey, ca: caPublicKey) }
}

/// The card's 98-byte identity certificate (docs/keycard-protocol.md §11): compressed identity
/// key (33) ‖ r (32) ‖ s (32) ‖ v (1), where (r, s, v) is the issuing CA's recoverable signature
/// over SHA-256(identity key); s may be high, v is the recovery id (27 or 28 accepted too).
/// IDENTIFY returns it on 3.1 cards; 4.0 cards give it in SELECT and sign the secure-channel
/// handshake with its key.
public struct CardCertificate: Sendable, Equatable, CustomStringConvertible {
    /// The 98 bytes.
    public let bytes: [UInt8]
    /// The card's identity key.
    public let identityPublicKey: PublicKey
    /// The CA key recovered from the signature.
    public let caPublicKey: PublicKey

    /// Parses `bytes` and recovers the CA key; `command` names the answer it came in.
    ///
    /// - Throws: `malformedResponse` for a bad length or key; `identityNotVerified` when no CA
    ///   key can be recovered.
    public init(bytes: [UInt8], command: CardCommand) throws(CardError) {
        guard bytes.count == 98 else {
            throw .malformedResponse(command: command, detail: "the certificate is \(bytes.count) bytes, not 98")
        }
        let signature: RecoverableSignature
        do {
            identityPublicKey = try PublicKey(bytes: Array(bytes[0..<33]))
            let v = bytes[97]
            signature = try RecoverableSignature(
                signature: ECDSASignature(r: Array(bytes[33..<65]), s: Array(bytes[65..<97])),
                recoveryID: v >= 27 ? v - 27 : v)
        } catch {
            throw .malformedResponse(command: command, detail: "the certificate: \(error.description)")
        }
        do {
            caPublicKey = try signature.recoverPublicKey(digest: Hash.sha256(Array(bytes[0..<33])))
        } catch {
            throw .identityNotVerified(reason: "no CA key can be recovered from the certificate")
        }
        self.bytes = bytes
    }

    /// Which known CA issued it.
    public var issuer: CardIdentity.Issuer { CardIdentity.Issuer(ca: caPublicKey) }

    /// `identity 02…, issued by the Keycard test CA`.
    public var description: String { CardIdentity.Issuer.describe(identity: identityPublicKey, ca: caPublicKey) }
}

extension CardIdentity.Issuer {
    /// The known CA `ca` is, or `.unknown`.
    public init(ca: PublicKey) {
        self = ca == CardIdentity.productionCA ? .production : ca == CardIdentity.testCA ? .test : .unknown
    }

    /// `identity 03…, issued by the Keycard production CA`.
    static func describe(identity: PublicKey, ca: PublicKey) -> String {
        let by: String =
            switch Self(ca: ca) {
            case .production: "the Keycard production CA"
            case .test: "the Keycard test CA"
            case .unknown: "an unknown CA \(ca)"
            }
        return "identity \(identity), issued by \(by)"
    }
}
