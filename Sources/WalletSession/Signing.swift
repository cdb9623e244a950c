import CardProtocol
import Foundation
import WalletCore
import WalletCrypto
import WalletStore

// Every way of signing is one `Signer` (docs/architecture.md, "The application layer"): a stored
// software key, a key given as a value, the card, and the two-party key (TwoPartySigner.swift);
// `qr.sign` (AirGap.swift) chooses one of them. Each returns one `Signed`, checked, and recorded in
// the signing history the same way once the caller's last step with it succeeded.

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

/// Something that signs a digest for the session and records it.
public protocol Signer {
    /// The name the signature is recorded under.
    var keyName: String { get }
    /// Signs `digest`, checks the signature, runs the caller's `finish` (its last step with the
    /// signature: the answer it builds from it), and only then records it in the history as
    /// `kind` (with `chainID` for a transaction or typed data): nothing is recorded that was not
    /// returned. `payload`: what was signed (a message, typed data, a transaction) for a signer
    /// that shows it to someone else first: the two-party co-signer recomputes the digest from it.
    func sign(digest: [UInt8], kind: SignatureKind, chainID: UInt64?, payload: TwoPartyPayload?,
              finish: (Signed) throws -> Void) throws -> Signed
}

extension Signer {
    public func sign(digest: [UInt8], kind: SignatureKind, chainID: UInt64?) throws -> Signed {
        try sign(digest: digest, kind: kind, chainID: chainID, payload: nil, finish: { _ in })
    }

    public func sign(digest: [UInt8], kind: SignatureKind, chainID: UInt64?, payload: TwoPartyPayload?) throws -> Signed {
        try sign(digest: digest, kind: kind, chainID: chainID, payload: payload, finish: { _ in })
    }
}

extension Session {
    /// Gives the one result shape, runs the caller's `finish` on it, then records the signature
    /// in the history (one row per signature, whoever signed): a `finish` that throws leaves no row.
    /// `store` nil: nothing is recorded (a given key, with no store in the home yet).
    func record(_ signature: RecoverableSignature, digest: [UInt8], publicKey: PublicKey, keyName: String,
                            path: DerivationPath?, verified: Bool, checkedAgainst: String, warning: String?,
                            kind: SignatureKind, chainID: UInt64?, store: WalletStore?,
                            finish: (Signed) throws -> Void = { _ in }) throws -> Signed {
        let signer = EthereumAddress(publicKey: publicKey).checksummed
        let signed = Signed(digest: digest, signature: try EthereumSignature(signature), publicKey: publicKey, signer: signer,
                            keyName: keyName, path: path, verified: verified, checkedAgainst: checkedAgainst, warning: warning)
        try finish(signed)
        _ = try store?.recordSignature(NewHistoryEntry(keyName: keyName, kind: kind, digest: digest,
                                                       signature: signature.compact, signer: signer, verified: verified,
                                                       chainID: chainID))
        return signed
    }
}

// MARK: - A stored software key

/// A stored software key (ECDSA, or an HD-CHILD derived from its master's mnemonic or seed):
/// RFC 6979, checked by recovering the key from the signature.
public struct SoftwareSigner: Signer {
    public let session: Session
    public let keyName: String

    public init(session: Session, keyName: String) {
        self.session = session
        self.keyName = keyName
    }

    public func sign(digest: [UInt8], kind: SignatureKind, chainID: UInt64?, payload: TwoPartyPayload?,
                     finish: (Signed) throws -> Void) throws -> Signed {
        let store = try session.unlockedStore()
        let (record, key) = try store.read { tx in
            let record = try tx.key(named: keyName)
            return (record, try Session.signingKey(record, tx))
        }
        let signature = try key.sign(digest: digest)
        let verified = (try? signature.recoverPublicKey(digest: digest)) == key.publicKey
        return try session.record(signature, digest: digest, publicKey: key.publicKey, keyName: record.name, path: record.path,
                                  verified: verified, checkedAgainst: "the stored key, by recovery", warning: nil,
                                  kind: kind, chainID: chainID, store: store, finish: finish)
    }
}

// MARK: - A key given as a value

/// A key the command was given as a value (`sign … --key $k`: an HD key, a private key) and
/// that is not stored, as `cast wallet sign --private-key` signs: RFC 6979, checked by recovery.
/// The history holds no secret, so the signature is recorded — under the key's address — in
/// the home's store when there is one, without asking for the vault; none is made for it.
public struct GivenKeySigner: Signer {
    public let session: Session
    public let key: PrivateKey
    /// The key's path from its master, when the value knew it.
    public let path: DerivationPath?

    public init(session: Session, key: PrivateKey, path: DerivationPath?) {
        self.session = session
        self.key = key
        self.path = path
    }

    /// The key's address (EIP-55): what the history and the result name it by.
    public var keyName: String { EthereumAddress(publicKey: key.publicKey).checksummed }

    public func sign(digest: [UInt8], kind: SignatureKind, chainID: UInt64?, payload: TwoPartyPayload?,
                     finish: (Signed) throws -> Void) throws -> Signed {
        let signature = try key.sign(digest: digest)
        let verified = (try? signature.recoverPublicKey(digest: digest)) == key.publicKey
        return try session.record(signature, digest: digest, publicKey: key.publicKey, keyName: keyName, path: path,
                                  verified: verified, checkedAgainst: "the given key, by recovery", warning: nil,
                                  kind: kind, chainID: chainID, store: session.existingStore(), finish: finish)
    }
}

extension Session {
    /// The software HD master a key derives from, and its BIP-32 seed: the key itself when it
    /// is a master, its parent for an HD-CHILD; nil for other keys (or a master on a card).
    public static func masterSeed(of record: KeyRecord, _ tx: StoreTransaction) throws -> (master: KeyRecord, seed: Secret)? {
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
            throw KeyCommandError.retired(name: record.name, successor: try record.successorID.map { try tx.key(id: $0).name })
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
public struct CardSigner: Signer {
    public let session: Session
    public let card: CardLink
    /// The stored card key signing, if any (else the card's newest record, else `card-UID`).
    public let record: KeyRecord?
    /// Which key of the card signs.
    public let option: SignOption
    /// The absolute path of a derived key (`option` `.derive…`), for the result.
    public let derivedPath: DerivationPath?
    public let keyName: String

    /// A card signer; checks that `record` is a key of this card. `option` `.pinless` needs no
    /// channel; the others need `card.login`.
    public init(session: Session, card: CardLink, record: KeyRecord?, option: SignOption = .current,
                derivedPath: DerivationPath? = nil) throws {
        if let record { try card.checkHolds(record) }
        self.session = session
        self.card = card
        self.record = record
        self.option = option
        self.derivedPath = derivedPath
        keyName = try record?.name ?? session.cardKeys(of: card).last?.name ?? "card-" + card.shortUID
    }

    public func sign(digest: [UInt8], kind: SignatureKind, chainID: UInt64?, payload: TwoPartyPayload?,
                     finish: (Signed) throws -> Void) throws -> Signed {
        let store = try session.store()
        let signed = try card.commands.sign(digest: digest, option: option)
        // Which key should have signed, by the card's own export (or what card.pinless recorded).
        var path = derivedPath
        let expected: PublicKey?
        let checkedAgainst: String
        switch option {
        case .pinless:
            let saved = try store.setting(card.pinlessSetting).flatMap(PinlessRecord.init)
            expected = saved?.publicKey
            path = saved?.path
            checkedAgainst = saved == nil ? "the key in the card's answer" : "the PIN-less key recorded by card.pinless"
        case .current, .deriveAndMakeCurrent:
            expected = try card.commands.exportKey(.current, kind: .publicKey).publicKey
            checkedAgainst = "the key exported from the card"
        case .derive(let p):
            expected = try card.commands.exportKey(.derive(p), kind: .publicKey).publicKey
            checkedAgainst = "the key exported from the card"
        }
        let key = expected ?? signed.publicKey
        let recovered = try? signed.signature.recoverPublicKey(digest: digest)
        let verified = key == signed.publicKey && recovered == key
            && Secp256k1.verify(signed.signature.signature, digest: digest, publicKey: key)
        return try session.record(signed.signature, digest: digest, publicKey: signed.publicKey, keyName: keyName, path: path,
                                  verified: verified, checkedAgainst: checkedAgainst,
                                  warning: card.pinVerified ? card.keyWarning : nil,
                                  kind: kind, chainID: chainID, store: store, finish: finish)
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
              let b = try? Hex.decode(String(parts[1])), let k = try? PublicKey(bytes: b) else { return nil }
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

    /// Refuses a key record that is not an active key of this card.
    public func checkHolds(_ record: KeyRecord) throws(CardKeyError) {
        guard case .card(let uid) = record.storage else { throw .retiredCardKey(name: record.name) }
        guard uid == instanceUID else {
            throw .otherCard(name: record.name, keyCard: String(uid.prefix(8)), connected: shortUID)
        }
    }
}

extension Session {
    /// The active card keys of `card`, oldest first.
    public func cardKeys(of card: CardLink) throws -> [KeyRecord] {
        let storage = KeyStorage.card(instanceUID: card.instanceUID)
        return try store().keys(includeRetired: false).filter { $0.kind == .card && $0.storage == storage }
    }

    /// The signer of a signing command: the card when the signing key (`keyName`, else the
    /// active key) is a card key, or for a PIN-less signature when no key was named; else the
    /// software key. `cardSigner` makes the card's signer for a card key
    /// record (nil for the PIN-less case), so the command decides which key of the card signs.
    public func signer(keyName: String?, pinless: Bool,
                       cardSigner: (KeyRecord?) throws -> CardSigner) throws -> any Signer {
        let name = keyName ?? activeKey
        let record = try name.map { try store().key(named: $0) }
        if let record, record.kind == .card { return try cardSigner(record) }
        if pinless, keyName == nil { return try cardSigner(nil) }
        guard let record else { throw KeyCommandError.noActiveKey }
        if case .twoParty = record.storage { return TwoPartySigner(session: self, keyName: record.name) }
        return SoftwareSigner(session: self, keyName: record.name)
    }

    /// The address that will sign with `keyName` or the active key, before signing (for the
    /// nonce and the gas estimate): a software key's own, or the card's current key by export.
    public func signerAddress(keyName: String?) throws -> EthereumAddress {
        guard let name = keyName ?? activeKey else { throw KeyCommandError.noActiveKey }
        let record = try store().key(named: name)
        if record.kind == .card {
            let card = try requireLoggedIn()
            try card.checkHolds(record)
            return EthereumAddress(publicKey: try card.commands.exportKey(.current, kind: .publicKey).publicKey)
        }
        var twoParty = false
        if case .twoParty = record.storage { twoParty = true }
        guard record.kind == .ecdsa || record.kind == .hdChild || (twoParty && record.kind == .hdMaster), let p = record.publicKey else {
            throw KeyCommandError.cannotSign(name: record.name, kind: record.kind.rawValue)
        }
        return EthereumAddress(publicKey: try PublicKey(bytes: p))
    }
}

/// The tweak of a 4.0 card's Schnorr signature (docs/keycard-protocol.md §14.6).
public enum SchnorrTweak: Equatable {
    /// None: a plain BIP-340 signature by the key.
    case none
    /// BIP-341's TapTweak of the key without a script tree (a BIP-86 key-path spend).
    case taproot
    /// 32 bytes given.
    case bytes([UInt8])
}

/// A Schnorr signature from a 4.0 card, checked under the output key.
public struct SchnorrSigned {
    public let path: DerivationPath
    /// The card's key at `path` (before the tweak).
    public let publicKey: PublicKey
    /// The key the signature verifies under: x(P) + t·G.
    public let outputKey: XOnlyPublicKey
    public let tweak: [UInt8]
    /// x(R) ‖ s.
    public let signature: [UInt8]
}

extension Session {
    /// `sign --schnorr`: a BIP-340 signature of `digest` by the logged-in 4.0 card's key at `path`
    /// (the current path when nil), tweaked as asked; the card's answer must carry the key EXPORT
    /// KEY gives for the path and verify under the tweaked key before it is returned. Not recorded in the signing history, which holds
    /// Ethereum-style ECDSA signatures.
    public func signSchnorrOnCard(digest: [UInt8], tweak: SchnorrTweak, path: DerivationPath?) throws -> SchnorrSigned {
        let card = try requireVersion4("a Schnorr signature")
        let path = try path ?? card.commands.getKeyPath()
        // The key at the path, for the Taproot tweak and to check the card signed with it.
        let key = try card.commands.exportKeyV2(path: path, kind: .publicKey).publicKey
        let t: [UInt8]
        switch tweak {
        case .none: t = [UInt8](repeating: 0, count: 32)
        case .bytes(let given): t = given
        case .taproot: t = Hash.tagged("TapTweak", key.xOnly.key.bytes)
        }
        let signed: CardSchnorrSignature
        do {
            signed = try card.commands.signSchnorrV2(digest: digest, tweak: t, path: path, expectedKey: key)
        } catch {
            if case .wrongData = error, path.components.count <= CardKeyPath.maximumDepth {
                throw CardKeyError.schnorrWithoutTweak(depth: path.components.count)
            }
            throw error
        }
        return SchnorrSigned(path: path, publicKey: signed.publicKey, outputKey: signed.outputKey, tweak: t,
                             signature: signed.signature)
    }
}

/// A BIP-85 application (docs/keycard-protocol.md §14.8): the path under m/83696968' and how many
/// bytes of entropy the card returns for it.
public enum BIP85Application: Equatable {
    /// BIP-39 words (12, 15, 18, 21 or 24), English.
    case mnemonic(words: Int, index: UInt32)
    /// A compressed WIF private key (HD-seed WIF).
    case wif(index: UInt32)
    /// An extended private key: chain code = bytes 0..<32, key = bytes 32..<64.
    case xprv(index: UInt32)
    /// `bytes` (16…64) of hex.
    case hex(bytes: Int, index: UInt32)

    /// The BIP-85 path and entropy length.
    public var request: (path: DerivationPath, length: Int) {
        let h = { (i: UInt32) in ChildIndex(i, hardened: true) }
        switch self {
        case .mnemonic(let words, let index):
            return (DerivationPath(absolute: true, [h(83_696_968), h(39), h(0), h(UInt32(words)), h(index)]), words * 4 / 3)
        case .wif(let index): return (DerivationPath(absolute: true, [h(83_696_968), h(2), h(index)]), 32)
        case .xprv(let index): return (DerivationPath(absolute: true, [h(83_696_968), h(32), h(index)]), 64)
        case .hex(let bytes, let index):
            return (DerivationPath(absolute: true, [h(83_696_968), h(128_169), h(UInt32(bytes)), h(index)]), bytes)
        }
    }
}

/// What `card.bip85` derived, post-processed on the host as BIP-85 says.
public enum BIP85Output {
    case mnemonic(Mnemonic)
    case wif(Secret)
    case xprv(ExtendedKey)
    case hex(Secret)
}

extension Session {
    /// The logged-in card (with `pinVerified` false: the open channel), which must be a 4.0 card for `feature`.
    public func requireVersion4(_ feature: String, pinVerified: Bool = true) throws -> CardLink {
        let card = try pinVerified ? requireLoggedIn() : requireChannel()
        guard card.info.usesSecureChannelV2 else { throw CardKeyError.needsVersion4(feature: feature) }
        return card
    }

    /// `card.bip85`: the card derives the entropy (EXPORT BIP85), the host encodes it.
    public func cardBIP85(_ application: BIP85Application) throws -> BIP85Output {
        let card = try requireVersion4("BIP-85 entropy")
        let (path, length) = application.request
        let entropy = try Self.inThisBuild { () throws(CardError) in try card.commands.exportBIP85(path: path, length: length) }
        switch application {
        case .mnemonic: return .mnemonic(try Mnemonic(entropy: entropy))
        case .wif: return .wif(WIF(privateKey: try PrivateKey(entropy)).encoded())
        case .xprv:
            let (chain, key) = entropy.withUnsafeBytes { (Array($0[0..<32]), Array($0[32..<64])) }
            var keyBytes = key
            defer { Secret.wipe(&keyBytes) }
            return .xprv(try ExtendedKey(privateKey: try PrivateKey(bytes: keyBytes), chainCode: chain))
        case .hex: return .hex(entropy)
        }
    }

    /// `card.lee`: EXPORT LEE at `path` of a 4.0 card in LEE mode.
    public func cardLEE(path: DerivationPath) throws -> LEEKeys {
        let card = try requireVersion4("LEE mode")
        do {
            return try Self.inThisBuild { () throws(CardError) in try card.commands.exportLEE(path: path) }
        } catch CardError.conditionsNotSatisfied(.exportLEE) {
            throw CardKeyError.notLEEMode
        }
    }

    /// `card.ecdh`: x(k·peer) with the 4.0 card's key at `path` (NIP-44 or EIP-1581 subtrees).
    public func cardECDH(peer: PublicKey, path: DerivationPath) throws -> Secret {
        let card = try requireVersion4("ECDH")
        let nostr = [ChildIndex(44, hardened: true), ChildIndex(1237, hardened: true)]
        guard CardKeyPath.isEIP1581(path.components) || (path.components.count >= 5 && path.components.starts(with: nostr)) else {
            throw CardKeyError.ecdhPath(path: path.description)
        }
        return try Self.inThisBuild { () throws(CardError) in try card.commands.ecdh(peer: peer, path: path) }
    }

    /// Runs a command newer 4.0 builds have; `6D 00` becomes `notInThisBuild` (docs/keycard-protocol.md §14).
    static func inThisBuild<R>(_ body: () throws(CardError) -> R) throws -> R {
        do {
            return try body()
        } catch .insNotSupported(let command) {
            throw CardKeyError.notInThisBuild(command: command.name)
        }
    }

    /// `card.challenge`: `length` random bytes from a 4.0 card.
    public func cardChallenge(length: Int) throws -> [UInt8] {
        let card = try requireVersion4("GET CHALLENGE", pinVerified: false)
        return try Self.inThisBuild { () throws(CardError) in try card.commands.getChallenge(length: length) }
    }
}
