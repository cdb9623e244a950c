/// The default address of a public key for a SLIP-44 coin (docs/wallet-core.md, "Coins"):
/// EIP-55 for Ethereum and the EVM chains, P2PKH (or the requested kind) for Bitcoin-family
/// coins, and each other secp256k1 coin's own form — XRP, Bitcoin Cash (CashAddr), BNB Beacon
/// Chain, EOS. Coins whose keys are not secp256k1 give `AddressError.otherCurve`, with their
/// curve and SLIP-44 path; coins without an encoder give `AddressError.unsupportedCoin`.
public enum CoinAddress {
    /// Coin types whose addresses are Ethereum addresses: Ethereum, and the EVM chains of the
    /// SLIP-44 registry that kept their own coin type (Ethereum Classic, POA, Energy Web,
    /// xDai, VeChain, Callisto, Polygon, Fantom, Celo). Rootstock (137) has an Ethereum-style
    /// address with its own checksum (EIP-1191) and is written in lower case.
    public static let ethereumCoinTypes: Set<UInt32> = [60, 61, 178, 246, 700, 818, 820, 966, 1007, 52752]
    /// Rootstock: Ethereum-style, its mixed-case checksum is chain-specific (EIP-1191).
    public static let rootstockCoinType: UInt32 = 137

    /// Coins of the registry whose keys are not secp256k1, with their curve.
    public static let otherCurves: [UInt32: String] = [
        128: "ed25519 (Monero's own key scheme)", 134: "ed25519", 457: "ed25519", 888: "NIST P-256 (secp256r1)",
    ]

    /// The address kind of a coin with its own form (XRP, Bitcoin Cash, EOS, BNB Beacon Chain,
    /// Rootstock), nil for Ethereum-style and Bitcoin-family coins and for the rest.
    public static func ownKind(coinType: UInt32) -> String? {
        switch coinType {
        case 137: "ethereum (lower case)"
        case 144: "xrp"
        case 145: "cashaddr"
        case 194: "eos"
        case 714: "bech32"
        default: nil
        }
    }

    /// Whether kcs makes an address for this coin type.
    public static func hasAddress(coinType: UInt32) -> Bool {
        ethereumCoinTypes.contains(coinType) || bitcoinNetwork(coinType: coinType) != nil
            || ownKind(coinType: coinType) != nil
    }

    /// Coin types with a Bitcoin-family network.
    public static func bitcoinNetwork(coinType: UInt32) -> BitcoinNetwork? {
        switch coinType {
        case 0, 236: .bitcoin  // BSV keeps Bitcoin's P2PKH version
        case 1: .testnet
        case 2: .litecoin
        case 3: .dogecoin
        default: nil
        }
    }

    /// The address text for `publicKey` on `coin`.
    public static func make(
        coin: SLIP44.Coin, publicKey: PublicKey,
        bitcoinKind: BitcoinAddressKind = .p2pkh
    ) throws(AddressError) -> String {
        let symbol = coin.symbol.isEmpty ? "coin type \(coin.index)" : coin.symbol
        if ethereumCoinTypes.contains(coin.index) { return EthereumAddress(publicKey: publicKey).checksummed }
        if coin.index == rootstockCoinType { return "0x" + Hex.encode(EthereumAddress(publicKey: publicKey).bytes) }
        if coin.index == 236, bitcoinKind != .p2pkh { throw .unsupportedKind(coin: symbol, kind: bitcoinKind.rawValue) }
        if let network = bitcoinNetwork(coinType: coin.index) {
            return try BitcoinAddress.make(bitcoinKind, publicKey: publicKey, network: network)
        }
        switch coin.index {
        case 144: return xrp(publicKey)
        case 145:
            guard bitcoinKind == .p2pkh else { throw .unsupportedKind(coin: symbol, kind: bitcoinKind.rawValue) }
            return cashAddr(publicKey)
        case 194: return eos(publicKey)
        case 714: return try bnbBeacon(publicKey)
        default: break
        }
        if let curve = otherCurves[coin.index] { throw .otherCurve(symbol: symbol, curve: curve, coinType: coin.index) }
        throw .unsupportedCoin(symbol: symbol)
    }

    // MARK: - XRP

    /// The XRP Ledger's alphabet: Base58 with the digits in another order.
    static let rippleAlphabet = Array("rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz".utf8)

    /// An XRP account address: Base58Check of 0x00 ‖ HASH160(compressed key) in the XRP
    /// Ledger's alphabet (`r…`).
    public static func xrp(_ publicKey: PublicKey) -> String {
        let bitcoin = Array(Base58Check.encode([0x00] + Hash.hash160(publicKey.compressed)).utf8)
        let digits = Dictionary(uniqueKeysWithValues: Array(Base58.alphabet.utf8).enumerated().map { ($1, $0) })
        return String(decoding: bitcoin.map { rippleAlphabet[digits[$0]!] }, as: UTF8.self)
    }

    // MARK: - Bitcoin Cash

    /// A Bitcoin Cash P2PKH address in CashAddr form: `bitcoincash:` ‖ base32 of the version
    /// byte 0 and HASH160(compressed key) ‖ a 40-bit BCH checksum over the prefix.
    public static func cashAddr(_ publicKey: PublicKey, prefix: String = "bitcoincash") -> String {
        // 8-bit to 5-bit cannot fail for 21 bytes with padding.
        let payload = try! Bech32.convertBits([0x00] + Hash.hash160(publicKey.compressed), from: 8, to: 5, pad: true)
        let checked = prefix.utf8.map { $0 & 0x1f } + [0] + payload + [UInt8](repeating: 0, count: 8)
        let mod = cashAddrPolymod(checked)
        let checksum = (0..<8).map { UInt8((mod >> (5 * (7 - UInt64($0)))) & 0x1f) }
        let charset = Array(Bech32.charset.utf8)
        return prefix + ":" + String(decoding: (payload + checksum).map { charset[Int($0)] }, as: UTF8.self)
    }

    /// The CashAddr checksum's BCH code over 5-bit values.
    static func cashAddrPolymod(_ values: [UInt8]) -> UInt64 {
        let generators: [UInt64] = [0x98f2bc8e61, 0x79b76d99e2, 0xf33e5fb3c4, 0xae2eabe2a8, 0x1e4f43e470]
        var c: UInt64 = 1
        for d in values {
            let top = c >> 35
            c = ((c & 0x07_ffff_ffff) << 5) ^ UInt64(d)
            for (i, g) in generators.enumerated() where top & (1 << UInt64(i)) != 0 { c ^= g }
        }
        return c ^ 1
    }

    // MARK: - BNB Beacon Chain, EOS

    /// A BNB Beacon Chain address: bech32 with prefix `bnb` of HASH160(compressed key).
    public static func bnbBeacon(_ publicKey: PublicKey) throws(AddressError) -> String {
        do {
            let data = try Bech32.convertBits(Hash.hash160(publicKey.compressed), from: 8, to: 5, pad: true)
            return try Bech32.encode(hrp: "bnb", data: data, variant: .bech32)
        } catch {
            throw .unsupportedKind(coin: "BNB", kind: "bech32")  // cannot happen for a 20-byte hash
        }
    }

    /// An EOS public key as EOS writes it: `EOS` ‖ Base58(compressed key ‖ the first 4 bytes
    /// of RIPEMD-160(compressed key)).
    public static func eos(_ publicKey: PublicKey) -> String {
        let key = publicKey.compressed
        return "EOS" + Base58.encode(key + Hash.ripemd160(key).prefix(4))
    }
}
