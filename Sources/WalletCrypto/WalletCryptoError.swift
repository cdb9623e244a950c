import KCSErrors

/// Every way a WalletCrypto operation can fail. Cases carry facts; the text is
/// written once, in `description`, so every layer above shows the same wording.
/// `id` is stable: tests and callers match on it, never on the prose.
public enum WalletCryptoError: WalletError, Equatable {
    // MARK: hex
    /// A hex string with an odd number of digits (`digits` counts after any `0x`).
    case hexOddLength(digits: Int)
    /// A character that is not a hex digit, at 1-based `position` in the given text.
    case hexInvalidCharacter(character: Character, position: Int)
    /// Bytes of the wrong length for what they were meant to be.
    case wrongLength(what: String, expected: String, got: Int)

    // MARK: secp256k1
    /// A private key that is 0 or ≥ the group order n.
    case privateKeyOutOfRange
    /// Bytes that do not parse as a compressed or uncompressed point on the curve.
    case invalidPublicKey(reason: String)
    /// A signature that cannot be parsed (r or s out of range, bad encoding).
    case invalidSignature(reason: String)
    /// A DER encoding error, with the byte offset where parsing stopped.
    case invalidDER(reason: String, offset: Int)
    /// A recovery id outside 0…3.
    case invalidRecoveryID(Int)
    /// Public-key recovery found no key for this signature and digest.
    case recoveryFailed
    /// A tweak that makes the key invalid (tweak ≥ n or result is the point at infinity / zero).
    case tweakOutOfRange

    // MARK: KDFs and ciphers
    /// KDF parameters that are out of range (`parameter` names which).
    case invalidKDFParameter(parameter: String, value: String, expected: String)
    /// A cipher failure from the underlying library.
    case cipherFailure(String)
    /// AES-GCM authentication failed: wrong key, or the data was changed.
    case authenticationFailed

    /// Stable identifier of the case, for tests and for callers that branch on the kind.
    public var id: String {
        switch self {
        case .hexOddLength: "hex.oddLength"
        case .hexInvalidCharacter: "hex.invalidCharacter"
        case .wrongLength: "bytes.wrongLength"
        case .privateKeyOutOfRange: "secp256k1.privateKeyOutOfRange"
        case .invalidPublicKey: "secp256k1.invalidPublicKey"
        case .invalidSignature: "secp256k1.invalidSignature"
        case .invalidDER: "der.invalid"
        case .invalidRecoveryID: "secp256k1.invalidRecoveryID"
        case .recoveryFailed: "secp256k1.recoveryFailed"
        case .tweakOutOfRange: "secp256k1.tweakOutOfRange"
        case .invalidKDFParameter: "kdf.invalidParameter"
        case .cipherFailure: "cipher.failure"
        case .authenticationFailed: "cipher.authenticationFailed"
        }
    }

    public var description: String {
        switch self {
        case .hexOddLength(let digits):
            "hex must have an even number of digits, got \(digits)"
        case .hexInvalidCharacter(let character, let position):
            "hex must contain only 0-9, a-f, A-F; got \(Self.quote(character)) at position \(position)"
        case .wrongLength(let what, let expected, let got):
            "\(what) must be \(expected), got \(got) byte\(got == 1 ? "" : "s")"
        case .privateKeyOutOfRange:
            "private key must be between 1 and n-1 (the secp256k1 group order)"
        case .invalidPublicKey(let reason):
            "invalid public key: \(reason)"
        case .invalidSignature(let reason):
            "invalid signature: \(reason)"
        case .invalidDER(let reason, let offset):
            "invalid DER signature at byte \(offset): \(reason)"
        case .invalidRecoveryID(let id):
            "recovery id must be 0, 1, 2 or 3, got \(id)"
        case .recoveryFailed:
            "no public key can be recovered from this signature and digest"
        case .tweakOutOfRange:
            "the tweak is not a valid scalar for this key (≥ n, or the result is invalid)"
        case .invalidKDFParameter(let parameter, let value, let expected):
            "KDF parameter \(parameter) must be \(expected), got \(value)"
        case .cipherFailure(let detail):
            "cipher failure: \(detail)"
        case .authenticationFailed:
            "authentication failed: wrong key or tampered data"
        }
    }

    private static func quote(_ c: Character) -> String {
        if c.isLetter || c.isNumber || c.isPunctuation || c.isSymbol { return "'\(c)'" }
        return c.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true).leftPadded(to: 4) }
            .joined(separator: " ")
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// What every wallet error type offers: a stable identifier to match on (`id`, e.g.
/// `hex.oddLength`), one rendered sentence (`description`) that names the argument, what was
/// expected and what was given, and an `exitClass` (`.runtimeError` unless the type says
/// otherwise). Error types conform per module or per concept. Being `IdentifiableError`s,
/// they reach scripts with their own id and sentence (docs/architecture.md, "Errors").
public protocol WalletError: IdentifiableError, Sendable {}
