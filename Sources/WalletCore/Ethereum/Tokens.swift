// Tokens kcs knows by chain and address, for amounts a descriptor says are token amounts
// (docs/eth-signing.md, "ERC-7730"): the ticker and decimals each contract's `symbol()` and
// `decimals()` return. Any other token's amount is shown in raw units with its address.

/// An ERC-20 token on one chain.
public struct KnownToken: Sendable, Hashable {
    public let chainID: UInt64
    public let address: EthereumAddress
    public let ticker: String
    public let decimals: Int

    /// The tokens kcs names.
    public static let known: [KnownToken] = [
        (1, "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "USDC", 6),
        (1, "0xdAC17F958D2ee523a2206206994597C13D831ec7", "USDT", 6),
        (1, "0x6B175474E89094C44Da98b954EedeAC495271d0F", "DAI", 18),
        (1, "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", "WETH", 18),
        (1, "0xae7ab96520DE3A18E5e111B5EaAb095312D7fE84", "stETH", 18),
        (1, "0x7f39C581F595B53c5cb19bD0b3f8dA6c935E2Ca0", "wstETH", 18),
        (1, "0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599", "WBTC", 8),
        (10, "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85", "USDC", 6),
        (8453, "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "USDC", 6),
        (42161, "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", "USDC", 6),
        (42161, "0x82aF49447D8a07e3bd95BD0d56f35241523fBab1", "WETH", 18),
        (137, "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", "USDC", 6),
    ].map { KnownToken(chainID: $0.0, address: try! EthereumAddress($0.1), ticker: $0.2, decimals: $0.3) }

    /// The token at `address` on `chainID`, if kcs knows it.
    public static func find(_ address: EthereumAddress, chainID: UInt256?) -> KnownToken? {
        guard let chain = chainID?.uint64 else { return nil }
        return known.first { $0.chainID == chain && $0.address == address }
    }

    /// `0.24 stETH`: the amount in whole tokens, thousands grouped.
    public func format(_ amount: UInt256) -> String {
        SigningReview.grouped(EthereumUnits.format(amount, decimals: decimals)) + " " + ticker
    }
}
