import CardProtocol
import Foundation
import WalletCore
import WalletCrypto
import WalletStore

// Which key signs is decided here, once (docs/architecture.md, "Signing"): a signing command
// says what it signs and which key it means (`SigningRequest`), `Session.signer(for:)` turns that
// into one `Signer`, and `Session.sign` has it sign, checks the signature against the key that
// should have made it, and records it. Every signing command goes through `Session.sign`.

/// What a signature is over, as the signer may be shown it: a bare digest, an EIP-191 message,
/// EIP-712 typed data (its JSON), an unsigned transaction (its signing payload) or an EIP-7702
/// authorization (its preimage `0x05 ‖ rlp([chainId, address, nonce])`). The
/// review and the two-party co-signer read it; the co-signer recomputes the digest from it.
public enum SigningPayload: Sendable, Equatable {
    case digest
    case message([UInt8])
    case typed([UInt8])
    case transaction([UInt8])
    case authorization([UInt8])
}

/// Which key a signing command means: `--key`, else the active key; and which of that key's
/// places signs: the card's options and `qr.sign`'s path.
public struct SignerChoice {
    /// The key.
    public enum Key {
        /// The active key (`use key`, `use card`).
        case active
        /// The stored key of this name (`--key NAME`).
        case stored(String)
        /// A key given as a value and not stored (`--key $k`), with its path when it knows it.
        case given(PrivateKey, path: DerivationPath?)
    }

    /// Where under the key the signature comes from.
    public enum Place {
        /// The key itself (a card: its current key).
        case current
        /// A card's PIN-less path (no PIN, no secure channel); without `--key`, the card
        /// signs whatever the active key is.
        case pinless
        /// A card path, derived on the card for this signature (`sign --path P [--make-current]`):
        /// relative paths start at the card's current path.
        case cardPath(CardPathRequest, makeCurrent: Bool)
        /// The key at this path from the key's master: derived on the card, or from a software
        /// HD master's seed (`qr.sign`, whose request names the path).
        case masterPath(DerivationPath)

        /// The option that asks for it, for the refusal when the key is not a card's.
        var cardOption: String? {
            switch self {
            case .current, .masterPath: nil
            case .pinless: "pinless"
            case .cardPath: "path"
            }
        }
    }

    public var key: Key
    public var place: Place

    public init(key: Key = .active, place: Place = .current) {
        self.key = key
        self.place = place
    }
}

/// One signing request: the digest, what it is the digest of, how the history files it, and
/// which key signs.
public struct SigningRequest {
    public let digest: [UInt8]
    public let payload: SigningPayload
    public let kind: SignatureKind
    /// The chain of a transaction or typed data, for the history.
    public let chainID: UInt64?
    public let signer: SignerChoice
    /// A digest the person computed elsewhere (`--expect-digest`): nothing is signed unless it matches.
    public var expected: ExpectedDigest?

    public init(
        digest: [UInt8], payload: SigningPayload, kind: SignatureKind, chainID: UInt64? = nil,
        signer: SignerChoice = SignerChoice()
    ) {
        self.digest = digest
        self.payload = payload
        self.kind = kind
        self.chainID = chainID
        self.signer = signer
    }
}

/// A digest a person computed on another device and typed in (ERC-8213, docs/signing-review.md):
/// `Session.sign` refuses before the signer makes a signature unless `actual` equals it.
public struct ExpectedDigest: Sendable, Equatable {
    /// ERC-8213's name of the digest compared (`EIP-712 Digest`, `Calldata Digest`).
    public let name: String
    /// The digest of what is about to be signed.
    public let actual: [UInt8]
    /// What the person expects.
    public let expected: [UInt8]

    public init(name: String, actual: [UInt8], expected: [UInt8]) {
        self.name = name
        self.actual = actual
        self.expected = expected
    }
}

/// Why a signing request was refused before any signer was asked.
public enum SigningRefusal: WalletError, Equatable {
    /// The digest differs from the one the person expected: what is shown is not what they checked.
    case digestMismatch(name: String, actual: String, expected: String)

    public var id: String { "sign.digestMismatch" }
    /// Said after the command's name: `sign.typed: the EIP-712 Digest is …`.
    public var followsCommandName: Bool { true }

    public var description: String {
        switch self {
        case .digestMismatch(let name, let actual, let expected):
            "the \(name) is \(actual), not the \(expected) expected: what is about to be signed is not what was "
                + "checked elsewhere; nothing was signed"
        }
    }
}

/// A signature as a `Signer` made it, before `Session.sign` checks and records it.
public struct MadeSignature {
    public let signature: RecoverableSignature
    /// The key that signed, by the signer's own account (a card's answer carries it).
    public let publicKey: PublicKey
    /// The key that should have signed, found independently of the signature where the signer
    /// can (a card's export, the stored key).
    public let expected: PublicKey
    public let path: DerivationPath?
    /// What `expected` is, in words, for the result's `checkedAgainst`.
    public let checkedAgainst: String
    public let warning: String?
    /// The store the history row goes to (nil: no store in the home, nothing is recorded).
    public let store: WalletStore?
}

/// Something that signs a digest for the session: a stored software key, a key given as a
/// value, the card, or a two-party key (Signing.swift, TwoPartySigner.swift). Made only by
/// `Session.signer(for:)`.
public protocol Signer {
    /// The name the signature is recorded under.
    var keyName: String { get }
    /// The stored key it signs for (for `qr.sign`, the HD key whose path it signs at); nil for a
    /// key given as a value, or a PIN-less card path without a stored key.
    var keyRecord: KeyRecord? { get }
    /// The key that will sign, before signing (the sender of a transaction to fill, the address
    /// `qr.sign` compares with its request).
    func publicKey() throws -> PublicKey
    /// The BIP-32 fingerprint of the key's master, when the signer has one (`qr.sign` compares it).
    func masterFingerprint() throws -> UInt32?
    /// Signs `request.digest`; `Session.sign` checks and records what it answers.
    func make(_ request: SigningRequest) throws -> MadeSignature
}

extension Signer {
    public func masterFingerprint() throws -> UInt32? { nil }
}

extension Session {
    /// The one signer of `choice`: a card key (or `--pinless` without `--key`) signs on the
    /// card, a two-party key with its co-signer, any other stored key in software, a given key
    /// as given. A card's place asked of a key that is not a card's is refused, naming the option.
    public func signer(for choice: SignerChoice) throws -> any Signer {
        let name: String?
        switch choice.key {
        case .given(let key, let path):
            if let option = choice.place.cardOption {
                throw CardKeyError.needsCardSigner(
                    option: option, name: EthereumAddress(publicKey: key.publicKey).checksummed)
            }
            if case .masterPath = choice.place {
                throw AirGapError.noHDKey(name: EthereumAddress(publicKey: key.publicKey).checksummed)
            }
            return GivenKeySigner(session: self, key: key, path: path)
        case .stored(let n): name = n
        case .active: name = activeKey
        }
        let record = try name.map { try store().key(named: $0) }
        if let record, record.kind == .card {
            return try CardSigner(session: self, record: record, place: choice.place)
        }
        if case .pinless = choice.place, case .active = choice.key {
            return try CardSigner(session: self, record: nil, place: .pinless)
        }
        guard let record else { throw KeyCommandError.noActiveKey }
        if let option = choice.place.cardOption {
            throw CardKeyError.needsCardSigner(option: option, name: record.name)
        }
        if case .twoParty = record.storage {
            if case .masterPath = choice.place { throw AirGapError.noHDKey(name: record.name) }
            return TwoPartySigner(session: self, record: record)
        }
        if case .masterPath(let path) = choice.place {
            return try SoftwareSigner.atPath(path, of: record, session: self)
        }
        return SoftwareSigner(session: self, record: record)
    }

    /// Signs `request` with `signer` (by default the one `signer(for:)` chooses), checks the
    /// signature — the key that signed is the one expected, recovers from the signature and
    /// verifies it — runs the caller's `finish` (its last step with the signature), and only
    /// then records it in the history: nothing is recorded that was not returned.
    public func sign(
        _ request: SigningRequest, with signer: (any Signer)? = nil,
        finish: (Signed) throws -> Void = { _ in }
    ) throws -> Signed {
        if let e = request.expected, e.actual != e.expected {
            throw SigningRefusal.digestMismatch(
                name: e.name, actual: "0x" + Hex.encode(e.actual), expected: "0x" + Hex.encode(e.expected))
        }
        let signer = try signer ?? self.signer(for: request.signer)
        let made = try signer.make(request)
        let recovered = try? made.signature.recoverPublicKey(digest: request.digest)
        let verified =
            made.publicKey == made.expected && recovered == made.expected
            && Secp256k1.verify(made.signature.signature, digest: request.digest, publicKey: made.expected)
        return try record(
            made.signature, digest: request.digest, publicKey: made.publicKey,
            keyName: signer.keyName, path: made.path, verified: verified,
            checkedAgainst: made.checkedAgainst, warning: made.warning, kind: request.kind,
            chainID: request.chainID, store: made.store,
            keyID: signer.keyRecord.flatMap { $0.name == signer.keyName ? $0.id : nil }, finish: finish)
    }
}
