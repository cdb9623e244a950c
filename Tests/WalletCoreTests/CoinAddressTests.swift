// Every secp256k1 coin of the Keycard-for-iPhone thesis's list has its address form, checked
// against an independent implementation: Vectors/coin-addresses.json, made with bip-utils
// (its `_sources` say which version) at m/44'/COIN'/0'/0/i of the all-abandon mnemonic —
// XRP, Bitcoin Cash (CashAddr and legacy), Bitcoin SV, BNB Beacon Chain, EOS, and EVM chains
// of the SLIP-44 registry. Coins on other curves are named with their curve.
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private let vectors = Vectors.json("coin-addresses.json")

@Suite("Coin addresses (bip-utils)")
struct CoinAddressTests {
    @Test("each coin's address at m/44'/COIN'/0'/0/i", arguments: vectors.objects("coins"))
    func address_matchesBipUtils(_ coin: JSON) throws {
        let master = try ExtendedKey.master(seed: try Mnemonic(phrase: vectors.string("mnemonic")).seed())
        let slip44 = try SLIP44.coin(index: UInt32(coin.int("coinType")))
        for row in coin.objects("addresses") {
            let key = try master.derive(try DerivationPath(row.string("path")))
            #expect(Hex.encode(key.publicKey.compressed) == row.string("publicKey"))
            #expect(
                try CoinAddress.make(coin: slip44, publicKey: key.publicKey) == row.string("address"),
                "\(coin.string("symbol")) \(row.string("path"))")
            if coin.string("symbol") == "BCH" {
                #expect(
                    try CoinAddress.make(coin: try SLIP44.coin(index: 0), publicKey: key.publicKey)
                        == row.string("legacy"))
            }
        }
    }

    @Test func coinsOnOtherCurves_nameTheCurveAndThePath() throws {
        let key = try PrivateKey(bytes: [UInt8](repeating: 0, count: 31) + [1]).publicKey
        for (index, symbol, curve) in [
            (128, "XMR", "ed25519 (Monero's own key scheme)"), (457, "AE", "ed25519"),
            (134, "LSK", "ed25519"), (888, "NEO", "NIST P-256 (secp256r1)"),
        ] {
            let coin = try SLIP44.coin(index: UInt32(index))
            #expect(throws: AddressError.otherCurve(symbol: symbol, curve: curve, coinType: UInt32(index))) {
                try CoinAddress.make(coin: coin, publicKey: key)
            }
        }
        #expect(
            AddressError.otherCurve(symbol: "XMR", curve: "ed25519", coinType: 128).description
                == "XMR keys are on ed25519, not secp256k1: kcs and the Keycard make no XMR keys or addresses; "
                + "its SLIP-44 path starts m/44'/128' for a wallet that does")
        // Rootstock: the Ethereum address bytes, in lower case (its checksum is chain-specific).
        #expect(
            try CoinAddress.make(coin: try SLIP44.coin(index: 137), publicKey: key)
                == "0x" + Hex.encode(EthereumAddress(publicKey: key).bytes))
    }
}
