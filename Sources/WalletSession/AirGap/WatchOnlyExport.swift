import CardProtocol
import WalletCore
import WalletCrypto
import WalletStore

// Watch-only export that proves itself (docs/qr.md): the account a watch-only wallet should
// watch, as the crypto-hdkey MetaMask's QR hardware wallet pairs with (origin path with the
// master fingerprint, children 0/*, note `account.standard`), from the active software HD key
// or the logged-in card; then what that wallet shows back (a receive address, an xpub) checked
// against the same key.

/// An account exported for a watch-only wallet.
public struct WatchOnlyAccount: Sendable {
    public let hdKey: URHDKey
    public let xpub: String
    public let path: DerivationPath
    public let masterFingerprint: UInt32
    /// The UR (crypto-hdkey, or hdkey with v2), upper case as a QR code carries it.
    public let ur: String
}

/// What `qr.verify` found.
public struct WatchOnlyCheck: Sendable {
    /// The address or xpub the other wallet showed.
    public let shown: String
    /// The path of this key that makes it; nil when none within the search.
    public let path: DerivationPath?
    /// How many paths were tried.
    public let searched: Int
}

extension Session {
    /// The active key's master (software HD key) or the logged-in card (when the active key is
    /// one of its keys), as a way to get extended public keys at paths.
    private func watchOnlySource() throws -> (
        master: UInt32, xpubAt: (DerivationPath) throws -> ExtendedKey, card: CardLink?
    ) {
        guard let name = activeKey else { throw KeyCommandError.noActiveKey }
        let record = try store().key(named: name)
        if record.kind == .card {
            let card = try requireLoggedIn()
            try card.checkHolds(record)
            let master = try card.export(.publicKey, at: []).publicKey
            return (
                ExtendedKey.fingerprint(of: master.compressed),
                { path in
                    try ExtendedKey(try card.export(.extendedPublicKey, at: path.components).xpub ?? "")
                }, card
            )
        }
        let seed = try unlockedStore().read { tx in try Self.masterSeed(of: record, tx)?.seed }
        guard let seed else { throw AirGapError.noHDKey(name: record.name) }
        let master = try ExtendedKey.master(seed: seed)
        return (master.fingerprint, { path in try master.derive(path).neutered }, nil)
    }

    /// `qr.export`: the Ethereum account `account` (m/44'/60'/N') for a watch-only wallet.
    public func exportWatchOnly(account: UInt32, v2: Bool) throws -> WatchOnlyAccount {
        let source = try watchOnlySource()
        let path = DerivationPath(
            absolute: true,
            [
                ChildIndex(44, hardened: true), ChildIndex(60, hardened: true),
                ChildIndex(account, hardened: true),
            ])
        let key = try source.xpubAt(path)
        let hdKey = URHDKey(
            key, path: path, masterFingerprint: source.master,
            children: URKeypath(components: [.index(0, hardened: false), .wildcard(hardened: false)]),
            name: source.card == nil ? "kcs" : "Keycard (kcs)", note: "account.standard")
        let ur = try UniformResource(type: v2 ? "hdkey" : "crypto-hdkey", cbor: hdKey.cbor(v2: v2).encoded).singlePart
            .uppercased()
        return WatchOnlyAccount(
            hdKey: hdKey, xpub: key.description, path: path, masterFingerprint: source.master, ur: ur)
    }

    /// The shapes of an account for a watch-only wallet.
    public enum WatchOnlyForm: String, CaseIterable, Sendable {
        /// crypto-hdkey of m/44'/60'/N' (MetaMask's "hd" mode, `account.standard`).
        case metamask
        /// crypto-account of the first 5 Ledger Live accounts m/44'/60'/i'/0/0 (MetaMask's "pubkey" mode).
        case ledgerLive = "ledger-live"
        /// crypto-account of Bitcoin account N: pkh (BIP-44), sh(wpkh) (BIP-49), wpkh (BIP-84), tr (BIP-86), for Sparrow.
        case sparrow
    }

    /// `qr.export --for ledger-live|sparrow`: the account as a `crypto-account`, upper case.
    public func exportWatchOnlyAccount(
        _ form: WatchOnlyForm, account: UInt32
    ) throws -> (ur: String, account: URAccount) {
        let source = try watchOnlySource()
        let h = { (i: UInt32) in ChildIndex(i, hardened: true) }
        var outputs: [UROutput] = []
        switch form {
        case .metamask:
            throw URError.invalidPart("the MetaMask form is a crypto-hdkey: qr.export without --for")
        case .ledgerLive:
            for i in 0..<UInt32(5) {
                let path = DerivationPath(absolute: true, [h(44), h(60), h(account + i), ChildIndex(0), ChildIndex(0)])
                let key = try source.xpubAt(DerivationPath(absolute: true, Array(path.components.prefix(3)))).derive(
                    "0/0")
                let hd = URHDKey(
                    keyData: Secret(bytes: key.publicKey.compressed), chainCode: nil,
                    origin: URKeypath(path, sourceFingerprint: source.master, depth: 5), note: "account.ledger_live")
                outputs.append(UROutput(scripts: [], body: .key(.hd(hd))))
            }
        case .sparrow:
            // Script expression tags: pkh 403, sh 400, wpkh 404, tr 409 (docs/ur.md §5).
            for (purpose, scripts) in [(UInt32(44), [UInt64(403)]), (49, [400, 404]), (84, [404]), (86, [409])] {
                let path = DerivationPath(absolute: true, [h(purpose), h(0), h(account)])
                let key = try source.xpubAt(path)
                let hd = URHDKey(
                    key, path: path, masterFingerprint: source.master,
                    children: URKeypath(components: [.index(0, hardened: false), .wildcard(hardened: false)]))
                outputs.append(UROutput(scripts: scripts, body: .key(.hd(hd))))
            }
        }
        let a = URAccount(masterFingerprint: source.master, outputs: outputs)
        return (try UniformResource(type: "crypto-account", cbor: a.cbor.encoded).singlePart.uppercased(), a)
    }

    /// `qr.verify`: the address or xpub in the QR codes of `paths`, found among this key's paths
    /// (the presets' accounts and indexes up to `maxIndex`), or not.
    public func verifyWatchOnly(_ paths: [String], maxIndex: UInt32) throws -> WatchOnlyCheck {
        let scanned = try scanQR(paths)
        let source = try watchOnlySource()
        switch scanned {
        case .address(let a, _):
            let outcome = try PathSearch.search(.ethereum(a), maxIndex: maxIndex) { try source.xpubAt($0) }
            return WatchOnlyCheck(shown: a.checksummed, path: outcome.path, searched: outcome.searched)
        case .extendedPublicKey(let key, _, _, let origin):
            if let path = origin?.derivationPath {
                let mine = try source.xpubAt(path)
                return WatchOnlyCheck(
                    shown: key.description, path: mine.publicKey == key.publicKey ? path : nil, searched: 1)
            }
            for account in 0...maxIndex {
                let path = DerivationPath(
                    absolute: true,
                    [
                        ChildIndex(44, hardened: true), ChildIndex(60, hardened: true),
                        ChildIndex(account, hardened: true),
                    ])
                if try source.xpubAt(path).publicKey == key.publicKey {
                    return WatchOnlyCheck(shown: key.description, path: path, searched: Int(account) + 1)
                }
            }
            return WatchOnlyCheck(shown: key.description, path: nil, searched: Int(maxIndex) + 1)
        default:
            throw QRScanError.notAKey(holds: scanned.kind + " where an address or an xpub was expected")
        }
    }
}
