import Foundation
import WalletCrypto

// Which path made an address (`path.find`): derive, offline, the layouts wallets use and
// compare addresses. First the presets with their `{i}` from 0 to the limit (MetaMask,
// Ledger Live, Ledger legacy for an Ethereum address; the BIP-44/49/84/86 preset of a
// Bitcoin address's kind), then the wider grid a wallet with several accounts can reach:
// accounts 0…N × chains 0 and 1 × address indexes 0…N under the same purpose and coin.

/// An offline search for the derivation path of an address.
public enum PathSearch {
    /// The address looked for.
    public enum Target: Sendable, Hashable, CustomStringConvertible {
        /// An Ethereum address (coin type 60).
        case ethereum(EthereumAddress)
        /// A Bitcoin mainnet address of a kind; the text is normalised (bech32 in lower case).
        case bitcoin(BitcoinAddressKind, String)

        /// Recognises an Ethereum address (0x + 40 hex digits, EIP-55 checked when mixed case)
        /// or a Bitcoin mainnet address: 1… P2PKH, 3… P2SH (searched as BIP-49 P2SH-P2WPKH),
        /// bc1q… P2WPKH, bc1p… P2TR. Returns nil for text that is none of these shapes.
        ///
        /// - Throws: `AddressError` for a malformed Ethereum address or a wrong EIP-55
        ///   checksum, `Base58Error` / `Bech32Error` for a Bitcoin address with a bad checksum.
        public static func parse(_ text: String) throws -> Target? {
            let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if t.hasPrefix("0x") || t.hasPrefix("0X") { return .ethereum(try EthereumAddress(t)) }
            let lower = t.lowercased()
            if lower.hasPrefix("bc1") {
                let segwit = try SegwitAddress(lower, acceptingHRPs: ["bc"])
                switch (segwit.version, segwit.program.count) {
                case (0, 20): return .bitcoin(.p2wpkh, lower)
                case (1, 32): return .bitcoin(.p2tr, lower)
                default: return nil
                }
            }
            if t.hasPrefix("1") || t.hasPrefix("3") {
                let payload = try Base58Check.decode(t)
                guard payload.count == 21 else { return nil }
                switch payload[0] {
                case BitcoinNetwork.bitcoin.p2pkhVersion: return .bitcoin(.p2pkh, t)
                case BitcoinNetwork.bitcoin.p2shVersion: return .bitcoin(.p2shP2wpkh, t)
                default: return nil
                }
            }
            return nil
        }

        /// The address text (EIP-55 for Ethereum).
        public var description: String {
            switch self {
            case .ethereum(let a): a.checksummed
            case .bitcoin(_, let text): text
            }
        }

        /// True when `publicKey` has this address.
        func matches(_ publicKey: PublicKey) -> Bool {
            switch self {
            case .ethereum(let a): return EthereumAddress(publicKey: publicKey) == a
            case .bitcoin(let kind, let text): return (try? BitcoinAddress.make(kind, publicKey: publicKey)) == text
            }
        }

        /// The preset and the `purpose'/coin'` prefix searched for this kind of address.
        var presets: [PathPreset] {
            switch self {
            case .ethereum: [.metamask, .ledgerLive, .ledgerLegacy]
            case .bitcoin(.p2pkh, _): [.bip44]
            case .bitcoin(.p2shP2wpkh, _): [.bip49]
            case .bitcoin(.p2wpkh, _): [.bip84]
            case .bitcoin(.p2tr, _): [.bip86]
            }
        }

        /// `purpose'` and `coin type'` of the grid searched after the presets.
        var gridPrefix: [ChildIndex] {
            switch self {
            case .ethereum: return [ChildIndex(44, hardened: true), ChildIndex(60, hardened: true)]
            case .bitcoin(let kind, _):
                let purpose: UInt32 =
                    switch kind {
                    case .p2pkh: 44
                    case .p2shP2wpkh: 49
                    case .p2wpkh: 84
                    case .p2tr: 86
                    }
                return [ChildIndex(purpose, hardened: true), ChildIndex(0, hardened: true)]
            }
        }
    }

    /// What a search found.
    public struct Outcome: Sendable {
        /// The path that made the address, nil when none of the searched paths did.
        public let path: DerivationPath?
        /// The key at that path.
        public let key: ExtendedKey?
        /// How many paths were derived and compared (up to and including the match).
        public let searched: Int
        /// The presets searched, in order.
        public let presets: [PathPreset]
        /// The grid searched after them, as a template: `m/44'/60'/{account}'/{0,1}/{index}`.
        public let grid: String
    }

    /// The largest `maxIndex` a search takes (the grid grows with its square).
    public static let maxIndexLimit: UInt32 = 100

    /// Searches the presets for `target` with `{i}` in 0…maxIndex, then accounts 0…maxIndex ×
    /// chains 0, 1 × address indexes 0…maxIndex below the target's purpose and coin type,
    /// stopping at the first path whose address is `target`.
    ///
    /// - Precondition: `master` is a private depth-0 key (hardened levels need it) and
    ///   `maxIndex ≤ maxIndexLimit`.
    /// - Throws: `HDError` from derivation (an invalid child, with probability < 2⁻¹²⁷).
    public static func search(_ target: Target, master: ExtendedKey, maxIndex: UInt32) throws(HDError) -> Outcome {
        do {
            return try search(target, maxIndex: maxIndex, cache: NodeCache(master: master))
        } catch let e as HDError {
            throw e
        } catch {
            preconditionFailure("a search from a master key throws only HDError, got \(error)")
        }
    }

    /// The same search where a private master is not at hand (a card): `hardenedKey(path)` gives
    /// the extended public key at a path ending in a hardened level (the card exports it), and
    /// every normal level below is derived here. Each such path is asked for once.
    public static func search(
        _ target: Target, maxIndex: UInt32,
        hardenedKey: @escaping (DerivationPath) throws -> ExtendedKey
    ) throws -> Outcome {
        try search(target, maxIndex: maxIndex, cache: NodeCache(fetch: hardenedKey))
    }

    static func search(_ target: Target, maxIndex: UInt32, cache start: NodeCache) throws -> Outcome {
        precondition(maxIndex <= maxIndexLimit, "maxIndex above the search limit")
        var cache = start
        var seen = Set<DerivationPath>()
        var searched = 0
        let presets = target.presets
        let prefix = target.gridPrefix
        let grid = "m/\(prefix[0])/\(prefix[1])/{account}'/{0,1}/{index}"
        func check(_ path: DerivationPath) throws -> ExtendedKey? {
            guard seen.insert(path).inserted else { return nil }
            searched += 1
            let key = try cache.key(path)
            return target.matches(key.publicKey) ? key : nil
        }
        func found(_ path: DerivationPath, _ key: ExtendedKey) -> Outcome {
            Outcome(path: path, key: key, searched: searched, presets: presets, grid: grid)
        }
        // The presets, index by index, so the lowest index of any preset is found first.
        for i in 0...maxIndex {
            for preset in presets {
                let path = try preset.path(i)
                if let key = try check(path) { return found(path, key) }
            }
        }
        // Every account, both chains, every address index.
        for account in 0...maxIndex {
            for chain: UInt32 in 0...1 {
                for i in 0...maxIndex {
                    let path = DerivationPath(
                        absolute: true,
                        prefix + [
                            ChildIndex(account, hardened: true), ChildIndex(chain), ChildIndex(i),
                        ])
                    if let key = try check(path) { return found(path, key) }
                }
            }
        }
        return Outcome(path: nil, key: nil, searched: searched, presets: presets, grid: grid)
    }

    /// Keys by absolute path, each derived from its cached parent, so a search (or any walk
    /// over many paths that share their first levels, like `presets.compare`) derives every
    /// intermediate key once.
    public struct NodeCache {
        private var keys: [DerivationPath: ExtendedKey]
        /// Where keys at hardened levels come from when there is no private master.
        private let fetch: ((DerivationPath) throws -> ExtendedKey)?

        /// A cache below `master`, a private depth-0 key.
        public init(master: ExtendedKey) {
            keys = [DerivationPath(absolute: true, []): master]
            fetch = nil
        }

        init(fetch: @escaping (DerivationPath) throws -> ExtendedKey) {
            keys = [:]
            self.fetch = fetch
        }

        /// The key at `path` (absolute), derived from the nearest cached ancestor.
        ///
        /// - Throws: `HDError` from derivation, or what `fetch` throws.
        public mutating func key(_ path: DerivationPath) throws -> ExtendedKey {
            if let k = keys[path] { return k }
            guard let last = path.components.last else { throw HDError.pathEmpty }
            if last.hardened, let fetch {
                let k = try fetch(path)
                keys[path] = k
                return k
            }
            let parent = try key(DerivationPath(absolute: path.isAbsolute, Array(path.components.dropLast())))
            let k = try parent.derive(last)
            keys[path] = k
            return k
        }
    }
}
