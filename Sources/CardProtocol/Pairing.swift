import Foundation
import WalletCrypto

/// The 32-byte pairing secret ("pairing token") stored on the card by INIT and proven by
/// PAIR (docs/keycard-protocol.md §7.1, §8.1). Held as a `Secret`; never prints.
public struct PairingSecret: Sendable, Equatable, CustomStringConvertible {
    /// PBKDF2 salt: the 29 ASCII bytes `Keycard Pairing Password Salt` (§7.1).
    public static let salt = Array("Keycard Pairing Password Salt".utf8)
    /// PBKDF2 iterations for cards (§7.1).
    public static let iterations = 50_000
    /// The ecosystem default pairing password (§7.1).
    public static let defaultPassword = "KeycardDefaultPairing"

    /// The 32 secret bytes.
    public let secret: Secret

    /// A secret given as 32 raw bytes.
    ///
    /// - Throws: `CardError.invalidInput` for any other length.
    public init(bytes: Secret) throws(CardError) {
        guard bytes.count == 32 else {
            throw .invalidInput(
                command: .changePairingSecret,
                reason: "a pairing secret must be 32 bytes, got \(bytes.count)")
        }
        secret = bytes
    }

    /// PBKDF2-HMAC-SHA256(NFKD(password), salt, 50 000 iterations, 32 bytes), as keycard-go
    /// and keycard-py compute it (§7.1; NFKD changes nothing for ASCII passwords).
    public init(password: String) {
        var bytes = Array(password.decomposedStringWithCompatibilityMapping.utf8)
        let password = Secret(consuming: &bytes)
        // Arguments are in range (iterations ≥ 1, length 32), so PBKDF2 cannot fail.
        secret = try! KeyDerivation.pbkdf2(
            password: password, salt: Self.salt, iterations: Self.iterations,
            length: 32, prf: .hmacSHA256)
    }

    /// The same derivation for a password held as a secret (UTF-8 bytes).
    ///
    /// - Throws: `CardError.invalidInput` when the bytes are not UTF-8.
    public init(password: Secret) throws(CardError) {
        guard let text = password.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw .invalidInput(command: .pair, reason: "the pairing password must be UTF-8 text")
        }
        self.init(password: text)
    }

    public var description: String { "<pairing secret>" }
}

/// What a client keeps after PAIR: the slot index and the pairing key
/// `SHA-256(pairing secret ‖ salt)` (§8.1). Store it keyed by the card's instance UID.
public struct Pairing: Sendable, Equatable, CustomStringConvertible {
    /// The pairing slot (`FF` = the 3.2 ephemeral pairing).
    public let index: UInt8
    /// The 32-byte pairing key.
    public let key: Secret

    /// A stored pairing.
    ///
    /// - Throws: `CardError.invalidInput` unless the key is 32 bytes.
    public init(index: UInt8, key: Secret) throws(CardError) {
        guard key.count == 32 else {
            throw .invalidInput(command: .openSecureChannel, reason: "a pairing key must be 32 bytes, got \(key.count)")
        }
        self.index = index
        self.key = key
    }

    /// `<pairing: slot 0>`; the key never prints.
    public var description: String { "<pairing: slot \(index)>" }
}

/// PAIR step 1's P2 on applet 3.2 (§8.1); older versions ignore it.
public enum PairingMode: UInt8, Sendable, CaseIterable {
    /// Persistent when a slot is free, otherwise ephemeral.
    case persistentOrEphemeral = 0x00
    /// Ephemeral (slot `FF`, forgotten on de-selection).
    case ephemeral = 0x01
    /// Persistent only (`6A 84` when full).
    case persistent = 0x02
}
