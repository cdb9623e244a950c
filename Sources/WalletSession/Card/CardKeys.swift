import CardProtocol
import Foundation
import WalletCore
import WalletCrypto
import WalletStore

// The card's key in kcs's books (docs/card.md, docs/store.md): the CARD key record kcs keeps for
// the key a card holds, what later logins compare with (the duress check), the PIN-less path,
// and moving the card's current key.

extension Session {
    /// Records the card's key (its master public key, read with EXPORT KEY) as a CARD key,
    /// retiring the card keys of an earlier key of this card; an entry for the same key is
    /// reused. `keyUID` is what LOAD KEY or GENERATE KEY just answered (nil when kcs did not put
    /// the key there). `checkKey` is the key at `CardLink.keyCheckPath` the loaded words give, when
    /// kcs knows them: what later logins compare with, instead of what this session's card derives.
    /// Returns the key record with the key UID.
    public func recordCardKey(
        of card: CardLink, keyUID: [UInt8]?, source: KeySource, name: String?,
        checkKey: PublicKey? = nil
    ) throws -> (record: KeyRecord, keyUID: [UInt8]) {
        let master = try CardKeyPath(source: .master, components: [])
        let key = try card.commands.exportKey(.derive(master), kind: .publicKey).publicKey
        let uid = Hash.sha256(key.uncompressed)
        if let keyUID, keyUID != uid {
            throw CardError.malformedResponse(
                command: .exportKey, detail: "the master public key does not match the key UID")
        }
        let store = try self.store()
        let storage = KeyStorage.card(instanceUID: card.instanceUID)
        let previousActive = activeKey.flatMap { try? store.findKey(named: $0) }
        let record: KeyRecord = try store.write { tx in
            let mine = try tx.keys(includeRetired: false).filter { $0.kind == .card && $0.storage == storage }
            if let same = mine.first(where: { $0.publicKey == key.compressed }) { return same }
            for old in mine { _ = try tx.retireKey(named: old.name) }
            return try tx.addKey(
                NewKey(
                    name: name, kind: .card, source: source, storage: storage, publicKey: key,
                    address: EthereumAddress(publicKey: key).checksummed,
                    path: DerivationPath(absolute: true, [])))
        }
        // The active signer follows the card's new key.
        if let previousActive, previousActive.kind == .card, previousActive.storage == storage {
            activeKey = record.name
        }
        // LOAD KEY, GENERATE KEY and REMOVE KEY clear the card's PIN-less path.
        if keyUID != nil { try card.forgetPinlessPath(in: store) }
        // What later logins compare with: kept for the same key, unless kcs just put a key on the card.
        let check = try store.cardKeyCheck(instanceUID: card.info.instanceUID)
        if keyUID != nil || check?.keyUID != uid {
            // A key without a chain code derives nothing, with any PIN: there is nothing to check.
            if let derived = try checkKey ?? card.keyCheckKey() {
                try store.saveCardKeyCheck(
                    CardKeyCheck(
                        instanceUID: card.info.instanceUID, masterPublicKey: key,
                        path: CardLink.keyCheckPath.description, publicKey: derived))
            } else {
                try store.deleteCardKeyCheck(instanceUID: card.info.instanceUID)
            }
            card.known.keysChecked(warning: nil)
        }
        return (record, uid)
    }

    /// `card.mnemonic --load`: the card generates a mnemonic and loads its `seed` as its key
    /// (refused over a key unless `force`), the words are shown once, and the key is recorded.
    public func loadCardMnemonic(
        words: Mnemonic.WordCount, force: Bool, name: String?,
        seed: (Mnemonic) throws -> Secret
    ) throws -> (record: KeyRecord, keyUID: [UInt8]) {
        let card = try requireLoggedIn()
        try card.ensureReplaceable(force: force)
        let mnemonic = try card.commands.generateMnemonic(wordCount: words)
        let uid = try card.commands.loadKey(seed: try seed(mnemonic))
        mnemonic.withWords { list in
            var lines = ["Write these \(list.count) words down, in order; they are shown only now:"]
            for (i, w) in list.enumerated() { lines.append(String(format: "%3d. %@", i + 1, w)) }
            show(lines.joined(separator: "\n"))
        }
        return try recordCardKey(of: card, keyUID: uid, source: .generated, name: name)
    }

    /// `card.load`: LOAD KEY (`load`, after the refusal to replace a key unless `force`), then the
    /// key recorded. With the BIP-32 `seed` that was loaded (a mnemonic's or a seed's, not a key
    /// pair's nor LEE mode's), the key the card derives at `CardLink.keyCheckPath` is compared with
    /// the one the seed gives: the same master key with another child is a duress login — the
    /// card derives with the duress chain code (docs/card.md, "Duress logins") — and every later
    /// login is compared with the seed's key, not this session's. Returns the record, the key UID
    /// and the warning (also kept on the link, which `sign` repeats).
    public func loadCardKey(
        _ card: CardLink, force: Bool, seed: Secret?, source: KeySource, name: String?,
        load: (KeycardCommandSet) throws -> [UInt8]
    ) throws -> (record: KeyRecord, keyUID: [UInt8], warning: String?) {
        try card.ensureReplaceable(force: force)
        let uid = try load(card.commands)
        guard let seed else {
            let recorded = try recordCardKey(of: card, keyUID: uid, source: source, name: name)
            return (recorded.record, recorded.keyUID, nil)
        }
        let expected = try ExtendedKey.master(seed: seed).derive(
            DerivationPath(absolute: true, CardLink.keyCheckPath.components)
        ).publicKey
        let derived = try card.keyCheckKey()
        let recorded = try recordCardKey(of: card, keyUID: uid, source: source, name: name, checkKey: expected)
        guard let derived, derived != expected else { return (recorded.record, recorded.keyUID, nil) }
        let warning = try duressLoadWarning(card)
        card.known.keysChecked(warning: warning)
        if card.isVersion4 { try store().setSetting(card.duressLoginSetting, to: "1") }
        return (recorded.record, recorded.keyUID, warning)
    }

    /// What `loadCardKey` says when the words give other keys than the card derives: every login is
    /// a duress login when kcs initialized the card with the duress PIN equal to the PIN (the duress
    /// trap, `CardLink.duressTrapSetting`); otherwise this session is one, and the trap is named as
    /// the cause should the PIN have been the one given.
    func duressLoadWarning(_ card: CardLink) throws -> String {
        let difference =
            "the card derives other keys from these words than any other wallet would (the master key is "
            + "theirs, \(CardLink.keyCheckPath) is not): the card uses its duress chain code, and its addresses and "
            + "signatures are the duress wallet's"
        if try store().setting(card.duressTrapSetting) == "1" {
            return "every login on this card is a duress login: \(difference), because the card was initialized with "
                + "the duress PIN equal to the PIN; \(CardLink.duressTrapRemedy), then load the words again"
        }
        return "this session is a duress login: \(difference). If you logged in with your PIN and not the duress PIN, "
            + "every login on this card is a duress login (its duress PIN equals the PIN): \(CardLink.duressTrapRemedy)"
    }

    /// Retires every card key of this card except `keeping`; returns their names. The active
    /// key is forgotten when it is one of them.
    public func retireCardKeys(of card: CardLink, keeping: String?) throws -> [String] {
        let store = try self.store()
        let storage = KeyStorage.card(instanceUID: card.instanceUID)
        let names: [String] = try store.write { tx in
            var out: [String] = []
            for k in try tx.keys(includeRetired: false)
            where k.kind == .card && k.storage == storage && k.name != keeping {
                _ = try tx.retireKey(named: k.name)
                out.append(k.name)
            }
            return out
        }
        if let a = activeKey, names.contains(where: { $0.lowercased() == a.lowercased() }) { activeKey = nil }
        return names
    }
}

extension CardLink {
    /// Refuses to replace a key the card holds unless `force`.
    public func ensureReplaceable(force: Bool) throws {
        if !force, try commands.getStatus().keyInitialized { throw CardKeyError.keyPresent }
    }

    /// Forgets the card's PIN-less path, in the session and in the store (the card has none).
    public func forgetPinlessPath(in store: WalletStore) throws {
        known.pinless(nil)
        try store.setSetting(pinlessSetting, to: nil)
    }

    /// DERIVE KEY, explaining the card's refusal of a key without a chain code.
    public func derive(_ path: CardKeyPath) throws {
        let result = Result { () throws(CardError) in try commands.deriveKey(path) }
        if case .failure(.conditionsNotSatisfied(let sent)) = result, sent == .deriveKey, known.pinVerified,
            !path.isEmpty
        {
            throw CardKeyError.notExtended
        }
        try result.get()
    }

    /// Makes `target` the card's current key — DERIVE KEY from the shortest source, `current`
    /// being the card's current path — and reads the new current key's public key. A 4.0 card has
    /// no DERIVE KEY: kcs keeps the current path and EXPORT KEY sends the whole path from the
    /// master, which is what `sent` then says (docs/card.md, "Keycard 4.0").
    public func deriveToCurrent(
        _ target: [ChildIndex], from current: [ChildIndex]
    ) throws -> (sent: CardKeyPath, publicKey: PublicKey) {
        let sent =
            isVersion4
            ? try CardKeyPath(source: .master, components: target)
            : CardKeyPath.shortest(to: target, from: current)
        try derive(sent)
        return (sent, try commands.exportKey(.current, kind: .publicKey).publicKey)
    }
}

/// What `card.export` reads.
public enum CardExportKind {
    case publicKey, extendedPublicKey, privateKey
}

/// A key the card exported.
public struct CardExport {
    /// The absolute path of the key.
    public let path: DerivationPath
    public let publicKey: PublicKey
    /// Only for `.privateKey` (EIP-1581 paths).
    public let privateKey: PrivateKey?
    /// Only for `.extendedPublicKey`: the xpub, with its parent's fingerprint.
    public let xpub: String?
}

extension CardLink {
    /// EXPORT KEY of the key at `target` (an absolute path; the current path does not move).
    /// A private key only under EIP-1581 (m/43'/60'/1581'/…), as the applet allows; an xpub
    /// neither of the master nor under EIP-1581 — refused here, before anything is sent.
    public func export(_ kind: CardExportKind, at target: [ChildIndex]) throws -> CardExport {
        do {
            return try exportRefusingHere(kind, at: target)
        } catch CardError.conditionsNotSatisfied(.exportKey) where (try? commands.getStatus().keyInitialized) == false {
            // SW 6985 has several meanings; with no key on the card it is this one.
            throw CardKeyError.noKeyOnCard
        }
    }

    private func exportRefusingHere(_ kind: CardExportKind, at target: [ChildIndex]) throws -> CardExport {
        let shown = DerivationPath(absolute: true, target)
        let path = try CardKeyPath(source: .master, components: target)
        switch kind {
        case .privateKey:
            guard CardKeyPath.isEIP1581(target) else {
                throw CardKeyError.privateNotExportable(path: shown.description)
            }
            let exported = try commands.exportKey(.derive(path), kind: .privateKey)
            guard let privateKey = exported.privateKey else {
                throw CardError.malformedResponse(command: .exportKey, detail: "no private key in the answer")
            }
            return CardExport(path: shown, publicKey: exported.publicKey, privateKey: privateKey, xpub: nil)
        case .extendedPublicKey:
            guard !target.isEmpty else { throw CardKeyError.masterXpub(version4: isVersion4) }
            guard !CardKeyPath.isEIP1581(target) else { throw CardKeyError.xpubNotExportable(path: shown.description) }
            let exported = try commands.exportKey(.derive(path), kind: .extendedPublicKey)
            let parent = try commands.exportKey(
                .derive(try CardKeyPath(source: .master, components: Array(target.dropLast()))), kind: .publicKey)
            let fingerprint = ExtendedKey.fingerprint(of: parent.publicKey.compressed)
            let xkey = try exported.extendedPublicKey(
                depth: UInt8(target.count), parentFingerprint: fingerprint,
                childNumber: target.last!.raw)
            return CardExport(
                path: shown, publicKey: exported.publicKey, privateKey: nil, xpub: try xkey.serialized(.xpub))
        case .publicKey:
            let exported = try commands.exportKey(.derive(path), kind: .publicKey)
            return CardExport(path: shown, publicKey: exported.publicKey, privateKey: nil, xpub: nil)
        }
    }

    /// The PIN-less path kcs set last for this card (the card does not report it), if any.
    public func pinless(in store: WalletStore) throws -> PinlessRecord? {
        try store.setting(pinlessSetting).flatMap(PinlessRecord.init)
    }

    /// SET PINLESS PATH to `requested` (a relative path resolved against the current one), with
    /// the public key the card exports there kept beside it in the store, so a PIN-less signature
    /// can be checked later.
    public func setPinlessPath(_ requested: CardPathRequest, store: WalletStore) throws -> PinlessRecord {
        let target = try absolutePath(requested).components
        let path = try CardKeyPath(source: .master, components: target)
        try commands.setPinlessPath(path)
        known.pinless(DerivationPath(absolute: true, target))
        let key = try commands.exportKey(.derive(path), kind: .publicKey).publicKey
        let record = PinlessRecord(path: DerivationPath(absolute: true, target), publicKey: key)
        try store.setSetting(pinlessSetting, to: record.text)
        return record
    }

    /// Removes the PIN-less path, on the card and in the store.
    public func clearPinlessPath(store: WalletStore) throws {
        try commands.setPinlessPath(nil)
        try forgetPinlessPath(in: store)
    }

    /// `path.find --card`: searches the card's key for `target`. The card keeps its private key:
    /// each hardened node's xpub is exported once (without moving the current path) and the
    /// normal levels are derived on the host.
    public func findPath(_ target: PathSearch.Target, maxIndex: UInt32) throws -> PathSearch.Outcome {
        try PathSearch.search(target, maxIndex: maxIndex) { path in
            try self.commands.exportKey(
                .derive(try CardKeyPath(source: .master, components: path.components)), kind: .extendedPublicKey
            )
            .extendedPublicKey(depth: UInt8(path.components.count))
        }
    }
}

extension Session {
    /// The active card keys of `card`, oldest first.
    public func cardKeys(of card: CardLink) throws -> [KeyRecord] {
        let storage = KeyStorage.card(instanceUID: card.instanceUID)
        return try store().keys(includeRetired: false).filter { $0.kind == .card && $0.storage == storage }
    }
}
