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
    static let requestID: [UInt8] = [0x9B, 0x1D, 0xEB, 0x4D, 0x3B, 0x7D, 0x4B, 0xAD, 0x9B, 0xDD, 0x2B, 0x0D, 0x7B, 0x3D, 0xCB, 0x6D]

    /// An eth-sign-request for "abandon … about" at m/44'/60'/0'/0/0 (master 73c5da0a) as a PNG.
    func request(_ data: [UInt8], _ type: ETHSignRequest.DataType, chain: Int? = 1, master: UInt32 = 0x73C5_DA0A,
                 address: String? = nil, file: String, in home: BatchHome) throws -> String {
        let r = ETHSignRequest(requestID: Self.requestID, signData: data, dataType: type, chainID: chain,
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
        _ = try request(Array("hello kcs".utf8), .personalMessage, chain: nil, address: Self.signer, file: "message.png", in: home)
        let r = try home.run("""
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
        let json = try Data(contentsOf: TestPaths.root.appendingPathComponent("Tests/TranscriptTests/Scripts/eth/mail.json"))
        _ = try request(Array(json), .typedData, chain: 1, file: "typed.png", in: home)
        let r = try home.run("""
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
        let r = try home.run("""
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

    @Test func requestsForAnotherKey_orUnconfirmed_signNothing() throws {
        var home = try BatchHome()
        defer { home.remove() }
        _ = try request(try Hex.decode(Self.legacy), .legacyTransaction, master: 0x1234_5678, file: "other.png", in: home)
        _ = try request(Array("x".utf8), .personalMessage, chain: nil, address: "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0",
                        file: "address.png", in: home)
        _ = try request(try Hex.decode(Self.legacy), .legacyTransaction, chain: 5, file: "chain.png", in: home)
        _ = try request(try Hex.decode(Self.legacy), .legacyTransaction, file: "fine.png", in: home)
        let r = try home.run("""
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
        #expect(r.out == """
            airgap.otherMaster this request is for the key with master fingerprint 12345678, and the signing key's is 73c5da0a: nothing was signed
            airgap.otherAddress
            airgap.chainMismatch
            session.needsConfirmation
            call.unknownOption
            eth-sign-request 0

            """)
    }
}
