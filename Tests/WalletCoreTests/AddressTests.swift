// Addresses and SLIP-44. Sources: eip55.json — ethereum/ERCs ERCS/erc-55.md "Test Cases",
// ethers.js testcases/accounts.json.gz, ethereum/tests BasicTests/keyaddrtest.json;
// slip44.json — satoshilabs/slips slip-0044.md. See the `_sources` of Vectors/*.json.
import Foundation
import KCSTestSupport
import Testing
import WalletCore

private let eip55 = Vectors.json("eip55.json")
private let slip44 = Vectors.json("slip44.json")

@Suite("Ethereum addresses (EIP-55)")
struct EthereumAddressTests {
    @Test("ERC-55 examples checksum and validate", arguments: eip55.objects("checksum_examples"))
    func checksum_ercExamples_roundTrip(_ row: JSON) throws {
        let address = row.string("address")
        let parsed = try EthereumAddress(address.lowercased().replacingOccurrences(of: "0x", with: "0x"))
        #expect(parsed.checksummed == address)
        #expect(try EthereumAddress(address).checksummed == address)
        // Flipping the case of any one letter makes a mixed-case address invalid.
        let chars = Array(address)
        for i in 2..<chars.count where chars[i].isLetter {
            var flipped = chars
            flipped[i] = Character(chars[i].isUppercase ? chars[i].lowercased() : chars[i].uppercased())
            let text = String(flipped)
            let isMixed =
                text.dropFirst(2).contains(where: \.isLowercase) && text.dropFirst(2).contains(where: \.isUppercase)
            if isMixed {
                #expect(throws: AddressError.ethereumBadChecksum(given: text, expected: address)) {
                    try EthereumAddress(text)
                }
            }
        }
    }

    @Test(
        "ethers.js accounts: private key → checksummed address",
        arguments: eip55.object("ethers_accounts").objects("cases"))
    func address_ethersAccounts_match(_ row: JSON) throws {
        let key = try PrivateKey(bytes: try Hex.decode(row.string("privateKey")))
        #expect(EthereumAddress(publicKey: key.publicKey).checksummed == row.string("address"))
    }

    @Test("ethereum/tests keyaddrtest", arguments: eip55.object("ethereum_tests_keyaddr").objects("cases"))
    func address_keyaddrtest_matches(_ row: JSON) throws {
        #expect(Hash.keccak256(Array(row.string("seed_text").utf8)).hex == row.string("private_key"))
        let key = try PrivateKey(bytes: try Hex.decode(row.string("private_key")))
        #expect(Hex.encode(EthereumAddress(publicKey: key.publicKey).bytes) == row.string("address_lowercase"))
    }

    @Test func malformed_isRefusedWithReason() {
        #expect(
            throws: AddressError.ethereumMalformed(
                given: "52908400098527886E0F7030069857D2E4169EE7", reason: "missing 0x prefix")
        ) {
            try EthereumAddress("52908400098527886E0F7030069857D2E4169EE7")
        }
        #expect(throws: AddressError.ethereumMalformed(given: "0x1234", reason: "4 hex digits instead of 40")) {
            try EthereumAddress("0x1234")
        }
        let bad = "0x52908400098527886E0F7030069857D2E4169EZ7"
        #expect(
            throws: AddressError.ethereumMalformed(
                given: bad, reason: "hex must contain only 0-9, a-f, A-F; got 'Z' at position 41")
        ) {
            try EthereumAddress(bad)
        }
        #expect(
            AddressError.ethereumBadChecksum(given: "0xab", expected: "0xAb").description
                == "Ethereum address 0xab has a wrong EIP-55 checksum (mixed case); the checksummed form is 0xAb")
    }
}

@Suite("Bitcoin-family addresses")
struct BitcoinAddressTests {
    static let g = try! PrivateKey(bytes: [UInt8](repeating: 0, count: 31) + [1]).publicKey

    // Key 1 (the generator): its HASH160 751e76e8…d6 is the BIP-173 example program.
    @Test func generator_addressesOnEachChain() throws {
        #expect(try BitcoinAddress.make(.p2pkh, publicKey: Self.g) == "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH")
        #expect(try BitcoinAddress.make(.p2wpkh, publicKey: Self.g) == "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")
        #expect(
            try BitcoinAddress.make(.p2wpkh, publicKey: Self.g, network: .testnet)
                == "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx")
        let ltc = try BitcoinAddress.make(.p2pkh, publicKey: Self.g, network: .litecoin)
        #expect(ltc.hasPrefix("L"))
        #expect(try LegacyAddress(ltc).hash == Hash.hash160(Self.g.compressed))
        let doge = try BitcoinAddress.make(.p2pkh, publicKey: Self.g, network: .dogecoin)
        #expect(doge.hasPrefix("D"))
        #expect(try LegacyAddress(doge).version.byte == 0x1e)
        #expect(try BitcoinAddress.make(.p2wpkh, publicKey: Self.g, network: .litecoin).hasPrefix("ltc1q"))
    }

    @Test func dogecoinSegwit_isUnsupportedByName() {
        #expect(throws: AddressError.unsupportedKind(coin: "dogecoin", kind: "p2wpkh")) {
            try BitcoinAddress.make(.p2wpkh, publicKey: Self.g, network: .dogecoin)
        }
        #expect(
            AddressError.unsupportedKind(coin: "dogecoin", kind: "p2wpkh").description
                == "dogecoin has no p2wpkh address")
    }
}

@Suite("Coin addresses and SLIP-44")
struct CoinTests {
    @Test func registry_hasEveryRowOfTheSource() {
        let rows = slip44.objects("coin_types")
        #expect(SLIP44.coins.count == slip44.int("count"))
        for (row, coin) in zip(rows, SLIP44.coins) {
            #expect(
                Int(coin.index) == row.int("index") && coin.symbol == row.string("symbol")
                    && coin.name == row.string("name"))
        }
    }

    @Test(arguments: SLIP44.keycardAppSymbols)
    func keycardAppCoins_resolveBySymbol(_ symbol: String) throws {
        let coin = try SLIP44.coin(symbol: symbol.lowercased())
        #expect(coin.symbol == symbol)
    }

    @Test func lookups_knownValues() throws {
        #expect(try SLIP44.coin(symbol: "ETH").index == 60)
        #expect(try SLIP44.coin(index: 0).symbol == "BTC")
        #expect(throws: SLIP44.LookupError.unknownSymbol("NOPE")) { try SLIP44.coin(symbol: "NOPE") }
        #expect(throws: SLIP44.LookupError.self) { try SLIP44.coin(symbol: "XCH") }  // registered twice
    }

    @Test func coinAddress_unsupportedCoin_saysSoButDerivationWorks() throws {
        let master = try ExtendedKey.master(seed: Secret(bytes: [UInt8](repeating: 3, count: 32)))
        // Cosmos (ATOM, coin type 118) is secp256k1 with a form kcs does not make.
        let atom = try SLIP44.coin(index: 118)
        let key = try master.derive("m/44'/\(atom.index)'/0'/0/0")
        #expect(throws: AddressError.unsupportedCoin(symbol: atom.symbol)) {
            try CoinAddress.make(coin: atom, publicKey: key.publicKey)
        }
        #expect(
            AddressError.unsupportedCoin(symbol: "ATOM").description
                == "address format for ATOM is not supported (derivation still works)")
        let eth = try SLIP44.coin(symbol: "ETH")
        #expect(try CoinAddress.make(coin: eth, publicKey: key.publicKey).hasPrefix("0x"))
        #expect(try CoinAddress.make(coin: try SLIP44.coin(symbol: "BTC"), publicKey: key.publicKey).hasPrefix("1"))
    }
}
