// The EIP-7702 delegates kcs signs an authorization for without a second question
// (docs/eth-signing.md, "The delegate allowlist"): a delegate runs as the account with full
// control of it, on the chain the authorization names, so an unknown one is refused in batch and
// asked twice at a terminal. The shipped entries are the audited delegates Trezor's firmware
// lists for Ethereum mainnet, Base and Arbitrum One (trezor/trezor-firmware
// core/src/apps/ethereum/sc_constants.py.mako): Ambire's AmbireAccount7702, MetaMask's
// EIP7702StatelessDeleGator and eth-infinitism's Simple7702Account. A person adds their own in
// `delegates.json` in the kcs home.
import Foundation
import KCSErrors

/// One allowed delegate on one chain.
public struct KnownDelegate: Sendable, Hashable {
    /// The chain the entry allows it on; an authorization for every chain (chain id 0) matches
    /// no entry by chain, only by an entry that itself has chain id 0.
    public let chainID: UInt256
    public let address: EthereumAddress
    public let name: String
    /// Where the entry came from: `kcs` (shipped) or the user's file.
    public let source: String

    public init(chainID: UInt256, address: EthereumAddress, name: String, source: String) {
        self.chainID = chainID
        self.address = address
        self.name = name
        self.source = source
    }
}

/// The delegates kcs knows, shipped and the person's own.
public struct DelegateList: Sendable, Equatable {
    public private(set) var entries: [KnownDelegate]

    public init(entries: [KnownDelegate]) { self.entries = entries }

    /// The list kcs ships.
    public static let shipped: DelegateList = {
        let delegates: [(String, String)] = [
            ("0x5A7FC11397E9a8AD41BF10bf13F22B0a63f96f6d", "Ambire AmbireAccount7702"),
            ("0x63c0c19a282a1b52b07dd5a65b58948a07dae32b", "MetaMask EIP7702StatelessDeleGator"),
            ("0x4Cd241E8d1510e30b2076397afc7508Ae59C66c9", "Simple7702Account (eth-infinitism)"),
        ]
        var entries: [KnownDelegate] = []
        for chain in [1, 8453, 42161] as [UInt64] {
            for (address, name) in delegates {
                entries.append(
                    KnownDelegate(
                        chainID: UInt256(chain), address: try! EthereumAddress(address), name: name, source: "kcs"))
            }
        }
        return DelegateList(entries: entries)
    }()

    /// The entry allowing `delegate` on `chainID`, if any (chain id 0 matches only an entry for
    /// every chain: a delegate audited on one chain may be other code on another).
    public func entry(for delegate: EthereumAddress, chainID: UInt256) -> KnownDelegate? {
        entries.first { $0.address == delegate && $0.chainID == chainID }
    }

    /// True when `auth` may be signed without a second question: a revocation, or a delegate
    /// this list allows on the authorization's chain.
    public func allows(_ auth: EIP7702Authorization) -> Bool {
        auth.isRevocation || entry(for: auth.delegate, chainID: auth.chainID) != nil
    }

    /// The delegate's name on any chain (for a review that shows where else it is known).
    public func name(of delegate: EthereumAddress) -> String? {
        entries.first { $0.address == delegate }?.name
    }

    /// The most bytes a delegates file may hold.
    public static let maximumFileBytes = 1 << 20

    /// Reads the person's entries from JSON text — `[{"chainId": 1, "address": "0x…", "name": "…"}]`
    /// — and adds them; `file` names the file in errors. At most 10,000 entries; JSON as `JSONText`
    /// reads it (a key named twice in one entry is refused).
    public mutating func add(json: [UInt8], file: String) throws(DelegateListError) {
        guard let list = (try? JSONText.parse(json)) as? [Any] else {
            throw .malformed(file: file, reason: "expected a JSON list of {chainId, address, name}")
        }
        guard list.count <= 10_000 else {
            throw .malformed(file: file, reason: "expected at most 10000 entries, got \(list.count)")
        }
        for (i, item) in list.enumerated() {
            guard let map = item as? [String: Any], let name = map["name"] as? String, !name.isEmpty,
                let addressText = map["address"] as? String, let raw = map["chainId"]
            else {
                throw .malformed(file: file, reason: "entry \(i) must be {chainId, address, name}")
            }
            let address: EthereumAddress
            let chain: UInt256
            do {
                address = try EthereumAddress(addressText)
                chain = try EthereumTransaction.quantity(raw, field: "chainId")
            } catch {
                throw .malformed(file: file, reason: "entry \(i): \(error)")
            }
            entries.append(KnownDelegate(chainID: chain, address: address, name: name, source: file))
        }
    }
}

/// A delegates file that cannot be used.
public enum DelegateListError: WalletError, Equatable {
    case malformed(file: String, reason: String)

    public var id: String { "eth.delegates.malformed" }

    public var description: String {
        switch self {
        case .malformed(let file, let reason): "delegates file \(file): \(reason)"
        }
    }
}
