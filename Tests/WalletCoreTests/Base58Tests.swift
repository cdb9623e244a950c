// Base58 and Base58Check. Source: Vectors/base58.json, Bitcoin Core src/test/data/base58_encode_decode.json
// and base58_keys_valid.json as copied into bitcoinjs/bitcoinjs-lib test/fixtures/core/ (commit
// 248789d25b9833ed286c9ca4b9bfd93f099fd8a3); see the `_sources` of Vectors/base58.json.
// Keys and addresses (WIF, legacy versions) are tested in WIFTests.swift.
import KCSTestSupport
import Testing
import WalletCore

private let base58File = Vectors.json("base58.json")

private func base58Error(_ text: String) -> Base58Error? {
    caught { () throws(Base58Error) in _ = try Base58.decode(text) }
}

private func checkError(_ text: String) -> Base58Error? {
    caught { () throws(Base58Error) in _ = try Base58Check.decode(text) }
}

@Suite("Base58")
struct Base58Tests {
    static let encodeDecode = base58File.objects("encode_decode")
    static let keysValid = base58File.objects("keys_valid")

    // MARK: Base58

    @Test("Bitcoin Core encode_decode: bytes encode to the published text", arguments: encodeDecode)
    func encode_bitcoinCoreVector_matchesText(_ row: JSON) throws {
        let bytes = try Hex.decode(row.string("hex"))
        #expect(Base58.encode(bytes) == row.string("base58"))
    }

    @Test("Bitcoin Core encode_decode: text decodes to the published bytes", arguments: encodeDecode)
    func decode_bitcoinCoreVector_matchesBytes(_ row: JSON) throws {
        #expect(try Base58.decode(row.string("base58")).hex == normHex(row.string("hex")))
    }

    @Test("leading zero bytes become leading '1's and come back")
    func leadingZeros_roundTrip_keepsEveryZeroByte() throws {
        #expect(Base58.encode([0, 0, 0]) == "111")
        #expect(Base58.encode([0, 0, 1]) == "112")
        #expect(try Base58.decode("111") == [0, 0, 0])
        #expect(try Base58.decode("112") == [0, 0, 1])
        #expect(try Base58.decode("") == [])
    }

    @Test("a character outside the alphabet is named with its 1-based position")
    func decode_zeroDigit_failsNamingCharacterAndPosition() {
        let error = base58Error("3SEo3LW0oPntC")
        #expect(error == .invalidCharacter(character: "0", position: 8))
        #expect(error?.id == "base58.invalidCharacter")
        #expect(
            error?.description == "Base58 text must use only the digits 1-9 and the letters A-Z, a-z"
                + " except I, O and l; got '0' at position 8")
    }

    @Test("each excluded or foreign character is rejected", arguments: ["0", "O", "I", "l", "+", "/", "-", "_"])
    func decode_excludedCharacter_fails(_ character: String) {
        let error = base58Error("2g" + character)
        #expect(error == .invalidCharacter(character: Character(character), position: 3))
    }

    @Test("white space and non-ASCII are shown by code point")
    func decode_spaceAndNonASCII_failWithCodePoint() {
        let space = base58Error("2g a3gV")
        #expect(space?.description.hasSuffix("got U+0020 at position 3") == true)
        let accent = base58Error("é2g")
        #expect(accent == .invalidCharacter(character: "é", position: 1))
        #expect(accent?.description.hasSuffix("got 'é' (U+00E9) at position 1") == true)
    }

    // MARK: Base58Check

    @Test("keys_valid: Base58Check text decodes and re-encodes to itself", arguments: keysValid)
    func base58Check_keysValidRow_roundTrips(_ row: JSON) throws {
        let text = row.string("base58check")
        let payload = try Base58Check.decode(text)
        // Payload = version byte ‖ published payload ‖ 0x01 for compressed WIF keys.
        let flag = row.object("meta")["isCompressed"] == .bool(true) ? "01" : ""
        #expect(Array(payload.dropFirst()).hex == normHex(row.string("payload_hex")) + flag)
        #expect(Base58Check.encode(payload) == text)
    }

    @Test("empty text is too short for a checksum")
    func base58Check_emptyText_failsTooShort() {
        let error = checkError("")
        #expect(error == .tooShort(length: 0))
        #expect(error?.id == "base58check.tooShort")
        #expect(error?.description == "Base58Check data must be at least 4 bytes (the checksum), got 0 bytes")
    }

    @Test("three decoded bytes are too short for a checksum")
    func base58Check_threeBytes_failsTooShort() {
        let error = checkError("a3gV")
        #expect(error == .tooShort(length: 3))
    }

    @Test("four bytes are an empty payload with its checksum")
    func base58Check_checksumOnly_decodesToEmptyPayload() throws {
        #expect(try Base58Check.decode(Base58Check.encode([])) == [])
    }

    @Test("one changed character fails the checksum")
    func base58Check_changedCharacter_failsChecksum() {
        // 1AGNa15ZQXAZUgFiqJ2i7Z2DPU2J6hW62i from keys_valid with its last character changed.
        let error = checkError("1AGNa15ZQXAZUgFiqJ2i7Z2DPU2J6hW62j")
        #expect(error == .checksumMismatch)
        #expect(error?.id == "base58check.checksumMismatch")
        #expect(
            error?.description == "Base58Check checksum must equal the first 4 bytes of the payload's"
                + " double SHA-256, got other bytes (a character is probably mistyped)")
    }
}
