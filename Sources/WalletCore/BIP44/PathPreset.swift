import Foundation

/// Named derivation-path layouts that wallets use, with `{i}` marking the part that
/// counts accounts or addresses. These are the presets of the Keycard mobile app
/// ("Ledger / MetaMask / Custom") plus the Bitcoin purposes and EIP-1581.
public struct PathPreset: Sendable, Hashable, CustomStringConvertible {
    /// Name a user types (`metamask`, `ledger-live`, …).
    public let name: String
    /// Other names that select the same preset.
    public let aliases: [String]
    /// The layout, e.g. `m/44'/60'/0'/0/{i}`.
    public let template: String
    /// What `{i}` counts.
    public let counts: String
    /// Who uses it.
    public let summary: String
    /// The kind of address a key at this path is shown as.
    public let addressKind: AddressKind

    /// Address kinds a preset implies.
    public enum AddressKind: String, Sendable, Hashable {
        case ethereum
        case bitcoin = "p2pkh"
        case bitcoinNestedSegwit = "p2sh-p2wpkh"
        case bitcoinSegwit = "p2wpkh"
        case bitcoinTaproot = "p2tr"
        case none
    }

    /// The path for index `i` (0 … 2³¹−1).
    public func path(_ i: UInt32) throws(HDError) -> DerivationPath {
        try DerivationPath(template.replacingOccurrences(of: "{i}", with: String(i)))
    }

    /// The index `i` for which `path(i)` equals `path`, if any.
    public func index(of path: DerivationPath) -> UInt32? {
        guard let pattern = try? DerivationPath(template.replacingOccurrences(of: "{i}", with: "0")),
            pattern.isAbsolute == path.isAbsolute, pattern.depth == path.depth
        else { return nil }
        let slot = template.split(separator: "/").dropFirst().firstIndex(where: { $0.contains("{i}") })
            .map { $0 - 1 }
        var found: UInt32?
        for (n, (want, got)) in zip(pattern.components, path.components).enumerated() {
            if n == slot {
                guard want.hardened == got.hardened else { return nil }
                found = got.index
            } else if want != got {
                return nil
            }
        }
        return found
    }

    public var description: String { "\(name) \(template)" }

    // MARK: - The presets

    public static let metamask = PathPreset(
        name: "metamask", aliases: ["trezor"], template: "m/44'/60'/0'/0/{i}", counts: "address",
        summary: "MetaMask, Trezor and most Ethereum wallets: one account, addresses by the last index",
        addressKind: .ethereum)
    public static let ledgerLive = PathPreset(
        name: "ledger-live", aliases: [], template: "m/44'/60'/{i}'/0/0", counts: "account",
        summary: "Ledger Live: one address per hardened account", addressKind: .ethereum)
    public static let ledgerLegacy = PathPreset(
        name: "ledger-legacy", aliases: ["mew"], template: "m/44'/60'/0'/{i}", counts: "address",
        summary: "Ledger Chrome app / MyEtherWallet legacy layout (depth 4)", addressKind: .ethereum)
    public static let bip44 = PathPreset(
        name: "bip44", aliases: [], template: "m/44'/0'/0'/0/{i}", counts: "address",
        summary: "Bitcoin legacy P2PKH (BIP-44)", addressKind: .bitcoin)
    public static let bip49 = PathPreset(
        name: "bip49", aliases: [], template: "m/49'/0'/0'/0/{i}", counts: "address",
        summary: "Bitcoin P2WPKH nested in P2SH (BIP-49)", addressKind: .bitcoinNestedSegwit)
    public static let bip84 = PathPreset(
        name: "bip84", aliases: [], template: "m/84'/0'/0'/0/{i}", counts: "address",
        summary: "Bitcoin native segwit P2WPKH (BIP-84)", addressKind: .bitcoinSegwit)
    public static let bip86 = PathPreset(
        name: "bip86", aliases: [], template: "m/86'/0'/0'/0/{i}", counts: "address",
        summary: "Bitcoin taproot key-path P2TR (BIP-86)", addressKind: .bitcoinTaproot)
    public static let eip1581 = PathPreset(
        name: "eip1581", aliases: [], template: "m/43'/60'/1581'/0'/{i}", counts: "key",
        summary: "EIP-1581 non-wallet keys (Status chat key at index 0)", addressKind: .none)

    /// All presets in display order.
    public static let all: [PathPreset] = [metamask, ledgerLive, ledgerLegacy, bip44, bip49, bip84, bip86, eip1581]

    /// The preset called `name` (case-insensitive, aliases too).
    public static func named(_ name: String) -> PathPreset? {
        let n = name.lowercased()
        return all.first { $0.name == n || $0.aliases.contains(n) }
    }

    /// Every preset that produces `path`, with the index it gives.
    public static func matching(_ path: DerivationPath) -> [(preset: PathPreset, index: UInt32)] {
        all.compactMap { p in p.index(of: path).map { (p, $0) } }
    }
}

extension DerivationPath {
    /// BIP-44's account level, m/44'/`coin`'/`account'` (all hardened): what a wallet exports
    /// an extended public key of, to derive the account's addresses without the private key.
    public static func bip44Account(coin: UInt32, account: UInt32) -> DerivationPath {
        DerivationPath([
            ChildIndex(44, hardened: true), ChildIndex(coin, hardened: true), ChildIndex(account, hardened: true),
        ])
    }

    /// BIP-44's address path m/44'/`coin`'/`account`'/`change`/`index` (0 external, 1 change).
    public static func bip44(coin: UInt32, account: UInt32, change: UInt32 = 0, index: UInt32) -> DerivationPath {
        bip44Account(coin: coin, account: account).appending(ChildIndex(change)).appending(ChildIndex(index))
    }
}
