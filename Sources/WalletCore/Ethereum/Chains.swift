// Chains by name, for what a person reads before signing (docs/signing-review.md). Chain ids
// and native currencies from the chain registry (ethereum-lists/chains, `_data/chains/eip155-N.json`);
// only the chains a user of kcs is likely to meet are named, every other chain shows as its id.

/// An EVM chain a signing review names.
public struct EthereumChain: Sendable, Equatable {
    public let id: UInt64
    public let name: String
    /// The symbol of the chain's native currency (what `value` and fees are paid in).
    public let symbol: String

    /// The chains kcs names, by id.
    public static let known: [EthereumChain] = [
        EthereumChain(id: 1, name: "Ethereum mainnet", symbol: "ETH"),
        EthereumChain(id: 10, name: "OP Mainnet", symbol: "ETH"),
        EthereumChain(id: 56, name: "BNB Smart Chain", symbol: "BNB"),
        EthereumChain(id: 100, name: "Gnosis", symbol: "xDAI"),
        EthereumChain(id: 137, name: "Polygon PoS", symbol: "POL"),
        EthereumChain(id: 324, name: "zkSync Era", symbol: "ETH"),
        EthereumChain(id: 1337, name: "local development chain", symbol: "ETH"),
        EthereumChain(id: 8453, name: "Base", symbol: "ETH"),
        EthereumChain(id: 17000, name: "Holesky testnet", symbol: "ETH"),
        EthereumChain(id: 31337, name: "Anvil/Hardhat local chain", symbol: "ETH"),
        EthereumChain(id: 42161, name: "Arbitrum One", symbol: "ETH"),
        EthereumChain(id: 43114, name: "Avalanche C-Chain", symbol: "AVAX"),
        EthereumChain(id: 59144, name: "Linea", symbol: "ETH"),
        EthereumChain(id: 534352, name: "Scroll", symbol: "ETH"),
        EthereumChain(id: 560048, name: "Hoodi testnet", symbol: "ETH"),
        EthereumChain(id: 11_155_111, name: "Sepolia testnet", symbol: "ETH"),
        EthereumChain(id: 131_277_322_940_537, name: "eth-tester (py-evm) chain", symbol: "ETH"),
    ]

    /// The named chain with this id, if kcs knows it.
    public static func named(_ id: UInt256) -> EthereumChain? {
        guard let small = id.uint64 else { return nil }
        return known.first { $0.id == small }
    }

    /// `Ethereum mainnet (1)`, or `chain 12345` for a chain kcs does not name.
    public static func label(_ id: UInt256) -> String {
        named(id).map { "\($0.name) (\(id))" } ?? "chain \(id) (not one kcs names: check it is the one you mean)"
    }

    /// The native currency's symbol on chain `id` (`ETH` where kcs does not know the chain).
    public static func symbol(_ id: UInt256?) -> String {
        id.flatMap(named)?.symbol ?? "ETH"
    }
}
