// Bad input for the Ethereum signing core (issue 7 §3): odd-length hex, digests that are not
// 32 bytes, typed data with an unknown type, a missing field, a cycle, bad values and integers
// out of range, transactions with both gas price and fee caps, negative or 257-bit values, chain
// id 0, malformed raw transactions, and high-S signatures. Hand-made inputs, one per rule; the
// valid starting points are vectors from eth-tx.json (sources in EthereumSigningTests.swift).
import Foundation
import KCSTestSupport
import Testing
import WalletCore

private let eth = Vectors.json("eth-tx.json")
private let eip155Raw = eth.object("eip155_example").string("signed_tx")
private let eip1559Raw = eth.object("eth_account_eip1559_signed").objects("cases")[0].string("raw")

/// The Mail document with `edit` applied.
private func mail(_ edit: (inout [String: Any]) -> Void) -> [String: Any] {
    var doc = jsonAny(eth.object("eip712_mail_example").object("typed_data")) as! [String: Any]
    edit(&doc)
    return doc
}

private func typedError(_ doc: [String: Any]) -> EthereumError? {
    caught { () throws(EthereumError) in _ = try TypedData(jsonObject: doc).digest() }
}

private func decodeError(_ hex: String) -> EthereumError? {
    caught { () throws(EthereumError) in _ = try SignedEthereumTransaction.decode(hex: hex) }
}

private func fieldsError(_ fields: [String: Any]) -> EthereumError? {
    caught { () throws(EthereumError) in _ = try EthereumTransaction(fields: fields) }
}

@Suite("Ethereum bad input")
struct EthereumBadInputTests {
    // MARK: hex and digests

    @Test("odd-length hex in a raw transaction is named")
    func rawTx_oddLengthHex() {
        let error = decodeError("0xf86")
        #expect(error?.id == "eth.tx.badHex")
        #expect(error == .txBadHex(reason: "hex must have an even number of digits, got 3"))
        #expect(error?.description == "raw transaction must be hex: hex must have an even number of digits, got 3")
    }

    @Test("a digest that is not 32 bytes is refused by sign, recover and verify")
    func digest_not32Bytes() throws {
        let key = try PrivateKey(bytes: [UInt8](repeating: 0x46, count: 32))
        #expect(throws: EthereumError.digestLength(got: 31)) {
            try EthereumSignature.sign(digest: [UInt8](repeating: 1, count: 31), with: key)
        }
        let sig = try EthereumSignature.sign(digest: [UInt8](repeating: 1, count: 32), with: key)
        #expect(throws: EthereumError.digestLength(got: 33)) {
            try sig.recoverAddress(digest: [UInt8](repeating: 1, count: 33))
        }
        #expect(throws: EthereumError.digestLength(got: 0)) {
            try sig.verify(digest: [], address: EthereumAddress(publicKey: key.publicKey))
        }
        #expect(EthereumError.digestLength(got: 31).description == "digest must be 32 bytes, got 31")
    }

    @Test("signatures of the wrong length or with a bad v")
    func signature_lengthAndV() {
        #expect(throws: EthereumError.signatureLength(got: 64)) {
            try EthereumSignature(bytes: [UInt8](repeating: 1, count: 64))
        }
        #expect(throws: EthereumError.signatureBadV(v: 29)) {
            try EthereumSignature(bytes: [UInt8](repeating: 1, count: 64) + [29])
        }
    }

    // MARK: EIP-712

    @Test("typed data: unknown field type names the struct and field")
    func typedData_unknownType() {
        let error = typedError(
            mail { doc in
                var types = doc["types"] as! [String: Any]
                types["Mail"] = [["name": "from", "type": "Persn"], ["name": "contents", "type": "string"]]
                doc["types"] = types
            })
        #expect(error == .typedDataUnknownType(type: "Persn", usedBy: "Mail.from"))
        #expect(error?.description.contains("\"Persn\" in Mail.from") == true)
    }

    @Test("typed data: unknown primary type and bad atomic sizes")
    func typedData_unknownPrimaryAndSizes() {
        #expect(
            typedError(mail { $0["primaryType"] = "Letter" })
                == .typedDataUnknownType(type: "Letter", usedBy: "primaryType"))
        for bad in ["uint7", "uint264", "bytes33", "bytes0", "int", "uint08"] {
            let error = typedError(
                mail { doc in
                    var types = doc["types"] as! [String: Any]
                    types["Person"] = [["name": "name", "type": bad], ["name": "wallet", "type": "address"]]
                    doc["types"] = types
                })
            #expect(error == .typedDataUnknownType(type: bad, usedBy: "Person.name"), "\(bad)")
        }
    }

    @Test("typed data: a missing field is named by its path")
    func typedData_missingField() {
        let error = typedError(
            mail { doc in
                var message = doc["message"] as! [String: Any]
                var to = message["to"] as! [String: Any]
                to["wallet"] = nil
                message["to"] = to
                doc["message"] = message
            })
        #expect(error == .typedDataMissingField(path: "message.to.wallet", type: "address"))
        #expect(error?.description == "typed data must give a value for message.to.wallet (address), got none")
    }

    @Test("typed data: a cycle between struct types is named")
    func typedData_cycle() {
        let error = typedError(
            mail { doc in
                var types = doc["types"] as! [String: Any]
                types["Person"] = [["name": "name", "type": "string"], ["name": "inbox", "type": "Mail[]"]]
                doc["types"] = types
            })
        #expect(error == .typedDataCycle(path: ["Mail", "Person", "Mail"]))
        #expect(error?.description.contains("Mail → Person → Mail") == true)
        let selfCycle = typedError(
            mail { doc in
                var types = doc["types"] as! [String: Any]
                types["Person"] = [["name": "name", "type": "string"], ["name": "friend", "type": "Person"]]
                doc["types"] = types
            })
        #expect(selfCycle == .typedDataCycle(path: ["Person", "Person"]))
    }

    @Test("typed data: array suffixes read from the end, the last one outermost; at most 32 of them")
    func typedData_arrayDimensions() {
        let n = { (i: Int) in NSNumber(value: i) }
        // uint8[2][3]: three arrays of two.
        #expect(typedErrorWithValue("uint8[2][3]", [[n(1), n(2)], [n(3), n(4)], [n(5), n(6)]]) == nil)
        #expect(
            typedErrorWithValue("uint8[2][3]", [[n(1), n(2), n(3)], [n(4), n(5), n(6)]])
                == .typedDataBadValue(path: "message.x", type: "uint8[2][3]", reason: "2 elements instead of 3"))
        #expect(
            typedErrorWithValue("uint8[2][3]", [[n(1)], [n(3), n(4)], [n(5), n(6)]])
                == .typedDataBadValue(path: "message.x[0]", type: "uint8[2]", reason: "1 elements instead of 2"))
        #expect(typedErrorWithValue("uint8" + String(repeating: "[]", count: 32), [Any]()) == nil)
        let error = typedErrorWithValue("uint8" + String(repeating: "[]", count: 33), [Any]())
        #expect(error == .typedDataTooDeep(usedBy: "type of Mail.x", what: "array dimensions", limit: 32, given: "33"))
        #expect(error?.description == "typed data type of Mail.x must have at most 32 array dimensions, got 33")
    }

    @Test("typed data: values that do not fit their type")
    func typedData_badValues() {
        #expect(typedErrorWithValue("address", "0x1234")?.id == "eth.typedData.badValue")
        #expect(
            typedErrorWithValue("bool", "yes")
                == .typedDataBadValue(path: "message.x", type: "bool", reason: "\"yes\" instead of true or false"))
        #expect(
            typedErrorWithValue("bytes4", "0x010203")
                == .typedDataBadValue(path: "message.x", type: "bytes4", reason: "3 bytes instead of 4"))
        #expect(typedErrorWithValue("bytes", "0x123")?.id == "eth.typedData.badValue")
        #expect(typedErrorWithValue("string", NSNumber(value: 5))?.id == "eth.typedData.badValue")
        #expect(
            typedErrorWithValue("uint8[2]", [NSNumber(value: 1)])
                == .typedDataBadValue(path: "message.x", type: "uint8[2]", reason: "1 elements instead of 2"))
        #expect(typedErrorWithValue("uint256", NSNumber(value: 1.5))?.id == "eth.typedData.badValue")
        #expect(typedErrorWithValue("uint256", "12a")?.id == "eth.typedData.badValue")
    }

    @Test(
        "typed data: integers out of range",
        arguments: [
            ("uint8", "256"), ("uint8", "-1"), ("int8", "128"), ("int8", "-129"),
            ("uint256", "115792089237316195423570985008687907853269984665640564039457584007913129639936"),
            ("int256", "57896044618658097711785492504343953926634992332820282019728792003956564819968"),
            ("uint16", "0x10000"),
        ])
    func typedData_integerOutOfRange(_ type: String, _ value: String) {
        let error = typedError(
            mail { doc in
                var types = doc["types"] as! [String: Any]
                types["Mail"] = [["name": "n", "type": type]]
                doc["types"] = types
                doc["message"] = ["n": value]
            })
        #expect(error == .typedDataIntegerOutOfRange(path: "message.n", type: type, value: value))
    }

    @Test("typed data: malformed documents")
    func typedData_malformed() {
        #expect(
            caught { () throws(EthereumError) in _ = try TypedData(json: Array("[1]".utf8)) }?.id
                == "eth.typedData.malformed")
        #expect(
            caught { () throws(EthereumError) in _ = try TypedData(json: Array("{".utf8)) }?.id
                == "eth.typedData.malformed")
        #expect(typedError(mail { $0["message"] = nil }) == .typedDataMalformed(reason: "\"message\" is missing"))
    }

    // MARK: transactions

    @Test("a transaction with both gasPrice and fee caps")
    func tx_gasPriceAndFeeCaps() {
        let fields: [String: Any] = ["chainId": "1", "gasPrice": "20 gwei", "maxFeePerGas": "30 gwei", "gas": "21000"]
        #expect(fieldsError(fields) == .txGasPriceAndFeeCaps)
        #expect(fieldsError(["type": "2", "gasPrice": "1 gwei"]) == .txGasPriceAndFeeCaps)
        var tx = EthereumTransaction(
            type: .dynamicFee, chainID: UInt256(1), nonce: .zero, maxPriorityFeePerGas: UInt256(1),
            maxFeePerGas: UInt256(2), gasLimit: UInt256(21000), to: nil, value: .zero)
        tx.gasPrice = UInt256(3)
        #expect(throws: EthereumError.txGasPriceAndFeeCaps) { try tx.validate() }
    }

    @Test(
        "negative and 257-bit values",
        arguments: [
            ("-1", EthereumError.unitsNegative(input: "-1")),
            ("-0.5 ether", .unitsNegative(input: "-0.5 ether")),
            (
                "115792089237316195423570985008687907853269984665640564039457584007913129639936",
                .unitsTooLarge(input: "115792089237316195423570985008687907853269984665640564039457584007913129639936")
            ),
            (
                "0x1" + String(repeating: "0", count: 64),
                .unitsTooLarge(input: "0x1" + String(repeating: "0", count: 64))
            ),
            (
                "115792089237316195423570985008687907853269984665640564039458 ether",
                .unitsTooLarge(input: "115792089237316195423570985008687907853269984665640564039458 ether")
            ),
        ])
    func tx_valueNegativeOrTooLarge(_ input: String, _ expected: EthereumError) {
        #expect(fieldsError(["chainId": "1", "value": input]) == .txQuantity(field: "value", error: expected))
        #expect(caught { () throws(EthereumError) in _ = try EthereumUnits.parse(input) } == expected)
    }

    @Test("malformed quantities are named with the input")
    func units_malformed() {
        #expect(
            caught { () throws(EthereumError) in _ = try EthereumUnits.parse("1.5") }
                == .unitsTooManyDecimals(input: "1.5", unit: "wei", allowed: 0))
        #expect(
            caught { () throws(EthereumError) in _ = try EthereumUnits.parse("1.0000000001 gwei") }
                == .unitsTooManyDecimals(input: "1.0000000001 gwei", unit: "gwei", allowed: 9))
        #expect(
            caught { () throws(EthereumError) in _ = try EthereumUnits.parse("3 bananas") }
                == .unitsUnknownUnit(input: "3 bananas", unit: "bananas"))
        #expect(caught { () throws(EthereumError) in _ = try EthereumUnits.parse("") } == .unitsEmpty)
        #expect(caught { () throws(EthereumError) in _ = try EthereumUnits.parse("0x") }?.id == "eth.units.malformed")
        #expect(caught { () throws(EthereumError) in _ = try EthereumUnits.parse("0xg1") }?.id == "eth.units.malformed")
        #expect(
            caught { () throws(EthereumError) in _ = try EthereumUnits.parse("1.2.3 ether") }?.id
                == "eth.units.malformed")
        #expect(
            caught { () throws(EthereumError) in _ = try EthereumUnits.parse("ether") }?.id == "eth.units.malformed")
        #expect(EthereumError.unitsNegative(input: "-1").description == "quantity must not be negative, got \"-1\"")
    }

    @Test("chain id 0 is refused before signing")
    func tx_chainIdZero() throws {
        let key = try PrivateKey(bytes: [UInt8](repeating: 0x46, count: 32))
        for type in ["0", "1", "2"] {
            let tx = try EthereumTransaction(fields: ["type": type, "chainId": "0", "gas": "21000"])
            #expect(throws: EthereumError.txChainIDZero) { try tx.sign(with: key) }
        }
        let typedWithoutChain = try EthereumTransaction(fields: ["type": "2", "gas": "21000"])
        #expect(throws: EthereumError.txMissingField(field: "chainId")) { try typedWithoutChain.validate() }
    }

    @Test("unknown and misplaced transaction fields")
    func tx_unknownFields() {
        #expect(fieldsError(["gasprice": "1"])?.id == "eth.tx.badField")
        #expect(fieldsError(["type": "0", "maxFeePerGas": "1"])?.id == "eth.tx.badField")
        #expect(fieldsError(["type": "5"])?.id == "eth.tx.badField")
        #expect(fieldsError(["type": "2", "authorizationList": []])?.id == "eth.tx.badField")
        #expect(fieldsError(["to": "0x1234"])?.id == "eth.tx.badField")
    }

    @Test(
        "malformed raw transactions",
        arguments: [
            ("empty", "0x", "eth.tx.empty"),
            ("unknown type byte", "0x05c0", "eth.tx.unknownType"),
            ("blob, too few fields", "0x03c0", "eth.tx.fieldCount"),
            ("RLP string instead of list", "0x83010203", "eth.tx.rlp"),
            ("truncated legacy", String(eip155Raw.dropLast(2)), "eth.tx.rlp"),
            ("trailing byte", eip155Raw + "00", "eth.tx.rlp"),
            ("too few fields", "0xc3808080", "eth.tx.fieldCount"),
            ("typed, too few fields", "0x02c3808080", "eth.tx.fieldCount"),
            ("non-canonical nonce 0x00", "0xc9008080808080808080", "eth.tx.badField"),
            ("bad legacy v 30", "0xc98080808080801e0101", "eth.tx.badV"),
            ("to of 2 bytes", "0xcb808080820102808025" + "0101", "eth.tx.badField"),
            ("unsigned (r = s = 0)", "0xc9808080808080258080", "eth.tx.unsigned"),
            ("yParity 2", "0x02cc0180808080808080c0020101", "eth.tx.badField"),
            ("access list not a list", "0x01cb01808080808080800101" + "01", "eth.tx.badField"),
        ])
    func rawTx_malformed(_ name: String, _ hex: String, _ id: String) {
        #expect(decodeError(hex)?.id == id, "\(name): \(String(describing: decodeError(hex)))")
    }

    @Test("malformed raw transaction messages are precise")
    func rawTx_messages() {
        #expect(
            decodeError("0x05c0")?.description
                == "raw transaction must start with an RLP list (legacy), 0x01 (EIP-2930), 0x02 (EIP-1559), 0x03 (EIP-4844)"
                + " or 0x04 (EIP-7702), got type byte 0x05"
        )
        #expect(decodeError("0xc3808080")?.description == "legacy transaction must have 9 RLP fields, got 3")
        #expect(
            decodeError(eip155Raw + "00")?.description
                == "raw transaction is malformed: RLP data must hold exactly one item, got 1 extra byte from byte 110")
        #expect(decodeError(String(eip1559Raw.dropLast(2)))?.id == "eth.tx.rlp")
    }

    @Test("a high-S signature is refused by verify unless allowed, and flagged on transactions")
    func highS_rejectedUnlessAllowed() throws {
        let key = try PrivateKey(bytes: [UInt8](repeating: 0x46, count: 32))
        let digest = PersonalMessage.digest(text: "hello")
        let low = try EthereumSignature.sign(digest: digest, with: key)
        let n = UInt256(bigEndian: Secp256k1.order)!
        let highS = n.subtractingReportingOverflow(UInt256(bigEndian: low.s)!).0.bigEndianBytes
        let high = try EthereumSignature(r: low.r, s: highS, v: 28 - low.recoveryID)
        #expect(!high.isLowS)
        let address = EthereumAddress(publicKey: key.publicKey)
        #expect(throws: EthereumError.signatureHighS) { try high.verify(digest: digest, address: address) }
        #expect(try high.verify(digest: digest, address: address, allowHighS: true))
        #expect(try high.recoverAddress(digest: digest) == address)
        // The Frontier-era txtest case (README caveat) decodes with its high S flagged.
        let txtest = eth.object("ethereum_tests_txtest_legacy").objects("cases")[1]
        let decoded = try SignedEthereumTransaction.decode(hex: txtest.string("signed"))
        #expect(!decoded.isLowS)
    }
}

/// The error of the test document whose `Mail` has one field `x` of `type`, holding `value`.
private func typedErrorWithValue(_ type: String, _ value: Any) -> EthereumError? {
    typedError(
        mail { doc in
            var types = doc["types"] as! [String: Any]
            types["Mail"] = [["name": "x", "type": type]]
            doc["types"] = types
            doc["message"] = ["x": value]
        })
}
