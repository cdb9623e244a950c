import CardProtocol
import Foundation
import WalletCore
import WalletCrypto
import WalletStore

// The signers (docs/architecture.md, "Signing"): a stored software key, a key given as a value,
// and the card; the two-party key's is in TwoPartySigner.swift. `Session.signer(for:)`
// (SigningRequest.swift) chooses one, `Session.sign` checks and records what it signs.

/// One signature, however it was made: what every signing command shows (docs/language.md,
/// "Signatures").
public struct Signed: Sendable {
    /// The 32-byte digest that was signed.
    public let digest: [UInt8]
    /// The signature, with its recovery id (`v` 27/28, `yParity` 0/1).
    public let signature: EthereumSignature
    /// The public key that signed (the card's answer, or the software key's).
    public let publicKey: PublicKey
    /// Its Ethereum address (EIP-55).
    public let signer: String
    /// The stored key's name, under which the history records the signature.
    public let keyName: String
    /// The path that signed, when the signer knows it (a card's `--path` or PIN-less path).
    public let path: DerivationPath?
    /// True when the signature checked out against `checkedAgainst`.
    public let verified: Bool
    /// What the signature was checked against.
    public let checkedAgainst: String
    /// A warning that goes with every signature of this session (a duress login), if any.
    public let warning: String?
}

extension Session {
    /// Gives the one result shape, runs the caller's `finish` on it, then records the signature
    /// in the history (one row per signature, whoever signed): a `finish` that throws leaves no row.
    /// `store` nil: nothing is recorded (a given key, with no store in the home yet). `keyID`:
    /// the row id of the key called `keyName`, when the signer read its record.
    func record(
        _ signature: RecoverableSignature, digest: [UInt8], publicKey: PublicKey, keyName: String,
        path: DerivationPath?, verified: Bool, checkedAgainst: String, warning: String?,
        kind: SignatureKind, chainID: UInt64?, store: WalletStore?, keyID: Int64? = nil,
        finish: (Signed) throws -> Void = { _ in }
    ) throws -> Signed {
        let signer = EthereumAddress(publicKey: publicKey).checksummed
        let signed = Signed(
            digest: digest, signature: try EthereumSignature(signature), publicKey: publicKey, signer: signer,
            keyName: keyName, path: path, verified: verified, checkedAgainst: checkedAgainst, warning: warning)
        try finish(signed)
        _ = try store?.recordSignature(
            NewHistoryEntry(
                keyName: keyName, kind: kind, digest: digest,
                signature: signature.compact, signer: signer, verified: verified,
                chainID: chainID, keyID: keyID))
        return signed
    }
}

// MARK: - A stored software key

/// A stored software key (ECDSA, or an HD-CHILD derived from its master's mnemonic or seed):
/// RFC 6979, checked against the stored public key.
struct SoftwareSigner: Signer {
    let session: Session
    let record: KeyRecord

    var keyName: String { record.name }
    var keyRecord: KeyRecord? { record }

    /// The stored public key, known without the vault; a key that cannot sign is refused.
    func publicKey() throws -> PublicKey { try Self.storedKey(of: record, signingKinds: [.ecdsa, .hdChild]) }

    /// `record`'s stored public key when its kind is one that signs (`signingKinds`), else
    /// `cannotSign`: what a signer knows of its key before it opens the vault.
    static func storedKey(of record: KeyRecord, signingKinds: Set<KeyKind>) throws -> PublicKey {
        guard signingKinds.contains(record.kind), let p = record.publicKey else {
            throw KeyCommandError.cannotSign(name: record.name, kind: record.kind.rawValue)
        }
        return try PublicKey(bytes: p)
    }

    func make(_ request: SigningRequest) throws -> MadeSignature {
        let store = try session.unlockedStore()
        let key = try store.read { tx in try Session.signingKey(record, tx) }
        let signature = try key.sign(digest: request.digest)
        let stored = try record.publicKey.map { try PublicKey(bytes: $0) } ?? key.publicKey
        return MadeSignature(
            signature: signature, publicKey: key.publicKey, expected: stored, path: record.path,
            checkedAgainst: "the stored key, by recovery", warning: nil, store: store)
    }

    /// The key at `path` from `record`'s software HD master (`qr.sign`): signs as a given key
    /// (recorded under its address), with the master's fingerprint to compare.
    static func atPath(_ path: DerivationPath, of record: KeyRecord, session: Session) throws -> GivenKeySigner {
        let seed = try session.unlockedStore().read { tx in try Session.masterSeed(of: record, tx)?.seed }
        guard let seed else { throw AirGapError.noHDKey(name: record.name) }
        let master = try ExtendedKey.master(seed: seed)
        guard let key = try master.derive(path).privateKey else { throw AirGapError.noHDKey(name: record.name) }
        return GivenKeySigner(
            session: session, key: key, path: path, fingerprint: master.fingerprint, keyRecord: record)
    }
}

// MARK: - A key given as a value

/// A key the command was given as a value (`sign … --key $k`: an HD key, a private key) and
/// that is not stored, as `cast wallet sign --private-key` signs: RFC 6979, checked by recovery.
/// The history holds no secret, so the signature is recorded — under the key's address — in
/// the home's store when there is one, without asking for the vault; none is made for it.
struct GivenKeySigner: Signer {
    let session: Session
    let key: PrivateKey
    /// The key's path from its master, when the value knew it.
    let path: DerivationPath?
    /// Its master's fingerprint, when known (a key `qr.sign` derived).
    var fingerprint: UInt32? = nil
    /// The stored HD key it was derived from (`qr.sign`); nil for a key given as a value.
    var keyRecord: KeyRecord? = nil

    /// The key's address (EIP-55): what the history and the result name it by.
    var keyName: String { EthereumAddress(publicKey: key.publicKey).checksummed }

    func publicKey() -> PublicKey { key.publicKey }

    func masterFingerprint() -> UInt32? { fingerprint }

    func make(_ request: SigningRequest) throws -> MadeSignature {
        MadeSignature(
            signature: try key.sign(digest: request.digest), publicKey: key.publicKey, expected: key.publicKey,
            path: path, checkedAgainst: "the given key, by recovery", warning: nil, store: session.existingStore())
    }
}

extension Session {
    /// The software HD master a key derives from, and its BIP-32 seed: the key itself when it
    /// is a master, its parent for an HD-CHILD; nil for other keys (or a master on a card).
    public static func masterSeed(
        of record: KeyRecord, _ tx: StoreTransaction
    ) throws -> (master: KeyRecord, seed: Secret)? {
        let master: KeyRecord
        switch record.kind {
        case .hdMaster: master = record
        case .hdChild:
            guard let parentID = record.parentID else { return nil }
            master = try tx.key(id: parentID)
        default: return nil
        }
        guard master.kind == .hdMaster, master.storage == .software else { return nil }
        return (master, try seed(of: tx.openSecret(of: master)))
    }

    /// The private key a stored software key signs with: its own (ECDSA), or derived from its
    /// master's mnemonic or seed along its path (HD-CHILD). Reads in `tx`, the transaction
    /// `record` came from, so signing costs one snapshot and no second lookup.
    public static func signingKey(_ record: KeyRecord, _ tx: StoreTransaction) throws -> PrivateKey {
        if record.retired {
            throw KeyCommandError.retired(
                name: record.name, successor: try record.successorID.map { try tx.key(id: $0).name })
        }
        if case .twoParty = record.storage { throw TwoPartyError.noWholeKey(name: record.name) }
        switch record.kind {
        case .ecdsa:
            return try PrivateKey(try tx.openSecret(of: record).payload)
        case .hdChild:
            guard let path = record.path, let (_, seed) = try masterSeed(of: record, tx) else {
                throw KeyCommandError.cannotSign(name: record.name, kind: record.kind.rawValue)
            }
            guard let key = try ExtendedKey.master(seed: seed).derive(path).privateKey else {
                throw KeyCommandError.cannotSign(name: record.name, kind: record.kind.rawValue)
            }
            return key
        default:
            throw KeyCommandError.cannotSign(name: record.name, kind: record.kind.rawValue)
        }
    }

    /// The BIP-32 seed of an HD-MASTER's sealed secret: a mnemonic (with its passphrase) or a seed.
    public static func seed(of secret: KeySecret) throws -> Secret {
        guard secret.kind == .mnemonic else { return secret.payload }
        let m = try Mnemonic(phrase: secret.payload)
        return try secret.passphrase.map { p throws(MnemonicError) in try m.seed(passphrase: p) } ?? m.seed()
    }
}

// MARK: - The card

/// The card's key: SIGN with the current key, a derived one (one SIGN) or the PIN-less path;
/// checked against the key the card exports (or the PIN-less key `card.pinless` recorded).
struct CardSigner: Signer {
    let session: Session
    let card: CardLink
    /// Which key of the card signs.
    let option: SignOption
    /// The absolute path of a derived key (`option` `.derive…`), for the result.
    let derivedPath: DerivationPath?
    /// The stored card key signing (else the card's newest record, else `card-UID`).
    let keyName: String
    let keyRecord: KeyRecord?

    /// The card's signer at `place`, after checking that `record` is a key of this card. The
    /// PIN-less path needs no channel; the others need `card.login`. A relative path is resolved
    /// against the card's current path (one GET STATUS), so its depth is checked before SIGN is
    /// sent and the result names the path that signed.
    init(session: Session, record: KeyRecord?, place: SignerChoice.Place) throws {
        var pinless = false
        if case .pinless = place { pinless = true }
        let card = try pinless ? session.requireCard() : session.requireLoggedIn()
        if let record { try card.checkHolds(record) }
        switch place {
        case .current: (option, derivedPath) = (.current, nil)
        case .pinless: (option, derivedPath) = (.pinless, nil)
        case .cardPath(let requested, let makeCurrent):
            let path = try card.absolutePath(requested)
            let cardPath = try CardKeyPath(source: requested.source, components: requested.components)
            (option, derivedPath) = (makeCurrent ? .deriveAndMakeCurrent(cardPath) : .derive(cardPath), path)
        case .masterPath(let path):
            (option, derivedPath) = (.derive(try CardKeyPath(source: .master, components: path.components)), path)
        }
        self.session = session
        self.card = card
        keyRecord = record
        keyName = try record?.name ?? session.cardKeys(of: card).last?.name ?? "card-" + card.shortUID
    }

    /// The key that should sign, by the card's own export (or what `card.pinless` recorded), with
    /// its path and what it is in words; no key for a PIN-less path that was not recorded here.
    func expected(_ store: WalletStore) throws -> (key: PublicKey?, path: DerivationPath?, what: String) {
        switch option {
        case .pinless:
            let saved = try store.setting(card.pinlessSetting).flatMap(PinlessRecord.init)
            return (
                saved?.publicKey, saved?.path,
                saved == nil ? "the key in the card's answer" : "the PIN-less key recorded by card.pinless"
            )
        case .current, .deriveAndMakeCurrent:
            return (
                try card.commands.exportKey(.current, kind: .publicKey).publicKey, derivedPath,
                "the key exported from the card"
            )
        case .derive(let p):
            return (
                try card.commands.exportKey(.derive(p), kind: .publicKey).publicKey, derivedPath,
                "the key exported from the card"
            )
        }
    }

    func publicKey() throws -> PublicKey {
        if case .deriveAndMakeCurrent(let p) = option {
            return try card.commands.exportKey(.derive(p), kind: .publicKey).publicKey
        }
        guard let key = try expected(session.store()).key else { throw CardKeyError.pinlessUnknown }
        return key
    }

    func masterFingerprint() throws -> UInt32? {
        let master = try card.commands.exportKey(
            .derive(try CardKeyPath(source: .master, components: [])), kind: .publicKey)
        return ExtendedKey.fingerprint(of: master.publicKey.compressed)
    }

    func make(_ request: SigningRequest) throws -> MadeSignature {
        let store = try session.store()
        let signed = try card.commands.sign(digest: request.digest, option: option)
        let (key, path, what) = try expected(store)
        return MadeSignature(
            signature: signed.signature, publicKey: signed.publicKey, expected: key ?? signed.publicKey,
            path: path, checkedAgainst: what, warning: card.known.pinVerified ? card.known.keyWarning : nil,
            store: store)
    }
}

/// The PIN-less path `card.pinless` set, with the public key the card exported for it:
/// `m/44'/60'/0'/0/0 <compressed public key hex>` in the store's settings.
public struct PinlessRecord {
    public let path: DerivationPath
    public let publicKey: PublicKey

    public init(path: DerivationPath, publicKey: PublicKey) {
        self.path = path
        self.publicKey = publicKey
    }

    public init?(_ text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let p = try? DerivationPath(String(parts[0])),
            let b = try? Hex.decode(String(parts[1])), let k = try? PublicKey(bytes: b)
        else { return nil }
        path = p
        publicKey = k
    }

    public var text: String { path.description + " " + Hex.encode(publicKey.compressed) }
}

extension CardLink {
    /// The store setting that keeps this card's PIN-less path (`PinlessRecord`).
    public var pinlessSetting: String { "card.pinless." + instanceUID }

    /// The store setting that says the last login on this 4.0 card used the duress PIN.
    public var duressLoginSetting: String { "card.duress-login." + instanceUID }

    /// The absolute path `requested` names on this card; asks the card for its current path only
    /// when the request is relative to it. A refusal is a `CardPathError` (nothing was sent).
    public func absolutePath(_ requested: CardPathRequest) throws -> DerivationPath {
        let current = requested.source == .master ? [] : try commands.getKeyPath().components
        return DerivationPath(absolute: true, try requested.resolve(current: current))
    }

    /// Refuses a key record that is not an active key of this card.
    public func checkHolds(_ record: KeyRecord) throws(CardKeyError) {
        guard case .card(let uid) = record.storage else { throw .retiredCardKey(name: record.name) }
        guard uid == instanceUID else {
            throw .otherCard(name: record.name, keyCard: String(uid.prefix(8)), connected: shortUID)
        }
    }
}
