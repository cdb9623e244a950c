// EIP-7702 authorizations and set-code transactions, and EIP-4844 blob transactions
// (docs/eth-signing.md), against published vectors — eth-account's docstring and test cases
// (ethereum/eth-account: eth_account/account.py, tests/core/test_typed_transactions.py, cases
// `sc-one-auth` and `blob-no-access-list`), EEST's double-authorization transaction
// (tests/prague/eip7702_set_code_tx/test_set_code_txs_2.py::test_double_auth) — and against
// eth-account 0.14 itself (the project's EVM venv) on random keys, chains and nonces.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private func hex(_ b: [UInt8]) -> String { "0x" + Hex.encode(b) }
private func address(_ s: String) -> EthereumAddress { try! EthereumAddress(s) }
private let keyA = try! PrivateKey(bytes: [UInt8](repeating: 0xAA, count: 32))

/// eth-account's sponsored type-4 transaction (`sc-one-auth`).
private let scOneAuth =
    "04f901188501a58877101284ee6b27f984ee6b2807830186a094e3f1413e071332840db2735f809cf3240c4a425580b844a9059cbb"
    + "0000000000000000000000003d3dc402103535134968adf08fab95b1012c1cb500000000000000000000000000000000000000000000"
    + "0000000000000000029ac0f861f85f8501a5887710943e6c95d880401e4e36ee62f4ebded346e1adf42d0201a031f464e6a607fc66e0"
    + "f982a2d21498799b0571760a272f3d903aca6594cef595a0343b0b143924a5db42a3200ae72d5c6dd03633847bc2da025cff5214e287"
    + "08ec01a0a9c1555a0d706755bbdb7537c80f4e6a06ba0719ec03174190ccc934207c805da012ad4e24ae01171ee8a64b18ab772c8814"
    + "1e490498bde39d12e773f422f389c8"

/// EEST's double authorization (two tuples of one authority, chain id 0; tuple 2's yParity is 0x80).
private let doubleAuth =
    "04f9011d0180800783030d409400000000000000000000000000000000000012008080c0f8b8f85a8094000000000000000000000000"
    + "00000000000011008001a0ac427f776ac7ad34aafce7f63eceb1cde3eface529edeac41327496a0cdead7ea07571612216f35c4666ff"
    + "4101d5ccf93fff270ced7d93664c4d7e8f5048a80198f85a809400000000000000000000000000000000000010000180a07b91d27c44"
    + "1ad90c7e4f127433b8fb33c04c78284b1b67b6603df12a1364e265a064780c93a04fbeb27eb3f98dcfae6af75a827471b398f86b82e5"
    + "98baa3f4966f80a03074805d7025deb8803f8687fbb60b5cc346804fffe0ea58a3efe0ed126c14d4a06b3367eee5089bc00db6631a5f"
    + "1f9ed25a5a526d240d1aba845e0411a134f97e"

/// eth-account's canonical blob transaction (`blob-no-access-list`).
private let blobNoAccessList =
    "03f89c8205390284773594008477359400830186a09496216849c49358b10257cb55b28ea603c874b05e865af3107a4000825544c0"
    + "8477359400e1a001a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d801a0be1552b754ad4aeb9fef74bbe1"
    + "adc9384e2e78f873480e510b932847cdae9a58a03a4cfa2158d6a9d4d54ff42eedbedfdad0573366cb757209179107b15b1a1eeb"

@Suite("EIP-7702 authorizations and set-code transactions, EIP-4844 blob transactions")
struct EIP7702Tests {
    @Test("vector A: eth-account's docstring authorization, preimage, digest and signature")
    func authorizationVectorA() throws {
        let auth = EIP7702Authorization(
            chainID: UInt256(1337), delegate: address("0x5ce9454909639D2D17A3F753ce7d93fa0b9aB12E"), nonce: 1)
        #expect(hex(auth.preimage) == "0x05d9820539945ce9454909639d2d17a3f753ce7d93fa0b9ab12e01")
        #expect(hex(auth.digest) == "0x9026f77ed6740d6d08f0cdc0591a86b2232700020a816718fbf760785e9ca2f2")
        let sig = try EthereumSignature.sign(digest: auth.digest, with: keyA)
        let signed = auth.signed(with: sig.signature, yParity: sig.recoveryID)
        #expect(signed.yParity == 0)
        #expect(hex(sig.signature.r) == "0x735375048fc96b87390b5a11c411fc57245d8e55038bf49e659d048a0d1a3f87")
        #expect(hex(sig.signature.s) == "0x7f4b3db448845cb217812f23c6b345e99f2d21c44ec10e93a8f0398141674171")
        #expect(try signed.authority().checksummed == "0x8fd379246834eac74B8419FfdA202CF8051F7A03")
        #expect(try EIP7702Authorization.decodePreimage(auth.preimage) == auth)
    }

    @Test("vector B: chain id 0 and revocation tuples; the self-sponsored type-4 transaction byte for byte")
    func authorizationVectorB() throws {
        let delegate = address("0x5ce9454909639D2D17A3F753ce7d93fa0b9aB12E")
        let any = EIP7702Authorization(chainID: .zero, delegate: delegate, nonce: 0)
        #expect(hex(any.preimage) == "0x05d780945ce9454909639d2d17a3f753ce7d93fa0b9ab12e80")
        #expect(hex(any.digest) == "0xdc45477aefc34717d6825423cb2cbd90afa792da0d0ab4a9484b1b362f5854bf")
        let anySig = try EthereumSignature.sign(digest: any.digest, with: keyA)
        #expect(anySig.recoveryID == 1)
        #expect(hex(anySig.signature.r) == "0xef672935d873fb905418f29e5cc16261712a207994ec8bac0bda512f8cf5229c")
        #expect(any.isAnyChain && !any.isRevocation)
        let revoke = EIP7702Authorization(
            chainID: UInt256(1), delegate: address("0x" + String(repeating: "0", count: 40)), nonce: 5)
        #expect(hex(revoke.preimage) == "0x05d70194000000000000000000000000000000000000000005")
        #expect(hex(revoke.digest) == "0xe629e81fda439064a905f77d6faa9464b83ee243fc081dd2a6da7104dfea28d0")
        let revSig = try EthereumSignature.sign(digest: revoke.digest, with: keyA)
        #expect(hex(revSig.signature.s) == "0x2f61b5ea40659f4ee3cb17f2bb0589879856c91fc69803de0399f362bdeb2c0f")
        #expect(revoke.isRevocation)

        let a = EIP7702Authorization(chainID: UInt256(1337), delegate: delegate, nonce: 1)
        let sig = try EthereumSignature.sign(digest: a.digest, with: keyA)
        var tx = try EthereumTransaction(fields: [
            "type": 2, "chainId": 1337, "nonce": 0, "gas": 100_000, "maxFeePerGas": "2 gwei",
            "maxPriorityFeePerGas": "2 gwei", "to": "0x09616C3d61b3331fc4109a9E41a8BDB7d9776609", "data": "0x252dba42",
        ])
        tx.type = .setCode
        tx.authorizationList = [a.signed(with: sig.signature, yParity: sig.recoveryID)]
        let stx = try tx.sign(with: keyA)
        #expect(
            Hex.encode(stx.rawBytes)
                == "04f8d18205398084773594008477359400830186a09409616c3d61b3331fc4109a9e41a8bdb7d97766098084252dba42c0"
                + "f85ef85c820539945ce9454909639d2d17a3f753ce7d93fa0b9ab12e0180a0735375048fc96b87390b5a11c411fc57245d"
                + "8e55038bf49e659d048a0d1a3f87a07f4b3db448845cb217812f23c6b345e99f2d21c44ec10e93a8f039814167417180a0"
                + "03df7bf9b159102517af620ce9628e6e410fb4e344401fbc751d1a08ecdf1421a0211891d57b39127b3543100711f0b414"
                + "e2859e14725b7dfcafe954b17ce8762a")
        #expect(hex(tx.signingHash) == "0xaff5dd5b3a1de0d8e5fe43108ff4ff0f8a25893ca3db7bb5e9e373a04c4b0442")
        #expect(hex(stx.hash) == "0x321abac3cb4003a30931c595977b2a189cf86c9c4bf1d8f88b134c68c9ea6d25")
        // The unsigned payload (what a co-signer or an air-gapped signer is sent) reads back.
        #expect(try EthereumTransaction.decodeUnsigned(tx.signingPayload) == tx)
    }

    @Test("vector C: eth-account's sponsored transaction decodes; sender and authority differ")
    func sponsoredVectorC() throws {
        let stx = try SignedEthereumTransaction.decode(hex: scOneAuth)
        #expect(stx.transaction.type == .setCode)
        #expect(
            hex(stx.transaction.signingHash) == "0xc3b8fd19170b73ab1981db5be074eb6b920cae2c58fc222d73041ebcdc6ce99b")
        #expect(hex(stx.hash) == "0x6c1917cc06e450a73c4238560aa5b06f07adda670f2bd2afdce03413d8bc4bc9")
        #expect(try stx.sender().checksummed == "0x88D65F27e269b4f92CE2Ccf124eAE8648635a67A")
        let tuple = try #require(stx.transaction.authorizationList.first)
        #expect(tuple.authorization.chainID == UInt256(7_072_151_312))
        #expect(tuple.authorization.nonce == 2 && tuple.yParity == 1)
        #expect(hex(tuple.authorization.digest) == "0x7ac74f97aa5289f09e464b6d28c017a2ad5b52b6b8fdf449892167c5a9a13888")
        #expect(try tuple.authority().checksummed == "0xe3f1413e071332840dB2735F809Cf3240C4a4255")
        #expect(Hex.encode(stx.rawBytes) == scOneAuth)
    }

    @Test("vector D: EEST's two tuples of one authority, chain id 0, yParity 0 as the empty string")
    func doubleAuthVectorD() throws {
        let stx = try SignedEthereumTransaction.decode(hex: doubleAuth)
        #expect(
            hex(stx.transaction.signingHash) == "0x8a18f7a8f47670098b55d580258f8231fe057dba47f980c1b7320298a9bfc487")
        #expect(try stx.sender().checksummed == "0xa94f5374Fce5edBC8E2a8697C15331677e6EbF0B")
        let list = stx.transaction.authorizationList
        #expect(list.map(\.authorization.nonce) == [0, 1])
        #expect(list.map(\.yParity) == [1, 0])
        #expect(list.allSatisfy { $0.authorization.isAnyChain })
        #expect(
            try list.map { try $0.authority().checksummed }
                == Array(repeating: "0x8a0A19589531694250d570040a0c4B74576919B8", count: 2))
        #expect(Hex.encode(stx.rawBytes) == doubleAuth)
    }

    @Test("refused: type 4 without to, an empty list, yParity 27, a non-minimal nonce, a tuple of 5 fields")
    func badSetCodeTransactions() throws {
        let fields: [String: Any] = [
            "type": 4, "chainId": 1, "gas": 100_000, "maxFeePerGas": 1, "maxPriorityFeePerGas": 1,
            "to": "0x09616C3d61b3331fc4109a9E41a8BDB7d9776609",
            "authorizationList": [
                [
                    "chainId": 1, "address": "0x5ce9454909639D2D17A3F753ce7d93fa0b9aB12E", "nonce": 1, "yParity": 0,
                    "r": "0x735375048fc96b87390b5a11c411fc57245d8e55038bf49e659d048a0d1a3f87",
                    "s": "0x7f4b3db448845cb217812f23c6b345e99f2d21c44ec10e93a8f0398141674171",
                ]
            ],
        ]
        #expect(throws: Never.self) { try EthereumTransaction(fields: fields).validate() }
        var noTo = fields
        noTo["to"] = nil
        #expect(
            throws: EthereumError.txBadField(
                field: "to", reason: "is required: a type-4 (EIP-7702) transaction cannot create a contract")
        ) {
            try EthereumTransaction(fields: noTo).validate()
        }
        var empty = fields
        empty["authorizationList"] = [Any]()
        #expect(
            throws: EthereumError.txBadField(
                field: "authorizationList", reason: "must hold at least one authorization (EIP-7702)")
        ) {
            try EthereumTransaction(fields: empty).validate()
        }
        var y27 = fields
        var tuple = (fields["authorizationList"] as! [[String: Any]])[0]
        tuple["yParity"] = 27
        y27["authorizationList"] = [tuple]
        #expect(
            throws: EthereumError.txBadField(
                field: "authorizationList[0].yParity", reason: "must be 0 or 1 (not 27/28), got 27")
        ) {
            try EthereumTransaction(fields: y27)
        }
        // Decoding: tuple 1's nonce 0x00 instead of 0x80 (a leading zero), and a tuple cut to 5 fields.
        let raw = try Hex.decode(doubleAuth)
        var nonMinimal = raw
        let at = try #require(Hex.encode(raw).range(of: "f85a80940000000000000000000000000000000000001100"))
        let offset = Hex.encode(raw).distance(from: Hex.encode(raw).startIndex, to: at.upperBound) / 2
        nonMinimal[offset] = 0x00  // nonce 0x80 → 0x00: a single byte 0 must be written 0x80
        #expect(throws: EthereumError.self) { try SignedEthereumTransaction.decode(nonMinimal) }
        var items = try RLP.decode(Array(raw.dropFirst())).asList()
        guard case .list(let tuples) = items[9], case .list(let first) = tuples[0] else { throw Unexpected() }
        items[9] = .list([.list(Array(first.prefix(5)))])
        #expect(
            throws: EthereumError.authBadField(
                field: "authorizationList[0]",
                reason: "must hold 6 fields [chainId, address, nonce, yParity, r, s], got 5")
        ) {
            try SignedEthereumTransaction.decode([0x04] + RLP.encode(.list(items)))
        }
    }

    @Test("blob vector A: eth-account's canonical type 3, its signing hash, hash and sender")
    func blobVectorA() throws {
        let stx = try SignedEthereumTransaction.decode(hex: blobNoAccessList)
        let tx = stx.transaction
        #expect(tx.type == .blob)
        #expect(tx.maxFeePerBlobGas == UInt256(2_000_000_000))
        #expect(
            tx.blobVersionedHashes.map(hex) == ["0x01a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8"])
        #expect(hex(tx.signingHash) == "0xdc5c66152fa69fc4f43aa0712104e9a9c9559dcc40d66d3fe3bed84daf8305b8")
        #expect(hex(stx.hash) == "0xde0075d34e41aed1778ef8b709a8d93024db46be223466c2de474adec4bf8e89")
        #expect(try stx.sender().checksummed == "0x36BA82d748250E410326d306652BBF58e0E296c7")
        #expect(Hex.encode(stx.rawBytes) == blobNoAccessList)
    }

    @Test(
        "blob vector B: the zero blob's versioned hash; kcs signs the canonical form; both network forms give the body")
    func blobVectorB() throws {
        let commitment = [0xC0] + [UInt8](repeating: 0, count: 47)
        let versioned = BlobSidecar.versionedHash(commitment)
        #expect(hex(versioned) == "0x010657f37554c781402a22917dee2f75def7ab966d7b770905398eba3c444014")
        let key = try PrivateKey(bytes: Array(try Hex.decode(String(repeating: "756e69636f726e73", count: 4))))
        let tx = try EthereumTransaction(fields: [
            "chainId": 1337, "nonce": 0, "maxFeePerGas": "1 gwei", "maxPriorityFeePerGas": "1 gwei", "gas": 21000,
            "to": "0x45Ae5777c9b35Eb16280e423b0d7c91C06C66B58", "value": 0, "maxFeePerBlobGas": "1 gwei",
            "blobVersionedHashes": [hex(versioned)],
        ])
        #expect(tx.type == .blob)
        let stx = try tx.sign(with: key)
        #expect(
            Hex.encode(stx.rawBytes)
                == "03f89382053980843b9aca00843b9aca008252089445ae5777c9b35eb16280e423b0d7c91c06c66b588080c0843b9aca00e1a0"
                + "010657f37554c781402a22917dee2f75def7ab966d7b770905398eba3c44401480a084a45527941e9f18d1438679ed41da56daa73e0"
                + "9801cd7c5500a1de6f1cc2f3aa0508da77f04b56fc0c4c2904d78f89a035f51520fcc041ef7149aaef174854e5d")
        #expect(hex(stx.hash) == "0x038d766bcfc614387438bf5af2ba53444405e836470f3f4285eb7404177917b8")
        #expect(try stx.sender().checksummed == "0xa79F6f349C853F9Ea0B29636779ae3Cb4E3BA729")

        // The two network forms: [body, blobs, commitments, proofs] and [body, 1, blobs, commitments, cell_proofs].
        guard case .list(let body) = try RLP.decode(Array(stx.rawBytes.dropFirst())) else { throw Unexpected() }
        let blob = RLPItem.bytes([UInt8](repeating: 0, count: BlobSidecar.blobSize))
        let proof = RLPItem.bytes(commitment)
        let v0 = [0x03] + RLP.encode(.list([.list(body), .list([blob]), .list([.bytes(commitment)]), .list([proof])]))
        let v1 =
            [0x03]
            + RLP.encode(
                .list([
                    .list(body), .bytes([1]), .list([blob]), .list([.bytes(commitment)]),
                    .list(Array(repeating: proof, count: 128)),
                ]))
        for (raw, version) in [(v0, 0), (v1, 1)] {
            let (decoded, sidecar) = try SignedEthereumTransaction.decodeNetwork(raw)
            #expect(hex(decoded.hash) == "0x038d766bcfc614387438bf5af2ba53444405e836470f3f4285eb7404177917b8")
            #expect(sidecar?.version == version && sidecar?.blobs == 1)
        }
        #expect(throws: EthereumError.self) { try SignedEthereumTransaction.decode(v0) }
        // A commitment that is not the versioned hash's, and a proof missing, are refused.
        let wrong =
            [0x03]
            + RLP.encode(
                .list([.list(body), .list([blob]), .list([.bytes([0xC1] + commitment.dropFirst())]), .list([proof])]))
        #expect(
            throws: EthereumError.txBadField(
                field: "commitments[0]",
                reason: "does not hash to blobVersionedHashes[0] (0x01 ‖ sha256(commitment)[1:])")
        ) {
            try SignedEthereumTransaction.decodeNetwork(wrong)
        }
        let short =
            [0x03]
            + RLP.encode(.list([.list(body), .bytes([1]), .list([blob]), .list([.bytes(commitment)]), .list([proof])]))
        #expect(throws: EthereumError.txBadField(field: "sidecar", reason: "must hold 128 proofs, got 1")) {
            try SignedEthereumTransaction.decodeNetwork(short)
        }
    }

    @Test("eth-account 0.14 agrees: 24 authorizations and type-4 transactions on random keys, chains and nonces")
    func againstEthAccount() throws {
        let random = SeededRandom(seed: 7702)
        var lines: [String] = []
        var mine: [String] = []
        for i in 0..<24 {
            let secret = random.bytes(32)
            let key = try PrivateKey(bytes: secret)
            let chain = [0, 1, 1337, 7_072_151_312, 131_277_322_940_537][i % 5]
            let nonce = UInt64(random.bytes(1)[0]) * UInt64(i + 1)
            let delegate = try EthereumAddress(bytes: random.bytes(20))
            let auth = EIP7702Authorization(chainID: UInt256(UInt64(chain)), delegate: delegate, nonce: nonce)
            let sig = try EthereumSignature.sign(digest: auth.digest, with: key)
            let signed = auth.signed(with: sig.signature, yParity: sig.recoveryID)
            var tx = EthereumTransaction(
                type: .setCode, chainID: UInt256(UInt64(max(chain, 1))), nonce: UInt256(nonce &- 1),
                maxPriorityFeePerGas: UInt256(UInt64(i) * 1_000_000_000),
                maxFeePerGas: UInt256(UInt64(i + 1) * 2_000_000_000),
                gasLimit: UInt256(100_000), to: delegate, value: UInt256(UInt64(i)), data: random.bytes(i % 7))
            tx.authorizationList = [signed]
            let stx = try tx.sign(with: key)
            lines.append(
                "\(Hex.encode(secret)) \(chain) \(delegate.checksummed) \(nonce) \(Hex.encode(stx.rawBytes))")
            mine.append(
                "\(hex(auth.digest)) \(sig.recoveryID) \(hex(sig.signature.r)) \(hex(sig.signature.s)) \(hex(tx.signingHash)) \(try stx.sender().checksummed)"
            )
        }
        let script = """
            import sys
            from eth_account import Account
            from eth_account.typed_transactions import TypedTransaction
            from hexbytes import HexBytes
            for line in sys.stdin.read().splitlines():
                key, chain, delegate, nonce, raw = line.split()
                a = Account.sign_authorization({"chainId": int(chain), "address": delegate, "nonce": int(nonce)}, bytes.fromhex(key))
                t = TypedTransaction.from_bytes(HexBytes(raw))
                tup = t.as_dict()["authorizationList"][0]
                assert (tup["yParity"], tup["r"], tup["s"]) == (a.y_parity, a.r, a.s), "tuple in raw differs"
                print("0x" + a.authorization_hash.hex(), a.y_parity, "0x%064x" % a.r, "0x%064x" % a.s,
                      "0x" + t.hash().hex(), Account.recover_transaction(raw))
            """
        let answer = try runPython(script, input: lines.joined(separator: "\n") + "\n")
        #expect(answer.split(separator: "\n").map(String.init) == mine)
    }
}

private struct Unexpected: Error {}

/// Runs `script` with `python` (the project's EVM venv's), `input` on its standard input; its output.
func runPython(_ script: String, input: String, python: String = EVMNode.python) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: python)
    p.arguments = ["-c", script]
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    p.standardInput = stdin
    p.standardOutput = stdout
    p.standardError = stderr
    try p.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    stdin.fileHandleForWriting.closeFile()
    let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    #expect(p.terminationStatus == 0, "\(err)")
    return out
}

@Suite("The review of set-code and blob transactions")
struct NewTransactionReviewTests {
    @Test(
        "type 4: each authorization with its delegate, chain, nonce and authority; an unknown delegate and a foreign chain flagged"
    )
    func setCodeReview() throws {
        let stx = try SignedEthereumTransaction.decode(hex: scOneAuth)
        let review = SigningReview.transaction(stx.transaction)
        #expect(review.title == "EIP-7702 set-code transaction (type 4)")
        #expect(
            review.lines.contains {
                $0.label == "#1 delegate" && $0.value == "0x3e6C95D880401e4E36Ee62f4eBDed346e1aDf42d"
            })
        #expect(
            review.lines.contains {
                $0.label == "authority" && $0.value == "0xe3f1413e071332840dB2735F809Cf3240C4a4255"
            })
        #expect(
            review.warnings.contains {
                $0.hasPrefix(
                    "authorization #1 delegates to 0x3e6C95D880401e4E36Ee62f4eBDed346e1aDf42d, not on the allowlist")
            })
        var foreign = stx.transaction
        foreign.chainID = UInt256(1)
        #expect(
            SigningReview.transaction(foreign).warnings.contains {
                $0 == "authorization #1 is for chain 7072151312, not this transaction's: it will be skipped"
            })
        // On the allowlist (the person's own entry for that chain): named, not flagged.
        var list = DelegateList.shipped
        try list.add(
            json: Array(
                #"[{"chainId": 7072151312, "address": "0x3e6c95d880401e4e36ee62f4ebded346e1adf42d", "name": "test"}]"#
                    .utf8),
            file: "delegates.json")
        let named = SigningReview.transaction(stx.transaction, delegates: list)
        #expect(named.lines.contains { $0.label == "#1 delegate" && $0.value.hasSuffix("(test)") })
        #expect(!named.warnings.contains { $0.contains("not on the allowlist") })
    }

    @Test("type 3: blob count, each versioned hash, the blob fee cap and the worst-case blob fee")
    func blobReview() throws {
        let stx = try SignedEthereumTransaction.decode(hex: blobNoAccessList)
        let review = SigningReview.transaction(stx.transaction)
        #expect(review.title == "EIP-4844 blob transaction (type 3)")
        #expect(
            review.lines.contains { $0.label == "blobs" && $0.value.hasPrefix("1 (signed by their versioned hashes") })
        #expect(
            review.lines.contains {
                $0.label == "#1" && $0.value == "0x01a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8"
            })
        #expect(review.lines.contains { $0.label == "max fee per blob gas" && $0.value == "2 gwei" })
        // 1 blob × 2^17 blob gas × 2 gwei = 262,144 gwei.
        #expect(
            review.lines.contains {
                $0.label == "worst-case blob fee" && $0.value == "0.000262144 ETH (262,144,000,000,000 wei)"
            })
    }
}
