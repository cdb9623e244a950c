import CardProtocol
import EthRPC
import Foundation
import WalletCore
import WalletCrypto
import WalletStore

// Account discovery (docs/eth-node.md, "Discovery"): BIP-44 accounts of a software HD key or of
// the card, scanned with a gap limit against an address history (a node, an explorer, an
// offline list). The card exports each account's extended public key once; every address is
// derived on the host. Results are stored, and a found address can become the active signer.

extension Session {
    /// Scans the accounts of the card (`onCard`, or when no key is named and the active signer
    /// is a card key) or of a software HD key (`keyName`, else the active key), shows progress,
    /// and stores what it found. Returns the stored records.
    public func discoverAccounts(
        onCard: Bool, keyName: String?, coin: SLIP44.Coin, history: any AddressHistory,
        gap: Int, maxAccounts: Int
    ) throws -> [DiscoveredAccountRecord] {
        // Whose accounts: the card (asked, or the active signer), else a software HD key.
        let activeRecord = try activeKey.flatMap { try existingStore()?.findKey(named: $0) }
        let useCard = onCard || (keyName == nil && activeRecord?.kind == .card)
        let owner: DiscoveryOwner
        let ownerName: String
        let externalChain: (UInt32) throws -> ExtendedKey
        if useCard {
            let card = try requireLoggedIn()
            owner = .card(instanceUID: card.instanceUID)
            ownerName = try cardKeys(of: card).last?.name ?? "card-" + card.shortUID
            externalChain = { a in
                // One EXPORT KEY (extended public) per account, without moving the current path.
                let path = try CardKeyPath(
                    source: .master, components: DerivationPath.bip44Account(coin: coin.index, account: a).components)
                return try card.commands.exportKey(.derive(path), kind: .extendedPublicKey).extendedPublicKey(depth: 3)
                    .derive(ChildIndex(0, hardened: false))
            }
        } else {
            guard let name = keyName ?? activeKey else { throw KeyCommandError.noActiveKey }
            let record = try activeRecord.flatMap { $0.name == name ? $0 : nil } ?? store().key(named: name)
            guard record.storage == .software, record.kind == .hdMaster || record.kind == .hdChild else {
                throw KeyCommandError.cannotSign(name: record.name, kind: record.kind.rawValue)
            }
            let found = try unlockedStore().read { tx in try Session.masterSeed(of: record, tx) }
            guard let (master, seed) = found else {
                throw KeyCommandError.cannotSign(name: record.name, kind: record.kind.rawValue)
            }
            let root = try ExtendedKey.master(seed: seed)
            owner = .key(id: master.id)
            ownerName = master.name
            externalChain = { a in
                try root.derive(DerivationPath.bip44Account(coin: coin.index, account: a).appending(ChildIndex(0)))
            }
        }

        let host = prompts
        var last: DiscoveryProgress?
        let found = try AccountDiscovery.run(
            externalChain: externalChain, history: history, gap: gap, maxAccounts: maxAccounts
        ) { p in
            last = p
            host?.progress(Session.progressBar(p))
        }
        host?.progress(nil)
        let rows = found.flatMap(\.used).map { u in
            DiscoveredAddress(
                coinType: coin.index, account: u.account, change: 0, index: u.index,
                address: u.address.checksummed, publicKey: u.publicKey.compressed)
        }
        let records = try store().saveDiscovery(
            owner: owner, ownerName: ownerName, coinType: coin.index, addresses: rows)
        host?.status(
            "checked \(last?.checked ?? 0) addresses: \(records.count) used in \(found.count) account\(found.count == 1 ? "" : "s")"
        )
        return records
    }

    /// A one-line bar: how far the current account's scan is (it stops `gap` addresses after
    /// the last used one), then the totals.
    public static func progressBar(_ p: DiscoveryProgress) -> String {
        let width = 20
        let filled = p.accountLimit > 0 ? min(width, p.accountChecked * width / p.accountLimit) : width
        return "discovering [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            + "] account \(p.account), \(p.checked) address\(p.checked == 1 ? "" : "es") checked, "
            + "\(p.used) used in \(p.accounts) account\(p.accounts == 1 ? "" : "s")"
    }

    /// Makes a discovered address the active signer: on the card, DERIVE KEY to its path (and
    /// the card's key recorded); for a software key, its HD-CHILD (added when missing). Found
    /// under several owners (the same mnemonic on the card and in software), the connected
    /// card is preferred, then the first. Nil when discovery never found `address`.
    public func selectDiscovered(
        _ address: EthereumAddress
    )
        throws -> (record: KeyRecord, path: DerivationPath, onCard: Bool)?
    {
        let store = try self.store()
        var rows = try store.discovered(address: address.checksummed)
        guard !rows.isEmpty else { return nil }
        if rows.count > 1, let card,
            let onCard = rows.first(where: { $0.owner == .card(instanceUID: card.instanceUID) })
        {
            rows = [onCard]
        }
        let row = rows[0]
        switch row.owner {
        case .card(let uid):
            let card = try requireLoggedIn()
            guard card.instanceUID == uid else {
                throw CardKeyError.otherCard(
                    name: row.ownerName, keyCard: String(uid.prefix(8)), connected: card.shortUID)
            }
            let key = try card.deriveToCurrent(row.path.components, from: card.commands.getKeyPath().components)
                .publicKey
            guard EthereumAddress(publicKey: key) == address else {
                throw CardError.malformedResponse(
                    command: .exportKey, detail: "the card's key at \(row.path) is not \(address.checksummed)")
            }
            let record = try recordCardKey(of: card, keyUID: nil, source: .card, name: nil).record
            activeKey = record.name
            return (record, row.path, true)
        case .key(let id):
            let record: KeyRecord = try store.write { tx in
                let master = try tx.key(id: id)
                if let existing = try tx.children(ofKeyNamed: master.name).first(where: {
                    !$0.retired && $0.path == row.path
                }) {
                    return existing
                }
                return try tx.addKey(
                    NewKey(
                        kind: .hdChild, source: .mnemonic, storage: .software,
                        publicKey: try PublicKey(bytes: row.publicKey), address: row.address,
                        path: row.path, parentID: master.id, preset: "bip44"))
            }
            activeKey = record.name
            return (record, row.path, false)
        }
    }
}
