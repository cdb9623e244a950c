import Foundation
import WalletCore
import WalletCrypto
import WalletStore

// The key book (docs/store.md, "Keys"): creating, importing, deleting and revealing keys, and
// choosing the active one. Every write is one store transaction; secrets go in sealed.

extension Session {
    /// A new random ECDSA key.
    public func generateECDSAKey(name: String?) throws -> KeyRecord {
        let key = PrivateKey.generate(using: random)
        return try importPrivateKey(key, name: name, source: .generated)
    }

    /// A new HD master from a new mnemonic (shown once; unless `skipConfirm`, two words asked
    /// back first) with its first MetaMask account.
    public func generateHDKey(words: Mnemonic.WordCount, name: String?, skipConfirm: Bool) throws -> [KeyRecord] {
        let mnemonic = Mnemonic(generating: words, language: .english, using: self.random)
        _ = try unlockedStore()
        mnemonic.withWords { show(Session.backupLines($0).joined(separator: "\n")) }
        if !skipConfirm { try confirmBackup(mnemonic) }
        return try importMnemonic(
            mnemonic, passphrase: nil, preset: .metamask, customPath: nil, accounts: 1, name: name,
            source: .generated)
    }

    /// Stores `mnemonic` as an HD-MASTER and `accounts` HD-CHILD keys, all in one transaction.
    public func importMnemonic(
        _ mnemonic: Mnemonic, passphrase: Secret?, preset: PathPreset?, customPath: String?,
        accounts: Int, name: String?, source: KeySource
    ) throws -> [KeyRecord] {
        let store = try unlockedStore()
        let seed = try passphrase.map { p throws(MnemonicError) in try mnemonic.seed(passphrase: p) } ?? mnemonic.seed()
        let master = try ExtendedKey.master(seed: seed)
        let template = preset?.template ?? customPath ?? PathPreset.metamask.template
        let presetName = preset?.name ?? "custom"
        let kind = preset?.addressKind ?? .ethereum
        var children: [(DerivationPath, ExtendedKey)] = []
        for i in 0..<accounts {
            let path = try DerivationPath(template.replacingOccurrences(of: "{i}", with: String(i)))
            children.append((path, try master.derive(path)))
        }
        let phrase = mnemonic.withPhrase { Secret(utf8: $0) }
        let firstAddress =
            try children.first.map { try Session.address(of: $0.1.publicKey, kind: kind) }
            ?? EthereumAddress(publicKey: master.publicKey).checksummed
        return try store.write { tx in
            let root = try tx.addKey(
                NewKey(
                    name: name, kind: .hdMaster, source: source, storage: .software, publicKey: master.publicKey,
                    address: firstAddress, path: DerivationPath(absolute: true, []), preset: presetName,
                    extendedPublicKey: try master.serialized(.xpub)),
                secret: .mnemonic(phrase, passphrase: passphrase))
            var out = [root]
            for (i, (path, child)) in children.enumerated() {
                // Children are named after their master and account: `savings-0`, `savings-1`.
                let childName = try tx.findKey(named: "\(root.name)-\(i)") == nil ? "\(root.name)-\(i)" : nil
                out.append(
                    try tx.addKey(
                        NewKey(
                            name: childName, kind: .hdChild, source: source, storage: .software,
                            publicKey: child.publicKey,
                            address: try Session.address(of: child.publicKey, kind: kind), path: path,
                            parentID: root.id,
                            preset: presetName)))
            }
            return out
        }
    }

    /// A private key as an ECDSA key.
    public func importPrivateKey(_ key: PrivateKey, name: String?, source: KeySource) throws -> KeyRecord {
        try unlockedStore().addKey(
            NewKey(
                name: name, kind: .ecdsa, source: source, storage: .software,
                publicKey: key.publicKey, address: EthereumAddress(publicKey: key.publicKey).checksummed),
            secret: .privateKey(key.secret))
    }

    /// An extended public key as a watch-only key; its address is the first receiving address
    /// when the key is an account's (depth 3 or less).
    public func importWatchOnly(xpub key: ExtendedKey, text: String, name: String?) throws -> KeyRecord {
        guard !key.isPrivate else { throw KeyCommandError.privateWhereWatchOnly }
        let first = key.depth <= 3 ? try key.derive("0/0") : key
        return try store().addKey(
            NewKey(
                name: name, kind: .watch, source: .xpub, storage: .watch, publicKey: key.publicKey,
                address: EthereumAddress(publicKey: first.publicKey).checksummed, extendedPublicKey: text))
    }

    /// An address as a watch-only key.
    public func importWatchOnly(address: EthereumAddress, name: String?) throws -> KeyRecord {
        try store().addKey(
            NewKey(
                name: name, kind: .watch, source: .address, storage: .watch,
                address: address.checksummed))
    }

    /// Deletes a key (and with `children` an HD master's children) after a confirmation, and
    /// the vault passphrase again (the prompt naming `operation`) when a secret goes; the
    /// active key is forgotten when deleted.
    public func deleteKey(named name: String, children: Bool, yes: Bool, operation: String) throws -> [KeyRecord] {
        let store = try self.store()
        let record = try store.key(named: name)
        try confirm("delete \(record.kind.withArticle) \(record.name)? Its secret is erased", yes: yes)
        if record.hasSecret { _ = try unlockedStore(reconfirming: operation) }
        let deleted = try store.deleteKey(named: name, includingChildren: children)
        forgetActiveKey(ifAmong: deleted.map(\.name))
        return deleted
    }

    /// A key's secret, after the vault passphrase again (the prompt naming `operation`); the
    /// key is marked revealed.
    public func revealSecret(ofKeyNamed name: String, operation: String) throws -> KeySecret {
        let record = try store().key(named: name)
        if case .twoParty = record.storage { throw TwoPartyError.noWholeKey(name: record.name) }
        let store = try unlockedStore(reconfirming: operation)
        let secret = try store.openSecret(named: name)
        _ = try store.markRevealed(named: name)
        return secret
    }

    /// The private key a stored software key signs with (its own, or derived for an HD-CHILD),
    /// after the vault passphrase again (the prompt naming `operation`); the key is marked
    /// revealed. Keys that cannot sign here are refused (`key.cannotSign`).
    public func revealSigningKey(ofKeyNamed name: String, operation: String) throws -> PrivateKey {
        let store = try unlockedStore(reconfirming: operation)
        let key = try store.read { tx in try Session.signingKey(try tx.key(named: name), tx) }
        _ = try store.markRevealed(named: name)
        return key
    }

    /// Makes a key that can sign (ECDSA, HD-CHILD, an active card key) the active signer.
    public func useKey(named name: String) throws -> KeyRecord {
        let record = try store().key(named: name)
        var twoParty = false
        if case .twoParty = record.storage { twoParty = true }
        guard
            record.kind == .ecdsa || record.kind == .hdChild || record.kind == .card
                || (twoParty && record.kind == .hdMaster)
        else {
            if record.kind == .hdMaster {
                let children = try store().keys(includeRetired: false).filter { $0.parentID == record.id }.prefix(3)
                    .map(\.name)
                throw KeyCommandError.masterSignsThroughChildren(name: record.name, children: Array(children))
            }
            throw KeyCommandError.cannotSign(name: record.name, kind: record.kind.rawValue)
        }
        if record.kind == .card, record.retired { throw CardKeyError.retiredCardKey(name: record.name) }
        activeKey = record.name
        return record
    }
}
