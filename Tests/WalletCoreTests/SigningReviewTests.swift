// The signing review (docs/signing-review.md) and the unsigned-transaction reader it stands on.
// Sources: eth-tx.json — ethereum/EIPs EIPS/eip-155.md (Example) and ethers.js
// testcases/transaction.json.gz (their unsigned legacy, EIP-155, EIP-2930 and EIP-1559 forms),
// EIPS/eip-712.md's Mail example; amounts and fees worked by hand below.
import Foundation
import KCSErrors
import KCSTestSupport
import Testing
import WalletCore

private let eth = Vectors.json("eth-tx.json")

/// A vector's quantity: an integer, or hex text (`0x` alone is zero).
private func quantity(_ json: JSON?) -> UInt256 {
    switch json {
    case .int(let i)?: return UInt256(UInt64(i))
    case .string(let s)? where s == "0x" || s.isEmpty: return .zero
    case .string(let s)?: return try! EthereumUnits.parse(s)
    default: return .zero
    }
}

private func value(_ review: SigningReview, _ label: String) -> String? {
    review.lines.first { $0.label == label }?.value
}

@Suite("Signing review")
struct SigningReviewTests {
    @Test func eip155Example_decodesAndReadsAsAPersonExpects() throws {
        let row = eth.object("eip155_example")
        let payload = try Hex.decode(row.string("signing_data"))
        let tx = try EthereumTransaction.decodeUnsigned(payload)
        #expect(tx.nonce == UInt256(9) && tx.gasPrice == UInt256(20_000_000_000) && tx.chainID == UInt256(1))
        #expect(Hex.encodePrefixed(tx.signingHash) == row.string("signing_hash"))
        let review = SigningReview.transaction(tx, name: { $0.checksummed.hasPrefix("0x3535") ? "savings" : nil })
        #expect(review.title == "legacy transaction (EIP-155)")
        #expect(value(review, "chain") == "Ethereum mainnet (1)")
        #expect(value(review, "to") == "0x3535353535353535353535353535353535353535 (your key savings)")
        #expect(value(review, "value") == "1 ETH (1,000,000,000,000,000,000 wei)")
        #expect(value(review, "nonce") == "9")
        #expect(value(review, "gas limit") == "21,000")
        #expect(value(review, "gas price") == "20 gwei")
        // 21,000 × 20 gwei = 420,000 gwei = 0.00042 ETH.
        #expect(value(review, "worst-case fee") == "0.00042 ETH (420,000,000,000,000 wei), gas limit × gas price")
        #expect(value(review, "total at most") == "1.00042 ETH (1,000,420,000,000,000,000 wei)")
        #expect(value(review, "call data") == "none")
        #expect(review.warnings.isEmpty)
        #expect(review.rendered().contains("signing hash    " + row.string("signing_hash")))
    }

    /// Every unsigned form of ethers.js's 224 transactions reads back to the transaction ethers
    /// built (the four forms of each: pre-EIP-155, EIP-155, EIP-2930, EIP-1559), except those
    /// on chain 0, which kcs refuses to sign.
    @Test(arguments: eth.object("ethers_transactions").objects("cases"))
    func ethersUnsignedForms_decodeToTheirTransactions(_ row: JSON) throws {
        for kind in ["Legacy", "Eip155", "Berlin", "London"] {
            let payload = try Hex.decode(row.string("unsigned\(kind)"))
            let t = row.object("transaction")
            guard let tx = try? EthereumTransaction.decodeUnsigned(payload) else {
                // Chain 0 (ethers' default where the case gives none, which ethers writes as the
                // non-canonical byte 00 in these forms): kcs signs no such transaction.
                #expect(throws: EthereumError.self) { try EthereumTransaction.decodeUnsigned(payload) }
                #expect(kind != "Legacy" && quantity(t["chainId"]).isZero, "\(kind)")
                continue
            }
            #expect(tx.signingPayload == payload, "\(kind)")
            #expect(
                tx.type == ["Legacy": .legacy, "Eip155": .legacy, "Berlin": .accessList, "London": .dynamicFee][kind],
                "\(kind)")
            if kind == "Legacy" {
                #expect(tx.chainID == nil)
            } else if t.has("chainId") {
                #expect(tx.chainID == quantity(t["chainId"]), "\(kind)")
            }
            #expect(
                tx.nonce == quantity(t["nonce"]) && tx.gasLimit == quantity(t["gasLimit"])
                    && tx.value == quantity(t["value"]), "\(kind)")
            #expect(tx.to?.checksummed.lowercased() == t["to"]?.stringValue.lowercased(), "\(kind)")
            // The review never fails on a valid transaction, and names its digest.
            let review = SigningReview.transaction(tx)
            #expect(review.digest == Hash.keccak256(payload))
            #expect(kind != "Legacy" || review.warnings.contains { $0.contains("valid on every chain") })
        }
    }

    @Test func unsignedReader_refusesWhatIsNotAWholeTransaction() throws {
        let to = [UInt8](repeating: 0x35, count: 20)
        func rlp(_ type: UInt8?, _ items: [RLPItem]) -> [UInt8] { (type.map { [$0] } ?? []) + RLP.encode(.list(items)) }
        let q: (UInt64) -> RLPItem = { .bytes(UInt256($0).minimalBigEndianBytes) }
        // Four items for a type 2 transaction.
        #expect(throws: EthereumError.txFieldCount(kind: "unsigned EIP-1559", expected: 9, got: 4)) {
            try EthereumTransaction.decodeUnsigned(rlp(2, [q(1), q(0), q(1), q(2)]))
        }
        // A legacy list of 7 items, and an EIP-155 trailer that is not chainId, 0, 0.
        #expect(throws: EthereumError.self) {
            try EthereumTransaction.decodeUnsigned(
                rlp(nil, [q(0), q(1), q(21000), .bytes(to), q(0), .bytes([]), q(1)]))
        }
        #expect(throws: EthereumError.txBadField(field: "EIP-155 trailer", reason: "must be chainId, 0, 0")) {
            try EthereumTransaction.decodeUnsigned(
                rlp(nil, [q(0), q(1), q(21000), .bytes(to), q(0), .bytes([]), q(1), q(0), q(1)]))
        }
        // A chain id of 2^64 + 1 is read whole and refused, not folded to 1.
        do {
            _ = try EthereumTransaction.decodeUnsigned(
                rlp(
                    nil,
                    [
                        q(0), q(1), q(21000), .bytes(to), q(0), .bytes([]),
                        .bytes([1, 0, 0, 0, 0, 0, 0, 0, 1]), .bytes([]), .bytes([]),
                    ]))
            Issue.record("a chain id of 2^64 + 1 was accepted")
        } catch {
            #expect(error.description.contains("got 18446744073709551617"))
        }
        // A tip above the fee cap.
        let tip = EthereumTransaction(
            type: .dynamicFee, chainID: UInt256(1), nonce: .zero, maxPriorityFeePerGas: UInt256(3),
            maxFeePerGas: UInt256(2), gasLimit: UInt256(21000), to: try EthereumAddress(bytes: to), value: .zero)
        #expect(throws: EthereumError.self) { try EthereumTransaction.decodeUnsigned(tip.signingPayload) }
        // EIP-2294's bound: 2^63 − 37 is the largest chain id.
        var atBound = tip
        atBound.maxPriorityFeePerGas = UInt256(1)
        atBound.chainID = UInt256(EthereumTransaction.maximumChainID)
        #expect(
            try EthereumTransaction.decodeUnsigned(atBound.signingPayload).chainID == UInt256(9_223_372_036_854_775_771)
        )
        atBound.chainID = UInt256(EthereumTransaction.maximumChainID + 1)
        #expect(throws: EthereumError.self) { try EthereumTransaction.decodeUnsigned(atBound.signingPayload) }
        // Trailing bytes after the list.
        #expect(throws: EthereumError.self) {
            try EthereumTransaction.decodeUnsigned(tip.signingPayload.dropLast(0) + [0x00])
        }
    }

    @Test func callData_erc20CallsDecoded_unlimitedApprovalAndHighFeeWarned() throws {
        let token = try EthereumAddress("0xdAC17F958D2ee523a2206206994597C13D831ec7")
        let spender = String(repeating: "35", count: 20)
        func tx(_ data: String, maxFee: UInt64 = 30_000_000_000) throws -> EthereumTransaction {
            EthereumTransaction(
                type: .dynamicFee, chainID: UInt256(137), nonce: UInt256(1),
                maxPriorityFeePerGas: UInt256(1_000_000_000),
                maxFeePerGas: UInt256(maxFee), gasLimit: UInt256(60_000), to: token, value: .zero,
                data: try Hex.decode(data))
        }
        let approve = SigningReview.transaction(
            try tx("095ea7b3" + "000000000000000000000000" + spender + String(repeating: "ff", count: 32)))
        #expect(value(approve, "chain") == "Polygon PoS (137)")
        #expect(value(approve, "value") == "0 POL")
        #expect(value(approve, "call data") == "68 bytes: approve(address,uint256), selector 0x095ea7b3")
        #expect(value(approve, "spender") == "0x3535353535353535353535353535353535353535")
        #expect(approve.warnings.contains { $0.hasPrefix("unlimited approval") && $0.contains(token.checksummed) })
        // A transfer of 1,000,000 units at 5,000 gwei: the fee is called out.
        let transfer = SigningReview.transaction(
            try tx(
                "a9059cbb" + "000000000000000000000000" + spender
                    + String(repeating: "0", count: 58) + "0f4240", maxFee: 5_000_000_000_000), fullData: true)
        #expect(value(transfer, "amount")?.hasPrefix("1000000 token units") == true)
        #expect(value(transfer, "max fee per gas") == "5,000 gwei")
        #expect(value(transfer, "worst-case fee") == "0.3 POL (300,000,000,000,000,000 wei), gas limit × max fee")
        #expect(transfer.warnings.count == 1 && transfer.warnings[0].hasPrefix("the fee is high"))
        #expect(value(transfer, "call data (hex)")?.hasPrefix("0xa9059cbb") == true)
        // A known selector with arguments that are not canonical is not decoded as that call.
        let odd = SigningReview.transaction(try tx("095ea7b3" + String(repeating: "ff", count: 64)))
        #expect(value(odd, "call data") == "68 bytes, selector 0x095ea7b3 (a call kcs does not decode)")
        #expect(odd.warnings.isEmpty)
    }

    @Test func messages_textOrHex_and32BytesFlagged() {
        let text = SigningReview.message(Array("hello\u{1B}[2J".utf8))
        #expect(value(text, "bytes") == "0x68656c6c6f1b5b324a", "text that would act on a terminal is shown as bytes")
        let plain = SigningReview.message(Array("hello kcs".utf8))
        #expect(value(plain, "text") == "hello kcs" && plain.warnings.isEmpty)
        #expect(plain.digest == PersonalMessage.digest(Array("hello kcs".utf8)))
        let hash = SigningReview.message([UInt8](repeating: 0xAB, count: 32))
        #expect(
            hash.warnings == [
                "this message is 32 bytes: it may be a transaction hash, and signing it blind is dangerous"
            ])
        #expect(SigningReview.rawDigest([UInt8](repeating: 1, count: 32)).warnings.count == 1)
    }

    @Test func typedData_mailExample_asATree_withTheThreeHashes() throws {
        let row = eth.object("eip712_mail_example")
        let typed = try TypedData(jsonObject: jsonAny(row.object("typed_data")))
        let review = try SigningReview.typedData(typed)
        let shown = review.lines.map { String(repeating: " ", count: $0.depth) + $0.label + "=" + $0.value }
        #expect(
            shown == [
                "primary type=Mail", "domain=", " name=\"Ether Mail\"", " version=\"1\"",
                " chainId=Ethereum mainnet (1)",
                " verifyingContract=0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC", "message=Mail",
                " from=Person", "  name=\"Cow\"", "  wallet=0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826",
                " to=Person", "  name=\"Bob\"", "  wallet=0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB",
                " contents=\"Hello, Bob!\"",
                "Domain Hash=0x" + Hex.encode(try typed.domainSeparator()),
                "Message Hash=" + row.string("hash_struct_message"),
            ])
        #expect(review.digest == (try typed.digest()))
    }

    @Test func json_duplicateKeysRefused_whereverTheyHide() throws {
        #expect(throws: JSONText.ParseError.self) { try JSONText.parse(Array(#"{"a": 1, "a": 2}"#.utf8)) }
        #expect(throws: JSONText.ParseError.self) {
            try JSONText.parse(Array(#"{"x": [{"to": 1, "t\u006f": 2}]}"#.utf8))
        }
        // Canonically equivalent keys are one key to Swift's dictionary, so they are refused too.
        #expect(throws: JSONText.ParseError.self) { try JSONText.parse(Array("{\"\u{E9}\": 1, \"e\u{301}\": 2}".utf8)) }
        // The same key in two objects, a key text as a value, and escaped quotes are fine.
        _ = try JSONText.parse(
            Array(#"{"a": {"a": 1}, "b": "a", "c": ["a", "a"], "d\"": 1, "d": {"b": "\"a\""}}"#.utf8))
        do {
            _ = try JSONText.parse(Array("{\n  \"to\": 1,\n  \"to\": 2\n}".utf8))
        } catch {
            #expect(error.description.contains("\"to\" again at line 3, column 3"))
        }
    }

    @Test func terminalText_escapesWhatWouldActOnTheScreen() {
        #expect(TerminalText.safe("ok") == "ok")
        #expect(TerminalText.safe("a\u{1B}]0;title\u{07}b") == #"a\e]0;title\u{7}b"#)
        #expect(TerminalText.safe("x\u{202E}gnp.exe") == #"x\u{202E}gnp.exe"#)
        #expect(TerminalText.safe("a\\e") == #"a\\e"#, "a backslash cannot forge an escape")
        #expect(TerminalText.safe("two\nlines\t", lines: true) == "two\nlines\t")
        #expect(TerminalText.safe("two\nlines") == #"two\nlines"#)
        #expect(TerminalText.safe("\u{9B}31m\u{200B}") == #"\u{9B}31m\u{200B}"#)
    }

    @Test func rendered_wrapsLongValues_neverCuts_andRepeatsWarningsLast() {
        var review = SigningReview(
            title: "t", warnings: ["w"], digest: [UInt8](repeating: 7, count: 32), digestName: "digest")
        let long = String(repeating: "abcdefghij", count: 40)
        review.add("long", long)
        review.add("words", Array(repeating: "word", count: 60).joined(separator: " "))
        let text = review.rendered(width: 80)
        let lines = text.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(text)")
        #expect(lines.first == "t" && lines[1] == "  ! w" && lines.last == "  ! w")
        let joined = lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined()
        #expect(joined.contains(long), "every character of a long value is shown")
        #expect(text.contains("0x" + String(repeating: "07", count: 32)))
        #expect(text.split(separator: "\n").filter { $0.contains("word") }.count > 1, "words wrap at spaces")
    }
}
