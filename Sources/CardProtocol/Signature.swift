import WalletCore
import WalletCrypto

/// A signature made by the card, completed with its recovery id (docs/keycard-protocol.md §10.9).
public struct CardSignature: Sendable, Equatable, CustomStringConvertible {
    /// The key that signed (the derived key, for SIGN with a path).
    public let publicKey: PublicKey
    /// The low-S signature with the recovery id that recovers `publicKey` (v = id + 27 for
    /// legacy Ethereum).
    public let signature: RecoverableSignature

    /// Parses a SIGN answer for `digest`, in either form the ecosystem uses:
    /// - `A0 81 LL { 80 41 <public key>; 30 … DER }` (the Java Card applet): the DER is
    ///   parsed leniently (§18), S is normalised to low-S, and the recovery id is found by
    ///   matching the returned public key;
    /// - `80 41 <r 32 ‖ s 32 ‖ recovery id 1>` (other implementations, D4): the public key
    ///   is recovered from the digest.
    ///
    /// - Throws: `malformedResponse` for another layout, a bad DER, or a signature that
    ///   does not belong to the key.
    public init(response data: [UInt8], digest: [UInt8]) throws(CardError) {
        do {
            self = try CardSignature.parse(data, digest: digest)
        } catch .malformedTLV(let offset, let reason) {
            throw .malformedResponse(command: .sign, detail: "TLV error at byte \(offset): \(reason)")
        }
    }

    private static func parse(_ data: [UInt8], digest: [UInt8]) throws(CardError) -> CardSignature {
        guard digest.count == 32 else {
            throw .invalidInput(command: .sign, reason: "the digest must be 32 bytes, got \(digest.count)")
        }
        let outer = try TLV.parseFirst(data)
        switch outer.tag {
        case 0xA0:
            var reader = TLVReader(outer.value)
            let keyField = try reader.next(expecting: 0x80)
            let derField = try reader.next(expecting: 0x30)
            let publicKey: PublicKey
            let plain: ECDSASignature
            do {
                publicKey = try PublicKey(bytes: keyField.value)
                plain = try ECDSASignature(der: derField.encoded, lenient: true)
            } catch {
                throw .malformedResponse(command: .sign, detail: error.description)
            }
            let low = plain.normalized
            do {
                let signature = try RecoverableSignature.matching(low, digest: digest, publicKey: publicKey)
                return CardSignature(publicKey: publicKey, signature: signature)
            } catch {
                throw .malformedResponse(
                    command: .sign,
                    detail: "the signature does not verify with the returned public key")
            }
        case 0x80:
            guard outer.value.count == 65 else {
                throw .malformedResponse(
                    command: .sign,
                    detail: "a raw signature is r ‖ s ‖ v = 65 bytes, got \(outer.value.count)")
            }
            let v = outer.value[64]
            do {
                let sig = try ECDSASignature(r: Array(outer.value[0..<32]), s: Array(outer.value[32..<64]))
                let recoverable = try RecoverableSignature(signature: sig, recoveryID: v >= 27 ? v - 27 : v)
                let key = try recoverable.recoverPublicKey(digest: digest)
                return CardSignature(publicKey: key, signature: recoverable)
            } catch {
                throw .malformedResponse(command: .sign, detail: error.description)
            }
        default:
            throw .malformedResponse(
                command: .sign,
                detail: "expected template A0 or tag 80, got \(hexByte(outer.tag))")
        }
    }

    private init(publicKey: PublicKey, signature: RecoverableSignature) {
        self.publicKey = publicKey
        self.signature = signature
    }

    public var description: String { "\(signature) by \(publicKey)" }
}

/// EXPORT KEY's answer (docs/keycard-protocol.md §10.11): `A1 { [80 public key] [81 private key] [82 chain code] }`.
public struct ExportedKey: Sendable, CustomStringConvertible {
    /// The public key (computed from the private key when only that was sent).
    public let publicKey: PublicKey
    /// The private key (P2 `00`), nil otherwise.
    public let privateKey: PrivateKey?
    /// The chain code (P2 `02`), nil otherwise.
    public let chainCode: [UInt8]?

    /// Parses the `A1` template; unknown fields are ignored.
    ///
    /// - Throws: `malformedResponse` for another layout, a key that is not on the curve, a
    ///   chain code that is not 32 bytes, or neither key present.
    public init(response data: [UInt8]) throws(CardError) {
        do {
            self = try ExportedKey.parse(data)
        } catch .malformedTLV(let offset, let reason) {
            throw .malformedResponse(command: .exportKey, detail: "TLV error at byte \(offset): \(reason)")
        }
    }

    private init(publicKey: PublicKey, privateKey: PrivateKey?, chainCode: [UInt8]?) {
        self.publicKey = publicKey
        self.privateKey = privateKey
        self.chainCode = chainCode
    }

    private static func parse(_ data: [UInt8]) throws(CardError) -> ExportedKey {
        let template = try TLV.parseFirst(data)
        guard template.tag == 0xA1 else {
            throw .malformedResponse(command: .exportKey, detail: "expected template A1, got \(hexByte(template.tag))")
        }
        let fields = try template.children()
        var privateKey: PrivateKey?
        var publicKey: PublicKey?
        do {
            if let field = fields.first(tag: 0x81) {
                var bytes = field.value
                privateKey = try PrivateKey(Secret(consuming: &bytes))
            }
            if let field = fields.first(tag: 0x80) { publicKey = try PublicKey(bytes: field.value) }
        } catch {
            throw .malformedResponse(command: .exportKey, detail: error.description)
        }
        guard let key = publicKey ?? privateKey?.publicKey else {
            throw .malformedResponse(
                command: .exportKey,
                detail: "the template holds neither a public nor a private key")
        }
        let chainCode = fields.first(tag: 0x82)?.value
        if let chainCode, chainCode.count != 32 {
            throw .malformedResponse(
                command: .exportKey,
                detail: "the chain code must be 32 bytes, got \(chainCode.count)")
        }
        return ExportedKey(publicKey: key, privateKey: privateKey, chainCode: chainCode)
    }

    /// The extended public key (P2 `02` exports). The card does not send depth, parent
    /// fingerprint or child number; pass them to get a serialisable `xpub` (§10.11).
    ///
    /// - Throws: `malformedResponse` when no chain code was exported.
    public func extendedPublicKey(
        depth: UInt8 = 0, parentFingerprint: UInt32 = 0,
        childNumber: UInt32 = 0
    ) throws(CardError) -> ExtendedKey {
        guard let chainCode else {
            throw .malformedResponse(
                command: .exportKey,
                detail: "no chain code was exported (ask for the extended public key)")
        }
        do {
            return try ExtendedKey(
                publicKey: publicKey, chainCode: chainCode, depth: depth,
                parentFingerprint: parentFingerprint, childNumber: childNumber)
        } catch {
            throw .malformedResponse(command: .exportKey, detail: error.description)
        }
    }

    /// `public key 04…, chain code present`; never the private key.
    public var description: String {
        var parts = ["public key \(publicKey.uncompressed.hex)"]
        if privateKey != nil { parts.append("private key <secret>") }
        if chainCode != nil { parts.append("chain code present") }
        return parts.joined(separator: ", ")
    }
}

/// A 4.0 card's BIP-340 Schnorr signature (docs/keycard-protocol.md §14.6): the template
/// `A0 81 85 { 80 41 <derived public key>; 88 40 <x(R) ‖ s> }`, verified on parsing under the
/// output key Q = x(P) + t·G.
public struct CardSchnorrSignature: Sendable, Equatable {
    /// The derived key P the card answered (before the tweak).
    public let publicKey: PublicKey
    /// The key the signature verifies under: x(P) tweaked by t.
    public let outputKey: XOnlyPublicKey
    /// x(R) ‖ s.
    public let signature: [UInt8]

    /// Parses and verifies SIGN's answer for `digest` and `tweak`; with `expectedKey` (the key at
    /// the path, as EXPORT KEY gave it) the card must have signed with that key — a build older than
    /// Schnorr tweaks reads the tweak as more path and signs with another (docs/keycard-protocol.md
    /// §14.10).
    ///
    /// - Throws: `malformedResponse` for a bad layout, another key than `expectedKey`, or a
    ///   signature that does not verify under Q.
    public init(
        response data: [UInt8], digest: [UInt8], tweak: [UInt8], expectedKey: PublicKey? = nil
    ) throws(CardError) {
        var reader = TLVReader(data)
        do throws(CardError) {
            let template = try reader.next(expecting: 0xA0)
            var fields = TLVReader(template.value)
            let key = try fields.next(expecting: 0x80).value
            let signature = try fields.next(expecting: 0x88).value
            guard signature.count == 64 else {
                throw CardError.malformedResponse(
                    command: .sign, detail: "a Schnorr signature is 64 bytes, got \(signature.count)")
            }
            let publicKey: PublicKey
            let outputKey: XOnlyPublicKey
            do {
                publicKey = try PublicKey(bytes: key)
                outputKey = try publicKey.xOnly.key.tweaked(by: Self.reducedTweak(tweak))
            } catch {
                throw CardError.malformedResponse(command: .sign, detail: error.description)
            }
            if let expectedKey, expectedKey != publicKey {
                throw CardError.malformedResponse(
                    command: .sign,
                    detail: "the card signed with another key than the one at the path it was sent; a 4.0 build older "
                        + "than Schnorr tweaks reads the tweak as more path, and this card may be one")
            }
            guard outputKey.verifySchnorr(signature, message: digest) else {
                throw CardError.malformedResponse(
                    command: .sign, detail: "the Schnorr signature does not verify under the tweaked key")
            }
            self.publicKey = publicKey
            self.outputKey = outputKey
            self.signature = signature
        } catch .malformedTLV(let offset, let reason) {
            throw .malformedResponse(command: .sign, detail: "TLV error at byte \(offset): \(reason)")
        }
    }
}

extension CardSchnorrSignature {
    /// t mod n, the tweak the applet adds: it computes d + t mod n with the card's big-number
    /// arithmetic (docs/keycard-protocol.md §14.6), so a tweak of n or more (up to 2²⁵⁶ − 1, less
    /// than 2n) acts as t − n. libsecp256k1 refuses a tweak ≥ n; the simulator and the client's
    /// check both reduce it here first. Any other length is returned as it is.
    public static func reducedTweak(_ tweak: [UInt8]) -> [UInt8] {
        let n = Secp256k1.order
        guard tweak.count == n.count, !tweak.lexicographicallyPrecedes(n) else { return tweak }
        var out = [UInt8](repeating: 0, count: n.count)
        var borrow = 0
        for i in stride(from: n.count - 1, through: 0, by: -1) {
            var d = Int(tweak[i]) - Int(n[i]) - borrow
            borrow = d < 0 ? 1 : 0
            if d < 0 { d += 256 }
            out[i] = UInt8(d)
        }
        return out
    }
}

/// What EXPORT LEE returns (docs/keycard-protocol.md §14.9): the nullifier secret key (32 bytes)
/// and the viewing secret key (64 bytes), read by tag from `A1 { 83 20 NSK; 84 40 VSK }`.
public struct LEEKeys: Sendable {
    public let nullifierKey: Secret
    public let viewingKey: Secret

    public init(response data: [UInt8]) throws(CardError) {
        do throws(CardError) {
            let fields = try TLV.parseFirst(data).children()
            guard let nsk = fields.first(tag: 0x83)?.value, nsk.count == 32,
                let vsk = fields.first(tag: 0x84)?.value, vsk.count == 64
            else {
                throw CardError.malformedResponse(command: .exportLEE, detail: "expected A1 { 83 20 NSK; 84 40 VSK }")
            }
            nullifierKey = Secret(bytes: nsk)
            viewingKey = Secret(bytes: vsk)
        } catch .malformedTLV(let offset, let reason) {
            throw .malformedResponse(command: .exportLEE, detail: "TLV error at byte \(offset): \(reason)")
        }
    }
}
