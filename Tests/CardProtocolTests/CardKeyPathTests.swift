// Key paths as the card takes them (docs/keycard-protocol.md §2.1). Rows from keycard.json
// (keycard-go derivationpath/{decoder,encoder}_test.go; Keycard.swift KeycardTests.swift).
import CardProtocol
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private let keycard = Vectors.json("keycard.json")

@Suite("Key paths")
struct CardKeyPathTests {
    static let decodeRows = keycard.object("derivation_path_decode").objects("cases")

    @Test("keycard.json derivation_path_decode: source and components, or a refusal", arguments: decodeRows)
    func parse_keycardGoRows(_ row: JSON) throws {
        let text = row.string("path")
        if let message = row.optionalString("error") {
            let error = caught { () throws(CardError) in _ = try CardKeyPath(text) }
            guard case .invalidKeyPath(let got, let reason)? = error else {
                Issue.record("\"\(text)\" should be refused (\(message)), got \(String(describing: error))")
                return
            }
            #expect(got == text)
            // keycard-go reports a character position; ours names the segment and the reason.
            #expect(reason.id == (message.contains("2^31") ? "path.indexTooLarge" : "path.badSegment"))
            return
        }
        let path = try CardKeyPath(text)
        let expected: DerivationSource =
            switch row.string("start") {
            case "master": .master
            case "parent": .parent
            default: .current
            }
        #expect(path.source == expected)
        #expect(path.components.map { Int($0.raw) } == row.array("components").map(\.intValue))
    }

    @Test(
        "keycard.json derivation_path_encode: components print as an m/ path",
        arguments: keycard.object("derivation_path_encode").objects("cases"))
    func describe_keycardGoRows(_ row: JSON) throws {
        let components = row.array("components").map { ChildIndex(raw: UInt32($0.intValue)) }
        #expect(try CardKeyPath(source: .master, components: components).description == row.string("path"))
    }

    @Test(
        "keycard.json key_path_apdu_encoding: the DERIVE KEY data bytes and P1 source",
        arguments: keycard.object("key_path_apdu_encoding").objects("cases"))
    func encode_apduRows(_ row: JSON) throws {
        let text = row.optionalString("path") ?? row.string("description")
        let path = try CardKeyPath(text)
        let source = row.string("source")
        let expected: DerivationSource =
            source.hasPrefix("fromMaster")
            ? .master
            : source.hasPrefix("fromParent") ? .parent : .current
        #expect(path.source == expected)
        #expect(path.bytes.hex == normHex(row.string("data_hex")))
        let apdu = try KeycardCommands.deriveKey(path)
        #expect(apdu.p1 == expected.rawValue)
        #expect(apdu.data.hex == normHex(row.string("data_hex")))
    }

    @Test(
        "§2.1 example: m/44'/60'/0'/0/0 is 20 bytes, and decodes back",
        arguments: ["m/44'/60'/0'/0/0", "m/44h/60H/0'/0/0"])
    func bytes_bip44_roundTrip(_ text: String) throws {
        let path = try CardKeyPath(text)
        #expect(path.bytes == h("8000002C 8000003C 80000000 00000000 00000000"))
        let back = try CardKeyPath(source: .master, bytes: path.bytes)
        #expect(back == path)
        #expect(back.description == "m/44'/60'/0'/0/0")
        #expect(back.derivationPath == (try DerivationPath("m/44'/60'/0'/0/0")))
    }

    @Test(
        "text forms print normalised",
        arguments: [
            ("", "."), (".", "."), ("..", ".."), ("m", "m"), ("M", "m"), ("../5", "../5"), ("./5", "./5"),
            ("5/6'", "./5/6'"),
        ])
    func describe_normalised(_ text: String, _ printed: String) throws {
        #expect(try CardKeyPath(text).description == printed)
    }

    @Test("10 levels are accepted, 11 refused, by text and by bytes")
    func depth_limit10() throws {
        let ten = "m" + String(repeating: "/1", count: 10)
        #expect(try CardKeyPath(ten).components.count == 10)
        #expect(caught { () throws(CardError) in _ = try CardKeyPath(ten + "/1") } == .keyPathTooDeep(depth: 11))
        #expect(
            caught { () throws(CardError) in
                _ = try CardKeyPath(source: .current, bytes: [UInt8](repeating: 0, count: 44))
            }
                == .keyPathTooDeep(depth: 11))
        #expect(CardError.keyPathTooDeep(depth: 11).description == "key path must have at most 10 levels, got 11")
    }

    @Test("bytes that are not a multiple of 4 are refused")
    func bytes_notMultipleOf4_refused() {
        let error = caught { () throws(CardError) in _ = try CardKeyPath(source: .master, bytes: [0, 0, 0, 1, 0]) }
        #expect(error == .keyPathLength(byteCount: 5))
        #expect(error?.description == "key path bytes must be a multiple of 4, got 5 bytes")
    }

    @Test("other malformed text", arguments: ["../", "./", "m/m/1", "x/1", "m/1/"])
    func parse_malformed_refused(_ text: String) {
        #expect(caught { () throws(CardError) in _ = try CardKeyPath(text) }?.id == "card.invalidKeyPath")
    }

    @Test("an index of 2^31 names the rule in the message")
    func parse_indexTooLarge_message() {
        let error = caught { () throws(CardError) in _ = try CardKeyPath("m/2147483648") }
        #expect(
            error?.description == "key path \"m/2147483648\" is invalid: derivation path segment 1 \"2147483648\" "
                + "must be below 2^31 (2147483648); mark hardened indexes with ' instead")
    }

    @Test("a DerivationPath converts: absolute → master, relative → current")
    func fromDerivationPath_sources() throws {
        #expect(try CardKeyPath(DerivationPath("m/1/2")).source == .master)
        #expect(try CardKeyPath(DerivationPath("1/2")).source == .current)
        #expect(try CardKeyPath(DerivationPath("1/2")).bytes == h("0000000100000002"))
    }
}
