/// The default address of a public key for a SLIP-44 coin: EIP-55 for Ethereum-style
/// coins, P2PKH (or the requested kind) for Bitcoin-family coins. Coins without an
/// encoder give `AddressError.unsupportedCoin`; deriving their keys still works.
public enum CoinAddress {
    /// Coin types whose addresses are Ethereum addresses.
    public static let ethereumCoinTypes: Set<UInt32> = [60, 61]  // ETH, ETC

    /// Coin types with a Bitcoin-family network.
    public static func bitcoinNetwork(coinType: UInt32) -> BitcoinNetwork? {
        switch coinType {
        case 0: .bitcoin
        case 1: .testnet
        case 2: .litecoin
        case 3: .dogecoin
        default: nil
        }
    }

    /// The address text for `publicKey` on `coin`.
    public static func make(coin: SLIP44.Coin, publicKey: PublicKey,
                            bitcoinKind: BitcoinAddressKind = .p2pkh) throws(AddressError) -> String {
        if ethereumCoinTypes.contains(coin.index) { return EthereumAddress(publicKey: publicKey).checksummed }
        if let network = bitcoinNetwork(coinType: coin.index) {
            return try BitcoinAddress.make(bitcoinKind, publicKey: publicKey, network: network)
        }
        throw .unsupportedCoin(symbol: coin.symbol.isEmpty ? "coin type \(coin.index)" : coin.symbol)
    }
}
