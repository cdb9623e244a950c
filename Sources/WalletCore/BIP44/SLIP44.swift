/// SLIP-44 registered coin types: the second level of a BIP-44 path
/// (`m/44'/<coin type>'/…`). The whole registry is embedded (generated/SLIP44Registry.swift).
public enum SLIP44 {
    /// One registry row.
    public struct Coin: Sendable, Hashable, CustomStringConvertible {
        /// Unhardened coin type; the path component is 0x80000000 + index.
        public let index: UInt32
        /// Ticker symbol; empty for a few rows (e.g. 1 "Testnet (all coins)").
        public let symbol: String
        /// Coin name.
        public let name: String

        public var description: String { symbol.isEmpty ? "\(index) (\(name))" : "\(symbol) \(index) (\(name))" }
    }

    /// Errors from registry lookups.
    public enum LookupError: WalletError, Equatable {
        case unknownSymbol(String)
        case unknownIndex(UInt32)
        case ambiguousSymbol(String, candidates: [String])

        public var id: String {
            switch self {
            case .unknownSymbol: "slip44.unknownSymbol"
            case .unknownIndex: "slip44.unknownIndex"
            case .ambiguousSymbol: "slip44.ambiguousSymbol"
            }
        }

        public var description: String {
            switch self {
            case .unknownSymbol(let s): "coin symbol \(s) is not in the SLIP-44 registry"
            case .unknownIndex(let i): "coin type \(i) is not registered in SLIP-44"
            case .ambiguousSymbol(let s, let c):
                "coin symbol \(s) is registered more than once (\(c.joined(separator: ", "))); give the coin type number"
            }
        }
    }

    /// Every row, in registry order.
    public static let coins: [Coin] = table.split(separator: "\n").map { line in
        let f = line.split(separator: "\t", omittingEmptySubsequences: false)
        return Coin(index: UInt32(f[0])!, symbol: String(f[1]), name: String(f[2]))
    }

    private static let bySymbol: [String: [Coin]] = Dictionary(
        grouping: coins.filter { !$0.symbol.isEmpty },
        by: { $0.symbol.uppercased() })

    /// The coin with `symbol` (case-insensitive). Symbols registered twice are an error
    /// naming the candidates, so a path never silently uses the wrong coin type.
    public static func coin(symbol: String) throws(LookupError) -> Coin {
        guard let found = bySymbol[symbol.uppercased()] else { throw .unknownSymbol(symbol) }
        guard found.count == 1 else {
            throw .ambiguousSymbol(symbol, candidates: found.map { "\($0.index) \($0.name)" })
        }
        return found[0]
    }

    /// The first row with coin type `index` (1019 is registered twice; the first is returned).
    public static func coin(index: UInt32) throws(LookupError) -> Coin {
        guard let c = coins.first(where: { $0.index == index }) else { throw .unknownIndex(index) }
        return c
    }

    /// The coins the Keycard mobile app offers, by symbol.
    public static let keycardAppSymbols = [
        "BTC", "ETH", "XRP", "LTC", "BCH", "XMR", "EOS", "BSV", "BNB", "AE", "LSK", "NEO",
    ]
}
