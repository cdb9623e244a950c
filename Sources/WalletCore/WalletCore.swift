@_exported import WalletCrypto

/// WalletCore: BIP-39 mnemonics, BIP-32 keys, BIP-44 paths and presets, SLIP-44
/// coins, Bitcoin and Ethereum addresses, Base58Check/bech32/RLP encodings and
/// Ethereum keystore V3 files, built on WalletCrypto.
public enum WalletCoreInfo {
    /// The kcs release this core belongs to.
    public static let version = "0.1.0"
}
