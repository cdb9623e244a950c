// WIF private keys and legacy Base58Check addresses. Sources:
// - Vectors/base58.json: Bitcoin Core src/test/data/base58_keys_valid.json and base58_keys_invalid.json
//   as copied into bitcoinjs/bitcoinjs-lib test/fixtures/core/ (commit 248789d25b9833ed286c9ca4b9bfd93f099fd8a3);
//   see the `_sources` of Vectors/base58.json.
// - Litecoin addresses and the too-short/too-long Base58Check strings: bitcoinjs/bitcoinjs-lib
//   test/fixtures/address.json (commit 0438f151bc19d19c25432de325489cc84d4f5978), quoted inline below.
import KCSTestSupport
import Testing
import WalletCore

private let base58File = Vectors.json("base58.json")

private func wifError(_ text: String) -> WIFError? {
    caught { () throws(WIFError) in _ = try WIF(text) }
}

private func addressError(_ text: String) -> LegacyAddressError? {
    caught { () throws(LegacyAddressError) in _ = try LegacyAddress(text) }
}

private func keyHex(_ key: PrivateKey) -> String { key.secret.withUnsafeBytes { Hex.encode($0) } }

private func utf8String(_ secret: Secret) -> String { secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

@Suite("WIF and legacy addresses")
struct WIFTests {
    static let keysValid = base58File.objects("keys_valid")
    static let addressRows = keysValid.filter { !$0.object("meta").bool("isPrivkey") }
    static let wifRows = keysValid.filter { $0.object("meta").bool("isPrivkey") }
    static let keysInvalid = base58File.strings("keys_invalid")

    // MARK: keys_valid

    @Test("keys_valid address: version and hash match payload and meta", arguments: addressRows)
    func legacyAddress_keysValidRow_matchesPayloadAndMeta(_ row: JSON) throws {
        let text = row.string("base58check")
        let meta = row.object("meta")
        let address = try LegacyAddress(text)
        #expect(address.hash.hex == normHex(row.string("payload_hex")))
        #expect(address.kind == (meta.string("addrType") == "pubkey" ? .p2pkh : .p2sh))
        #expect(address.network == (meta.bool("isTestnet") ? .bitcoinTestnet : .bitcoin))
        #expect(address.network.isTestnet == meta.bool("isTestnet"))
        #expect(address.string == text)
        #expect(try LegacyAddress(version: address.version.byte, hash: address.hash).string == text)
    }

    @Test("keys_valid WIF: key, compression flag and network match payload and meta", arguments: wifRows)
    func wif_keysValidRow_matchesKeyAndMeta(_ row: JSON) throws {
        let text = row.string("base58check")
        let meta = row.object("meta")
        let wif = try WIF(text)
        #expect(keyHex(wif.privateKey) == normHex(row.string("payload_hex")))
        #expect(wif.isCompressed == meta.bool("isCompressed"))
        #expect(wif.network == (meta.bool("isTestnet") ? .testnet : .mainnet))
        let reencoded = WIF(privateKey: wif.privateKey, compressed: wif.isCompressed, network: wif.network)
        #expect(utf8String(reencoded.encoded()) == text)
    }

    @Test("keys_valid address is not a WIF key", arguments: addressRows)
    func wif_keysValidAddressRow_failsInvalidLength(_ row: JSON) {
        let error = wifError(row.string("base58check"))
        #expect(error == .invalidLength(got: 21))
    }

    @Test("keys_valid WIF key is not an address", arguments: wifRows)
    func legacyAddress_keysValidWIFRow_failsInvalidPayloadLength(_ row: JSON) {
        let error = addressError(row.string("base58check"))
        #expect(error?.id == "legacyAddress.invalidPayloadLength")
    }

    // MARK: keys_invalid

    @Test("keys_invalid: rejected as a legacy address", arguments: keysInvalid)
    func legacyAddress_keysInvalidRow_fails(_ text: String) {
        #expect(throws: LegacyAddressError.self) { try LegacyAddress(text) }
    }

    @Test("keys_invalid: rejected as a WIF key", arguments: keysInvalid)
    func wif_keysInvalidRow_fails(_ text: String) {
        #expect(throws: WIFError.self) { try WIF(text) }
    }

    // MARK: WIF errors, one rendered message per kind

    @Test("keys_invalid 51-byte payload: WIF length error")
    func wif_51BytePayload_failsInvalidLength() {
        let error = wifError("37qgekLpCCHrQuSjvX3fs496FWTGsHFHizjJAs6NPcR47aefnnCWECAhHV6E3g4YN7u7Yuwod5Y")
        #expect(error == .invalidLength(got: 51))
        #expect(error?.id == "wif.invalidLength")
        #expect(
            error?.description == "WIF payload must be 33 bytes (version and key) or 34 bytes"
                + " (version, key and flag 0x01), got 51")
    }

    @Test("keys_invalid 34-byte payload with version 0xfa: unknown WIF version")
    func wif_version0xfa_failsUnknownVersion() {
        let error = wifError("dzb7VV1Ui55BARxv7ATxAtCUeJsANKovDGWFVgpTbhq9gvPqP3yv")
        #expect(error == .unknownVersion(0xfa))
        #expect(error?.id == "wif.unknownVersion")
        #expect(error?.description == "WIF version byte must be 0x80 (mainnet) or 0xef (testnet), got 0xfa")
    }

    @Test("keys_invalid mainnet key with flag 0x5c: bad compression flag")
    func wif_flag0x5c_failsInvalidCompressionFlag() {
        let error = wifError("KxuACDviz8Xvpn1xAh9MfopySZNuyajYMZWz16Dv2mHHryznWUp3")
        #expect(error == .invalidCompressionFlag(0x5c))
        #expect(error?.id == "wif.invalidCompressionFlag")
        #expect(error?.description == "WIF compression flag must be 0x01, got 0x5c")
    }

    @Test("keys_invalid string with a bad checksum: the Base58Check error passes through")
    func wif_badChecksum_failsWithBase58CheckError() {
        let text = "4Uc3FmN6NQ6zLBK5QQBXRBUREaaHwCZYsGCueHauuDmJpZKn6jkEskMB2Zi2CNgtb5r6epWEFfUJq"
        let error = wifError(text)
        #expect(error == .encoding(.checksumMismatch))
        #expect(error?.id == "base58check.checksumMismatch")
        #expect(error?.description == Base58Error.checksumMismatch.description)
    }

    @Test(
        "key 0 and key n are out of range",
        arguments: [
            "0000000000000000000000000000000000000000000000000000000000000000",
            "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
        ])
    func wif_keyZeroOrOrder_failsKeyOutOfRange(_ key: String) throws {
        let text = Base58Check.encode([0x80] + (try Hex.decode(key)) + [0x01])
        let error = wifError(text)
        #expect(error == .keyOutOfRange)
        #expect(error?.id == "wif.keyOutOfRange")
        #expect(error?.description == "WIF private key must be between 1 and n-1 (the secp256k1 group order)")
    }

    @Test("a WIF value never prints its key")
    func wif_description_hidesKey() throws {
        let wif = try WIF("Kz6UJmQACJmLtaQj5A3JAge4kVTNQ8gbvXuwbmCj7bsaabudb3RD")
        #expect(wif.description == "<WIF private key: mainnet, compressed>")
        #expect(!"\(wif)".contains("55c9bccb"))
        #expect(wif.encoded().description == "<secret: 52 bytes>")
    }

    // MARK: Legacy address errors and other networks

    @Test("keys_invalid 33-byte payload: legacy address length error")
    func legacyAddress_33BytePayload_failsInvalidPayloadLength() {
        let error = addressError("7aQgR5DFQ25vyXmqZAWmnVCjL3PkBcdVkBUpjrjMTcghHx3E8wb")
        #expect(error == .invalidPayloadLength(got: 33))
        #expect(error?.id == "legacyAddress.invalidPayloadLength")
        #expect(error?.description == "legacy address payload must be 21 bytes (version byte and 20-byte hash), got 33")
    }

    @Test(
        "bitcoinjs address.json: too short and too long payloads",
        arguments: [
            ("7SeEnXWPaCCALbVrTnszCVGfRU8cGfx", 19), ("j9ywUkWg2fTQrouxxh5rSZhRvrjMkEUfuiKe", 23),
        ])
    func legacyAddress_bitcoinjsWrongLength_failsInvalidPayloadLength(_ text: String, _ length: Int) {
        let error = addressError(text)
        #expect(error == .invalidPayloadLength(got: length))
    }

    @Test("keys_invalid 21-byte payload with version 0xc3: unknown address version")
    func legacyAddress_version0xc3_failsUnknownVersion() {
        let error = addressError("2MnmgiRH4eGLyLc9eAqStzk7dFgBjFtUCtu")
        #expect(error == .unknownVersion(0xc3))
        #expect(error?.id == "legacyAddress.unknownVersion")
        #expect(
            error?.description == "legacy address version byte must be one of 0x00, 0x05, 0x6f, 0xc4, 0x30,"
                + " 0x32, 0x1e, 0x16; got 0xc3")
    }

    @Test("a 19-byte hash cannot make an address")
    func legacyAddress_19ByteHash_failsInvalidHashLength() {
        let error = caught { () throws(LegacyAddressError) in
            _ = try LegacyAddress(version: 0x00, hash: [UInt8](repeating: 1, count: 19))
        }
        #expect(error == .invalidHashLength(got: 19))
        #expect(error?.id == "legacyAddress.invalidHashLength")
        #expect(error?.description == "legacy address hash must be 20 bytes (HASH160), got 19")
    }

    @Test("a bad checksum passes the Base58Check error through")
    func legacyAddress_badChecksum_failsWithBase58CheckError() {
        let error = addressError("1AGNa15ZQXAZUgFiqJ2i7Z2DPU2J6hW62j")
        #expect(error == .encoding(.checksumMismatch))
        #expect(error?.id == "base58check.checksumMismatch")
    }

    @Test(
        "bitcoinjs address.json Litecoin addresses decode with network and kind",
        arguments: [
            (
                "LUxXFcwXFPpRZdMv4aYu6bDwPdC2skQ5YW", "6ac624143d19a3c91d2ac5605f0aebdfeac5b826",
                LegacyAddress.Kind.p2pkh
            ),
            ("MCZjFcwYJwwYqXAbd3bbnxaCVGs81cp43Z", "332bdfb31f688c0be0137c7c038a6d0fea0de0b6", LegacyAddress.Kind.p2sh),
        ])
    func legacyAddress_litecoinVector_namesLitecoin(_ text: String, _ hash: String, _ kind: LegacyAddress.Kind) throws {
        let address = try LegacyAddress(text)
        #expect(address.network == .litecoin)
        #expect(address.kind == kind)
        #expect(address.hash.hex == hash)
        #expect(address.string == text)
    }

    @Test("Dogecoin versions 0x1e and 0x16 round-trip and name Dogecoin")
    func legacyAddress_dogecoinVersions_roundTrip() throws {
        let hash = try Hex.decode("751e76e8199196d454941c45d1b3a323f1433bd6")
        let p2pkh = try LegacyAddress(version: 0x1e, hash: hash)
        #expect(p2pkh.string.hasPrefix("D"))  // every 0x1e address starts with D
        #expect(try LegacyAddress(p2pkh.string) == p2pkh)
        #expect(p2pkh.version.description == "Dogecoin mainnet P2PKH")
        let p2sh = try LegacyAddress(LegacyAddress(version: 0x16, hash: hash).string)
        #expect(p2sh.network == .dogecoin && p2sh.kind == .p2sh)
    }

    @Test("0x05 is Bitcoin P2SH and also Litecoin's legacy P2SH")
    func legacyAddress_version0x05_namesBitcoinAndLitecoinLegacy() throws {
        let address = try LegacyAddress("3CMNFxN1oHBc4R1EpboAL5yzHGgE611Xou")
        #expect(address.network == .bitcoin)
        #expect(address.version.alsoUsedBy == [.litecoin])
        #expect(address.version.description == "Bitcoin mainnet P2SH (also Litecoin mainnet legacy P2SH)")
    }

    @Test("scriptPubKey of P2PKH and P2SH (bitcoinjs address.json scripts)")
    func legacyAddress_scriptPubKey_matchesStandardTemplates() throws {
        let p2pkh = try LegacyAddress("1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH")
        #expect(p2pkh.scriptPubKey.hex == "76a914751e76e8199196d454941c45d1b3a323f1433bd688ac")
        let p2sh = try LegacyAddress("3LRW7jeCvQCRdPF8S3yUCfRAx4eqXFmdcr")
        #expect(p2sh.scriptPubKey.hex == "a914cd7b44d0b03f2d026d1e586d7ae18903b0d385f687")
    }
}
