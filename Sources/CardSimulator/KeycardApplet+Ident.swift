import CardProtocol
import WalletCrypto

// MARK: - Card identity: IDENTIFY (14) and the Ident applet (docs/keycard-protocol.md §11)

extension KeycardApplet {
    /// The length of a Keycard certificate: compressed identity key (33) ‖ r (32) ‖ s (32) ‖ v (1).
    public static let certificateLength = 98

    /// Provisions the card identity as the factory does (Ident STORE DATA, once). Use
    /// `IdentityCertificate.make` for a test certificate.
    ///
    /// - Throws: `SimulatorError.identityAlreadyProvisioned`, or `.invalidIdentity` when the certificate
    ///   is not 98 bytes or the private key is not a valid secp256k1 scalar.
    public func provisionIdentity(certificate: [UInt8], privateKey: [UInt8]) throws(SimulatorError) {
        guard state.identity == nil else { throw .identityAlreadyProvisioned }
        guard certificate.count == Self.certificateLength, (try? PrivateKey(bytes: privateKey)) != nil else {
            throw .invalidIdentity
        }
        state.identity = IdentityRecord(certificate: certificate, privateKey: CardSecret(privateKey))
    }

    /// IDENTIFY: wrapped when a channel is open, plain otherwise (also PRE-INITIALIZED). No certificate
    /// `6985` (checked first), challenge length ≠ 32 `6A80`. Answer `A0 81 LL 8A 62 <cert> <DER sig>`;
    /// the signature over the raw challenge is not low-S normalised.
    func identify(_ apdu: CommandAPDU) throws(CardStatus) -> Reply {
        let wrapped = isOpen
        let challenge: [UInt8]
        if wrapped { challenge = try unwrap(apdu) } else { challenge = apdu.data }
        guard let identity = state.identity, let key = try? PrivateKey(bytes: identity.privateKey.bytes) else {
            throw .conditionsNotSatisfied
        }
        guard challenge.count == 32 else { throw .wrongData }
        let entropy = random.bytes(32)
        guard let signature = try? key.sign(digest: challenge, extraEntropy: entropy).signature else { throw .unknown }
        let s = entropy[31] & 1 == 1 ? DERCard.negated(signature.s) : signature.s
        let der = DERCard.signature(r: signature.r, s: s, fixedLengthS: false)
        let body: [UInt8] =
            [
                0xA0, 0x81, UInt8(2 + identity.certificate.count + der.count), 0x8A,
                UInt8(identity.certificate.count),
            ] + identity.certificate + der
        return wrapped ? .wrapped(body) : .plain(body)
    }

    /// SELECT of the Ident instance: the raw certificate, or nothing when none is provisioned.
    func identSelect() -> [UInt8] {
        (state.identity?.certificate ?? []) + [0x90, 0x00]
    }

    /// The Ident applet: STORE DATA `80 E2 00 00 82 <certificate> <private key>` provisions once
    /// (`6985` afterwards, `6A80` for another length); every other INS `6D00`.
    func identProcess(_ apdu: CommandAPDU) -> [UInt8] {
        guard apdu.ins == 0xE2 else { return CardStatus.insNotSupported.bytes }
        guard state.identity == nil else { return CardStatus.conditionsNotSatisfied.bytes }
        guard apdu.data.count == Self.certificateLength + 32 else { return CardStatus.wrongData.bytes }
        do {
            try provisionIdentity(
                certificate: Array(apdu.data[0..<Self.certificateLength]),
                privateKey: Array(apdu.data[Self.certificateLength...]))
            return [0x90, 0x00]
        } catch {
            return CardStatus.wrongData.bytes
        }
    }
}

/// Builds Keycard identity certificates (docs/keycard-protocol.md §11) for simulated cards: the identity public
/// key, compressed, followed by a recoverable signature (r ‖ s ‖ v, v = recovery id 0/1) of a CA key
/// over SHA-256 of that compressed key. Never use a test CA for anything but tests.
extension KeycardApplet {
    /// A 4.0 card needs an identity before it answers anything (docs/keycard-protocol.md §14.1): a
    /// new simulated 4.0 card gets its own identity key, certified by the kcs simulator CA.
    func provisionSimulatorIdentity() {
        let key = PrivateKey.generate(using: random)
        state.identity = IdentityRecord(
            certificate: IdentityCertificate.make(identityKey: key, caKey: IdentityCertificate.simulatorCA),
            privateKey: CardSecret(key.secret.bytesCopy))
    }
}

public enum IdentityCertificate {
    /// The kcs simulator CA (`CardIdentity.simulatorCA`): it certifies simulated cards only.
    public static let simulatorCA = CardIdentity.simulatorCA

    /// The 98-byte certificate of `identityKey` signed by `caKey`.
    public static func make(identityKey: PrivateKey, caKey: PrivateKey) -> [UInt8] {
        let compressed = identityKey.publicKey.compressed
        guard let signature = try? caKey.sign(digest: Hash.sha256(compressed)) else {
            preconditionFailure("signing a 32-byte digest with a valid key cannot fail")
        }
        return compressed + signature.signature.r + signature.signature.s + [signature.recoveryID]
    }
}
