import CardProtocol
import Foundation
import WalletCore
import WalletCrypto

// The wallet's accounts as descriptors (docs/bitcoin.md, "Descriptors"): what a coordinator
// (Bitcoin Core, Sparrow, Specter) imports to watch the wallet and build PSBTs it can sign.

/// One account's descriptors: BIP-44 pkh, BIP-49 sh(wpkh), BIP-84 wpkh and BIP-86 tr (when the
/// signer can sign Taproot), each as receive (…/0/*), change (…/1/*) and multipath (…/<0;1>/*).
public struct AccountDescriptors: Sendable {
    public let receive: [Descriptor]
    public let change: [Descriptor]
    public let multipath: [Descriptor]
    /// The extended key version the chain writes (xpub, tpub).
    public let version: ExtendedKeyVersion
}

extension BitcoinWallet {
    /// The master's fingerprint, for the key origins of descriptors.
    public var fingerprint: UInt32? { keys.fingerprint }

    /// Whether this wallet can sign a Taproot key path (every software key; a 4.0 card).
    public var signsTaproot: Bool {
        if case .card(let card) = source { return card.isVersion4 }
        return true
    }

    /// The extended public key at `path` (an account): derived in software, or exported by the card.
    public func extendedKey(at path: DerivationPath) throws -> ExtendedKey {
        switch source {
        case .software(_, let nodes): return try nodes.key(at: path).neutered
        case .card(let card):
            guard let xpub = try card.export(.extendedPublicKey, at: path.components).xpub else {
                throw PSBTSigningError.noKey(name: keyName, kind: "card without an xpub at \(path)")
            }
            return try ExtendedKey(xpub)
        case .lone: throw PSBTSigningError.noKey(name: keyName, kind: "a single key, with no accounts")
        }
    }
}

extension Session {
    /// The descriptors of account `account` of the keys `choice` names, on `chain`.
    public func accountDescriptors(
        keys choice: BitcoinKeyChoice, account: UInt32, chain: BitcoinChain
    ) throws
        -> AccountDescriptors
    {
        let wallet = try bitcoinWallet(choice)
        guard let fp = wallet.fingerprint else {
            throw PSBTSigningError.noKey(name: wallet.keyName, kind: "a single key, with no accounts")
        }
        var purposes: [(UInt32, Descriptor.Kind)] = [(44, .pkh), (49, .shWpkh), (84, .wpkh)]
        if wallet.signsTaproot { purposes.append((86, .tr)) }
        var receive: [Descriptor] = []
        var change: [Descriptor] = []
        var multipath: [Descriptor] = []
        for (purpose, kind) in purposes {
            let path = DerivationPath(
                absolute: true,
                [
                    ChildIndex(purpose, hardened: true), ChildIndex(chain.coinType, hardened: true),
                    ChildIndex(account, hardened: true),
                ])
            let xpub = try wallet.extendedKey(at: path)
            let origin = KeyOrigin(fingerprint: fp, path: path)
            let key = { (steps: [[UInt32]]) in
                DescriptorKey(origin: origin, extended: xpub, steps: steps, wildcard: .unhardened)
            }
            receive.append(Descriptor(kind: kind, key: key([[0]])))
            change.append(Descriptor(kind: kind, key: key([[1]])))
            multipath.append(Descriptor(kind: kind, key: key([[0, 1]])))
        }
        return AccountDescriptors(
            receive: receive, change: change, multipath: multipath, version: chain.isMainnet ? .xpub : .tpub)
    }

    /// Checks a descriptor's keys against the keys `choice` names: a key whose origin carries the
    /// wallet's fingerprint must be the wallet's key at that path. Answers how many keys were checked.
    public func checkDescriptor(_ d: Descriptor, keys choice: BitcoinKeyChoice) throws -> Int {
        let wallet = try bitcoinWallet(choice)
        guard let fp = wallet.fingerprint else { return 0 }
        var checked = 0
        for key in d.keys {
            guard let origin = key.origin, origin.fingerprint == fp else { continue }
            let ours: PublicKey
            if key.extended != nil {
                ours = try wallet.extendedKey(at: origin.path).publicKey
            } else {
                var ring = wallet.keys
                ours = try ring.key(at: origin.path)
            }
            let theirs = try key.extended?.publicKey ?? (try key.key(index: 0))
            guard
                ours.compressed == theirs.compressed
                    || (key.publicKey?.count == 32 && ours.xOnly.key == theirs.xOnly.key)
            else {
                throw DescriptorError.key(
                    "its origin [\(origin)] carries this wallet's fingerprint, but the wallet's key at \(origin.path) is another"
                )
            }
            checked += 1
        }
        return checked
    }
}
