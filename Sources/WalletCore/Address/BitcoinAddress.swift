/// Address parameters of a Bitcoin-family chain: Base58 version bytes and the bech32 HRP.
public struct BitcoinNetwork: Sendable, Hashable, CustomStringConvertible {
    /// Short name (`bitcoin`, `testnet`, `litecoin`, `dogecoin`).
    public let name: String
    /// SLIP-44 coin type used in its BIP-44 paths.
    public let coinType: UInt32
    /// P2PKH version byte.
    public let p2pkhVersion: UInt8
    /// P2SH version byte.
    public let p2shVersion: UInt8
    /// Segwit human-readable part; nil where the chain has no segwit (Dogecoin).
    public let bech32HRP: String?

    public static let bitcoin = BitcoinNetwork(
        name: "bitcoin", coinType: 0, p2pkhVersion: 0x00, p2shVersion: 0x05, bech32HRP: "bc")
    public static let testnet = BitcoinNetwork(
        name: "testnet", coinType: 1, p2pkhVersion: 0x6f, p2shVersion: 0xc4, bech32HRP: "tb")
    /// Litecoin mainnet: L… (0x30), M… (0x32), ltc1….
    public static let litecoin = BitcoinNetwork(
        name: "litecoin", coinType: 2, p2pkhVersion: 0x30, p2shVersion: 0x32, bech32HRP: "ltc")
    /// Dogecoin mainnet: D… (0x1e), 9…/A… (0x16); no segwit.
    public static let dogecoin = BitcoinNetwork(
        name: "dogecoin", coinType: 3, p2pkhVersion: 0x1e, p2shVersion: 0x16, bech32HRP: nil)

    public var description: String { name }
}

/// The Bitcoin output kinds kcs can make an address for.
public enum BitcoinAddressKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Legacy pay-to-public-key-hash (BIP-44 wallets): 1…
    case p2pkh
    /// P2WPKH nested in P2SH (BIP-49): 3…
    case p2shP2wpkh = "p2sh-p2wpkh"
    /// Native segwit v0 (BIP-84): bc1q…
    case p2wpkh
    /// Taproot key-path output with no script tree (BIP-86): bc1p…
    case p2tr

    public var description: String { rawValue }
}

/// Bitcoin-family addresses from a public key.
public enum BitcoinAddress {
    /// The address of `publicKey` as `kind` on `network`. P2PKH uses the compressed key.
    public static func make(
        _ kind: BitcoinAddressKind, publicKey: PublicKey,
        network: BitcoinNetwork = .bitcoin
    ) throws(AddressError) -> String {
        switch kind {
        case .p2pkh:
            let hash = Hash.hash160(publicKey.compressed)
            return Base58Check.encode([network.p2pkhVersion] + hash)
        case .p2shP2wpkh:
            guard network.bech32HRP != nil else { throw .unsupportedKind(coin: network.name, kind: kind.rawValue) }
            // BIP-49: redeem script = OP_0 PUSH20 HASH160(pubkey); address = P2SH of HASH160(script).
            let redeem: [UInt8] = [0x00, 0x14] + Hash.hash160(publicKey.compressed)
            return Base58Check.encode([network.p2shVersion] + Hash.hash160(redeem))
        case .p2wpkh:
            guard let hrp = network.bech32HRP else { throw .unsupportedKind(coin: network.name, kind: kind.rawValue) }
            return try segwit(hrp: hrp, version: 0, program: Hash.hash160(publicKey.compressed))
        case .p2tr:
            guard let hrp = network.bech32HRP else { throw .unsupportedKind(coin: network.name, kind: kind.rawValue) }
            let output: XOnlyPublicKey
            do { output = try publicKey.xOnly.key.taprootTweaked() } catch {
                throw .unsupportedKind(coin: network.name, kind: "taproot output for this key")
            }
            return try segwit(hrp: hrp, version: 1, program: output.bytes)
        }
    }

    private static func segwit(hrp: String, version: UInt8, program: [UInt8]) throws(AddressError) -> String {
        do { return try SegwitAddress(hrp: hrp, version: version, program: program).string } catch {
            throw .unsupportedKind(coin: hrp, kind: "segwit v\(version)")
        }
    }
}
