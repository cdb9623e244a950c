// Air-gapped signing (ERC-4527) end to end: eth-sign-requests drawn by segno as a watch-only
// wallet would show them, read and signed by the kcs binary with a software HD key and with the
// simulated card, and every answer checked by eth-account (tools/qr-oracle/airgap.py), which
// rebuilds the signed transaction or message and recovers the signer. Requests for another
// master, another address, and a batch run without --yes sign nothing.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

@Suite("Air-gapped signing through QR codes")
struct AirGapTests {
    static let abandon = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
    static let signer = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
    /// EIP-155's example transaction, unsigned (nonce 9, 20 gwei, 21000 gas, 1 ether, chain 1).
    static let legacy = "ec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080"
    /// An EIP-1559 transaction on chain 1, unsigned: 0x02 ‖ RLP (built with pyrlp).
    static let dynamicFee = "02e70180843b9aca0084773594008252089435353535353535353535353535353535353535350180c0"
    static let requestID: [UInt8] = [
        0x9B, 0x1D, 0xEB, 0x4D, 0x3B, 0x7D, 0x4B, 0xAD, 0x9B, 0xDD, 0x2B, 0x0D, 0x7B, 0x3D, 0xCB, 0x6D,
    ]

    /// An eth-sign-request for "abandon … about" at m/44'/60'/0'/0/0 (master 73c5da0a) as a PNG.
    func request(
        _ data: [UInt8], _ type: ETHSignRequest.DataType, chain: Int? = 1, master: UInt32 = 0x73C5_DA0A,
        address: String? = nil, file: String, in home: BatchHome
    ) throws -> String {
        let r = ETHSignRequest(
            requestID: Self.requestID, signData: data, dataType: type, chainID: chain,
            path: URKeypath(try DerivationPath("m/44'/60'/0'/0/0"), sourceFingerprint: master),
            address: try address.map { try EthereumAddress($0).bytes }, origin: "metamask")
        let text = try UniformResource(type: "eth-sign-request", cbor: r.cbor.encoded).singlePart.uppercased()
        _ = try QROracle.run(["make", Hex.encode(Array(text.utf8)), "TEXT", home.path(file), "L"])
        return file
    }

    /// eth-account's signer of the request data with kcs's answer.
    func recovered(_ command: String, _ data: String, _ answer: String) throws -> String {
        try QROracle.run([command, data, answer], script: "airgap.py", python: EVMNode.python)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The answers of a run: one `answer ur` line per request.
    func answers(_ out: String) -> [(answer: String, ur: String)] {
        out.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            return f.count == 2 && f[1].hasPrefix("UR:") ? (String(f[0].dropFirst(2)), String(f[1])) : nil
        }
    }

    @Test func softwareKey_signsLegacyTypedAndMessageRequests_asEthAccountRecovers() throws {
        var home = try BatchHome()
        defer { home.remove() }
        _ = try request(try Hex.decode(Self.legacy), .legacyTransaction, file: "legacy.png", in: home)
        _ = try request(try Hex.decode(Self.dynamicFee), .typedTransaction, file: "typed.png", in: home)
        _ = try request(
            Array("hello kcs".utf8), .personalMessage, chain: nil, address: Self.signer, file: "message.png", in: home)
        let r = try home.run(
            """
            import mnemonic "\(Self.abandon)" --name hot
            use key hot-0
            for f in ["legacy.png", "typed.png", "message.png"] {
              let s = qr.sign $f --yes
              print s.answer, s.ur
            }
            print len(history())
            """)
        #expect(r.code == 0, "\(r.err)")
        let a = answers(r.out)
        try #require(a.count == 3)
        // EIP-155: v = 1·2 + 35 + y parity, one byte here; typed: the parity itself; message: 27/28.
        let legacyV = try Hex.decode(a[0].answer).last!, typedV = try Hex.decode(a[1].answer).last!
        #expect([37, 38].contains(legacyV) && [0, 1].contains(typedV))
        #expect(try recovered("tx", Self.legacy, a[0].answer) == Self.signer)
        #expect(try recovered("tx", Self.dynamicFee, a[1].answer) == Self.signer)
        #expect(try recovered("message", Hex.encode(Array("hello kcs".utf8)), a[2].answer) == Self.signer)
        // The answer echoes the request id, as MetaMask requires.
        for (answer, ur) in a {
            let response = try ETHSignature(cbor: CBOR(decoding: URDecoder.decode(ur).cbor))
            #expect(response.requestID == Self.requestID && Hex.encode(response.signature) == answer)
        }
        #expect(r.out.hasSuffix("3\n"), "every signature is in the history")
    }

    /// EIP-712 typed data (the Mail example of the EIP, as MetaMask sends it: the JSON text).
    @Test func typedDataRequest_isSignedAsEthAccountRecovers() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let json = try Data(
            contentsOf: TestPaths.root.appendingPathComponent("Tests/TranscriptTests/Scripts/eth/mail.json"))
        _ = try request(Array(json), .typedData, chain: 1, file: "typed.png", in: home)
        let r = try home.run(
            """
            import mnemonic "\(Self.abandon)" --name hot
            use key hot-0
            let s = qr.sign "typed.png" --yes
            print s.answer, s.ur
            """)
        #expect(r.code == 0, "\(r.err)")
        let a = answers(r.out)
        try #require(a.count == 1)
        #expect(try recovered("typed", Hex.encode(Array(json)), a[0].answer) == Self.signer)
    }

    @Test func theCard_signsAtTheRequestsPath() throws {
        var home = try BatchHome()
        defer { home.remove() }
        _ = try request(try Hex.decode(Self.dynamicFee), .typedTransaction, file: "typed.png", in: home)
        let r = try home.run(
            """
            card.connect --sim airgap --profile 4.0
            card.init --pin "123456" --puk "111122223333" --duress "654321"
            card.login "123456"
            card.load mnemonic "\(Self.abandon)" --name kc
            use card
            let s = qr.sign "typed.png" --yes
            print s.answer, s.ur
            print s.signer, s.path
            """)
        #expect(r.code == 0, "\(r.err)")
        let a = answers(r.out)
        try #require(a.count == 1)
        #expect(try recovered("tx", Self.dynamicFee, a[0].answer) == Self.signer)
        #expect(r.out.contains("\(Self.signer) m/44'/60'/0'/0/0"))
    }

    /// A set-code transaction (type 4) over QR: its tuple already signed (eth-account's docstring
    /// tuple), the request's review lists it, and eth-account recovers the signer of kcs's answer.
    @Test func setCodeTransaction_overQR_isSignedAsEthAccountRecovers() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let prepared = try home.run(
            """
            let a = sign auth --delegate 0x5ce9454909639D2D17A3F753ce7d93fa0b9aB12E --chain 1 --nonce 1 --key 0x\(String(repeating: "aa", count: 32)) --allow-unknown-delegate
            print "U", hex((sign tx {"type": 4, "chainId": 1, "nonce": 0, "gas": 100000, "maxFeePerGas": "2 gwei", "maxPriorityFeePerGas": "1 gwei", "to": "0x09616C3d61b3331fc4109a9E41a8BDB7d9776609", "authorizationList": [a.authorization]} --dry-run).unsigned)
            """, name: "prepare.kcs")
        #expect(prepared.code == 0, "\(prepared.err)")
        let unsigned = String(try #require(tagged("U", in: prepared.out).first).dropFirst(2))
        _ = try request(try Hex.decode(unsigned), .typedTransaction, file: "setcode.png", in: home)
        let r = try home.run(
            """
            import mnemonic "\(Self.abandon)" --name hot
            use key hot-0
            let s = qr.sign "setcode.png" --yes
            print s.answer, s.ur
            """)
        #expect(r.code == 0, "\(r.err)")
        let a = answers(r.out)
        try #require(a.count == 1)
        #expect(try recovered("tx", unsigned, a[0].answer) == Self.signer)
    }

    @Test func requestsForAnotherKey_orUnconfirmed_signNothing() throws {
        var home = try BatchHome()
        defer { home.remove() }
        _ = try request(
            try Hex.decode(Self.legacy), .legacyTransaction, master: 0x1234_5678, file: "other.png", in: home)
        _ = try request(
            Array("x".utf8), .personalMessage, chain: nil, address: "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0",
            file: "address.png", in: home)
        _ = try request(try Hex.decode(Self.legacy), .legacyTransaction, chain: 5, file: "chain.png", in: home)
        _ = try request(try Hex.decode(Self.legacy), .legacyTransaction, file: "fine.png", in: home)
        let r = try home.run(
            """
            import mnemonic "\(Self.abandon)" --name hot
            use key hot-0
            try { qr.sign "other.png" --yes } catch e { print e.kind, e.message }
            try { qr.sign "address.png" --yes } catch e { print e.kind }
            try { qr.sign "chain.png" --yes } catch e { print e.kind }
            try { qr.sign "fine.png" } catch e { print e.kind }
            try { qr.read "fine.png" --yes } catch e { print e.kind }
            print (qr.read "fine.png").kind, len(history())
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(
            r.out == """
                airgap.otherMaster this request is for the key with master fingerprint 12345678, and the signing key's is 73c5da0a: nothing was signed
                airgap.otherAddress
                airgap.chainMismatch
                session.needsConfirmation
                call.unknownOption
                eth-sign-request 0

                """)
    }

    // MARK: - Hostile requests (docs/signing-review.md, "What is refused")

    /// An unsigned transaction's RLP, as a hostile wallet would build it: `prefix` (a type byte
    /// or none) and the items, each a quantity or bytes.
    static func rlp(_ type: UInt8?, _ items: [[UInt8]]) -> [UInt8] {
        (type.map { [$0] } ?? []) + RLP.encode(.list(items.map(RLPItem.bytes)))
    }

    /// The UR text of a request (a single part, as a QR code carries it).
    func ur(
        _ data: [UInt8], _ type: ETHSignRequest.DataType, chain: Int?, origin: String? = "metamask"
    ) throws -> String {
        let r = ETHSignRequest(
            requestID: Self.requestID, signData: data, dataType: type, chainID: chain,
            path: URKeypath(try DerivationPath("m/44'/60'/0'/0/0"), sourceFingerprint: 0x73C5_DA0A),
            address: nil, origin: origin)
        return try UniformResource(type: "eth-sign-request", cbor: r.cbor.encoded).singlePart.uppercased()
    }

    @Test func hostileRequests_areRefusedBeforeAnythingIsSigned_andNothingCrashes() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let to: [UInt8] = [UInt8](repeating: 0x35, count: 20)
        let gwei: [UInt8] = [0x3B, 0x9A, 0xCA, 0x00]
        // EIP-155's example without its chain trailer: a pre-EIP-155 transaction, valid on every chain.
        let preEIP155 = Self.rlp(
            nil,
            [[9], [0x04, 0xA8, 0x17, 0xC8, 0x00], [0x52, 0x08], to, [0x0D, 0xE0, 0xB6, 0xB3, 0xA7, 0x64, 0, 0], []])
        let cases: [(String, String)] = [
            // v = chainId·2 + 35 would overflow 64 bits (it crashed qr.sign after signing).
            ("huge-chain", try ur(try Hex.decode(Self.legacy), .legacyTransaction, chain: Int(Int64.max - 10))),
            ("negative-chain", try ur(try Hex.decode(Self.legacy), .legacyTransaction, chain: -1)),
            ("pre-eip155", try ur(preEIP155, .legacyTransaction, chain: nil)),
            // A "type-2 transaction" of 4 items: no gas, no recipient, no value.
            ("four-items", try ur(Self.rlp(2, [[1], [], gwei, gwei]), .typedTransaction, chain: 1)),
            // A legacy transaction whose EIP-155 chain is 2^64 + 1 (shown as chain 1 before).
            (
                "chain-2^64+1",
                try ur(
                    Self.rlp(nil, [[9], gwei, [0x52, 0x08], to, [1], [], [1, 0, 0, 0, 0, 0, 0, 0, 1], [], []]),
                    .legacyTransaction, chain: nil)
            ),
            // A tip above the fee cap.
            (
                "tip-above-cap",
                try ur(
                    EthereumTransaction(
                        type: .dynamicFee, chainID: UInt256(1), nonce: .zero,
                        maxPriorityFeePerGas: UInt256(2_000_000_000), maxFeePerGas: UInt256(1_000_000_000),
                        gasLimit: UInt256(21000), to: try EthereumAddress(bytes: to), value: UInt256(1)
                    ).signingPayload,
                    .typedTransaction, chain: 1)
            ),
            // Typed data for chain 137 in a request for chain 1.
            (
                "domain-chain",
                try ur(
                    Array(
                        #"{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],"M":[{"name":"a","type":"uint256"}]},"primaryType":"M","domain":{"chainId":137},"message":{"a":1}}"#
                            .utf8), .typedData, chain: 1)
            ),
            // A key named twice: one reader signs the first value, another the last.
            (
                "duplicate-key",
                try ur(
                    Array(
                        #"{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],"M":[{"name":"a","type":"uint256"}]},"primaryType":"M","domain":{"chainId":1},"message":{"a":1,"\u0061":2}}"#
                            .utf8), .typedData, chain: 1)
            ),
        ]
        for (name, text) in cases { try text.write(toFile: home.path(name + ".ur"), atomically: true, encoding: .utf8) }
        let r = try home.run(
            """
            import mnemonic "\(Self.abandon)" --name hot
            use key hot-0
            for name in [\(cases.map { "\"" + $0.0 + "\"" }.joined(separator: ", "))] {
              try { qr.sign (file.read "{name}.ur") --yes; print name, "SIGNED" } catch e { print name, e.kind, e.message }
            }
            print "H", len(history())
            let old = qr.sign (file.read "pre-eip155.ur") --yes --allow-no-chain-id
            print "OLD", old.answer
            print "H", len(history())
            """)
        #expect(r.code == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        func line(_ name: String) -> String { lines.first { $0.hasPrefix(name + " ") } ?? "(none)" }
        #expect(line("huge-chain").hasPrefix("huge-chain airgap.badChain"), "\(r.out)")
        #expect(line("negative-chain").hasPrefix("negative-chain airgap.badChain"), "\(r.out)")
        #expect(
            line("pre-eip155").hasPrefix("pre-eip155 airgap.noReplayProtection")
                && line("pre-eip155").contains("valid on every chain"))
        #expect(
            line("four-items").hasPrefix("four-items airgap.notATransaction")
                && line("four-items").contains("9 RLP fields, got 4"), "\(r.out)")
        #expect(
            line("chain-2^64+1").contains("airgap.notATransaction")
                && line("chain-2^64+1").contains("18446744073709551617"), "\(r.out)")
        #expect(
            line("tip-above-cap").contains("airgap.notATransaction")
                && line("tip-above-cap").contains("maxPriorityFeePerGas"), "\(r.out)")
        #expect(
            line("domain-chain").contains("airgap.chainMismatch") && line("domain-chain").contains("Polygon PoS (137)"),
            "\(r.out)")
        #expect(
            line("duplicate-key").contains("eth.typedData.malformed") && line("duplicate-key").contains("\"a\" again"),
            "\(r.out)")
        #expect(!r.out.contains("SIGNED"))
        #expect(
            tagged("H", in: r.out) == ["0", "1"], "only the pre-EIP-155 transaction, allowed on purpose, was signed")
        // Without a chain, v is 27 or 28 (as before EIP-155) and eth-account recovers the signer.
        let old = try #require(tagged("OLD", in: r.out).first)
        #expect([27, 28].contains(try Hex.decode(String(old.dropFirst(2))).last!))
        #expect(try recovered("tx", Hex.encode(preEIP155), String(old.dropFirst(2))) == Self.signer)
    }

    /// `sign tx` bounds the chain id (EIP-2294) and signs a transaction without one only when told.
    @Test func signTx_boundsTheChainID_andAsksBeforeAPreEIP155Signature() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            import mnemonic "\(Self.abandon)" --name hot
            use key hot-0
            for chain in ["0x10000000000000000", "0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", "9223372036854775772"] {
              try { sign tx {"chainId": chain, "to": "0x3535353535353535353535353535353535353535", "gas": 21000} --offline } catch e { print "BIG", e.kind, e.message }
            }
            print "MAX", (sign tx {"chainId": 9223372036854775771, "to": "0x3535353535353535353535353535353535353535", "gas": 21000} --offline).networkV
            try { sign tx {"to": "0x3535353535353535353535353535353535353535", "gas": 21000} --offline } catch e { print "NOCHAIN", e.kind }
            print "OLD", (sign tx {"to": "0x3535353535353535353535353535353535353535", "gas": 21000} --offline --allow-no-chain-id).networkV
            """)
        #expect(r.code == 0, "\(r.err)")
        let big = tagged("BIG", in: r.out)
        #expect(
            big.count == 3 && big.allSatisfy { $0.hasPrefix("eth.tx.badField") && $0.contains("EIP-2294") }, "\(r.out)")
        #expect(big.first?.contains("18446744073709551616") == true)
        // The largest chain id: v = 2·(2^63 − 37) + 35 + parity still fits in 64 bits.
        let maxV = try #require(tagged("MAX", in: r.out).first)
        let v = try #require(UInt64(maxV))
        #expect(v == 18_446_744_073_709_551_577 || v == 18_446_744_073_709_551_578)
        #expect(tagged("NOCHAIN", in: r.out) == ["eth.command.noChainID"])
        #expect(["27", "28"].contains(try #require(tagged("OLD", in: r.out).first)))
    }

    /// The `[y/N]` of `qr.sign` at a terminal: the review a person reads (docs/signing-review.md),
    /// with a request's escape sequences shown escaped, never acted on.
    @Test func terminal_qrSignShowsTheReview_andEscapesWhatTheRequestCarries() throws {
        let home = try BatchHome()
        defer { home.remove() }
        // An ERC-20 approve of the largest amount, at a 5,000 gwei fee cap, on mainnet.
        let approve = try Hex.decode(
            "095ea7b3" + "000000000000000000000000" + String(repeating: "35", count: 20)
                + String(repeating: "ff", count: 32))
        let tx = EthereumTransaction(
            type: .dynamicFee, chainID: UInt256(1), nonce: UInt256(7), maxPriorityFeePerGas: UInt256(2_000_000_000),
            maxFeePerGas: UInt256(5_000_000_000_000), gasLimit: UInt256(60_000),
            to: try EthereumAddress("0xdAC17F958D2ee523a2206206994597C13D831ec7"), value: .zero, data: approve)
        let hostileOrigin = "dapp\u{1B}]0;pwned\u{07}\u{1B}[2J\nto: 0x0000 \u{202E}evil"
        try ur(tx.signingPayload, .typedTransaction, chain: 1, origin: hostileOrigin).write(
            toFile: home.path("tx.ur"), atomically: true, encoding: .utf8)
        let mail = try Data(
            contentsOf: TestPaths.root.appendingPathComponent("Tests/TranscriptTests/Scripts/eth/mail.json"))
        try ur(Array(mail), .typedData, chain: 1).write(toFile: home.path("mail.ur"), atomically: true, encoding: .utf8)

        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        try t.answer("kcs> ", with: "import mnemonic \"\(Self.abandon)\" --name hot")
        try t.newVault("vault-pw-1")
        try t.answer("kcs> ", with: "use key hot-0")
        try t.answer("kcs[hot-0]> ", with: "qr.sign (file.read \"\(home.path("tx.ur"))\")")
        try t.answer("Sign it? [y/N] ", with: "n")
        try t.answer("kcs[hot-0]> ", with: "qr.sign (file.read \"\(home.path("mail.ur"))\")")
        try t.answer("Sign it? [y/N] ", with: "y")
        try t.answer("kcs[hot-0]> ", with: "print \"H\", len(history())")
        try t.answer("kcs[hot-0]> ", with: ".quit")
        let text = t.finish().text
        for shown in [
            "EIP-1559 transaction (type 2)", "Ethereum mainnet (1)", "value            0 ETH", "nonce            7",
            "gas limit        60,000", "max fee per gas  5,000 gwei", "priority fee     2 gwei",
            "worst-case fee   0.3 ETH (300,000,000,000,000,000 wei)", "approve(address,uint256), selector 0x095ea7b3",
            "! the fee is high", "! unlimited approval", "signing hash     0x" + Hex.encode(tx.signingHash),
            "signer           \(Self.signer) (hot-0)",
            "EIP-712 typed data", "primary type", "Mail",
            "verifyingContract  0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
            "\"Hello, Bob!\"", "EIP-712 Digest", "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2",
            "H 1",
        ] {
            #expect(text.contains(shown), "missing \(shown): \(text)")
        }
        // The origin's escapes are shown as text: no title set, no screen cleared, no reversed line.
        #expect(text.contains(#"dapp\e]0;pwned\u{7}\e[2J\nto: 0x0000 \u{202E}evil"#), "\(text)")
        #expect(!text.contains("\u{1B}]0;") && !text.contains("\u{202E}") && !text.contains("\u{1B}[2J"))
        #expect(text.contains("session.cancelled") || text.contains("cancelled"), "\(text)")
    }
}
