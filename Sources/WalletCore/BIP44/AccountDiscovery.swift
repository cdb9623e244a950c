// BIP-44 account discovery (bips/bip-0044.mediawiki, "Account discovery"), as the Keycard app
// adapted it: for account 0, 1, … scan the external chain (change 0) until `gap` addresses in a
// row have no history; stop at the first account with no used address at all. The account's
// external-chain public key is all that is needed: every address is derived on the host.

/// Says which addresses have history (a node, an explorer, or an offline list).
public protocol AddressHistory: Sendable {
    /// Whether each address has history, in the order given.
    func used(_ addresses: [EthereumAddress]) throws -> [Bool]
}

/// History from a fixed list of used addresses (offline: teaching and tests).
public struct AddressListHistory: AddressHistory {
    public let usedAddresses: Set<EthereumAddress>
    public init(_ addresses: some Sequence<EthereumAddress>) { usedAddresses = Set(addresses) }
    public func used(_ addresses: [EthereumAddress]) throws -> [Bool] { addresses.map(usedAddresses.contains) }
}

/// A used address found by discovery.
public struct DiscoveredUse: Sendable, Hashable {
    public let account: UInt32
    public let index: UInt32
    public let address: EthereumAddress
    public let publicKey: PublicKey
}

/// One account with history.
public struct DiscoveredAccountResult: Sendable, Hashable {
    public let account: UInt32
    /// Used addresses in index order (never empty).
    public let used: [DiscoveredUse]
    /// Addresses checked in this account.
    public let checked: Int
}

/// Where a discovery is, for a progress bar.
public struct DiscoveryProgress: Sendable, Hashable {
    /// The account being scanned.
    public let account: UInt32
    /// Addresses checked so far, all accounts.
    public let checked: Int
    /// Accounts with history found so far.
    public let accounts: Int
    /// Used addresses found so far.
    public let used: Int
    /// Addresses checked in this account, and how far the scan of this account reaches as
    /// known now (the last used index + gap; it moves on when a used address turns up).
    public let accountChecked: Int
    public let accountLimit: Int
}

public enum AccountDiscovery {
    /// Runs discovery. `externalChain(a)` gives the public key at m/44'/coin'/a'/0 (host or card
    /// export); `gap` is the number of unused addresses in a row that ends an account.
    /// Accounts are scanned up to `maxAccounts`; every window of addresses goes to `history`
    /// in one call, so a source can batch and parallelise it.
    public static func run(
        externalChain: (UInt32) throws -> ExtendedKey, history: any AddressHistory, gap: Int = 20,
        maxAccounts: Int = 100, progress: (DiscoveryProgress) -> Void = { _ in }
    ) throws -> [DiscoveredAccountResult] {
        precondition(gap > 0 && maxAccounts > 0)
        var found: [DiscoveredAccountResult] = []
        var checkedAll = 0, usedAll = 0
        for a in 0..<UInt32(maxAccounts) {
            let chain = try externalChain(a).neutered
            var used: [DiscoveredUse] = []
            var lastUsed = -1
            var next = 0
            while next <= lastUsed + gap {
                let end = lastUsed + gap  // inclusive: `gap` unused addresses after the last used one
                var keys: [(UInt32, PublicKey, EthereumAddress)] = []
                for i in next...end {
                    let child = try chain.derive(ChildIndex(UInt32(i), hardened: false))
                    keys.append((UInt32(i), child.publicKey, EthereumAddress(publicKey: child.publicKey)))
                }
                let answers = try history.used(keys.map(\.2))
                for (k, isUsed) in zip(keys, answers) where isUsed {
                    used.append(DiscoveredUse(account: a, index: k.0, address: k.2, publicKey: k.1))
                    lastUsed = Int(k.0)
                }
                checkedAll += keys.count
                next = end + 1
                progress(
                    DiscoveryProgress(
                        account: a, checked: checkedAll, accounts: found.count + (used.isEmpty ? 0 : 1),
                        used: usedAll + used.count, accountChecked: next, accountLimit: lastUsed + gap + 1))
            }
            if used.isEmpty { break }
            usedAll += used.count
            found.append(DiscoveredAccountResult(account: a, used: used, checked: next))
        }
        return found
    }
}
