// Issue 7 §1 and §3 through the real kcs binary in batch mode: EIP-191 personal_sign,
// EIP-712 typed data, transactions signed and decoded, verify and recover, and bad input
// named precisely. Values come from ../shared/vectors/eth-tx.json (eth-account, EIP-712
// Mail example); software signatures are RFC 6979 deterministic, so they are compared exactly.
import Foundation
import Testing

/// keccak256("cow"): the key of the EIP-712 Mail example; address 0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826.
let cowPrivateKey = "0xc85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4"

/// The EIP-712 Mail example document (EIPS/eip-712.md).
let mailTypedData = """
    {"types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
      {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}],
     "Person": [{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}],
     "Mail": [{"name": "from", "type": "Person"}, {"name": "to", "type": "Person"}, {"name": "contents", "type": "string"}]},
     "primaryType": "Mail",
     "domain": {"name": "Ether Mail", "version": "1", "chainId": 1, "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
     "message": {"from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
                 "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"}, "contents": "Hello, Bob!"}}
    """

/// eth-account's personal_sign of "Some data" with `testPrivateKey` (eth-tx.json, eip191_personal_sign).
let someDataSignature = "0xb91467e570a6466aa9e9876cbcd013baba02900b8979d43fe208a4a4f339f5fd6007e74cd82e037b800186422fc2da167c747ef045e5d18a5f5d4300f8e1a0291c"
/// The same signature with s' = n − s and v flipped: the high-S twin (valid for ecrecover, refused by EIP-2).
let someDataHighS = "0xb91467e570a6466aa9e9876cbcd013baba02900b8979d43fe208a4a4f339f5fd9ff818b327d1fc847ffe79bdd03d25e83e3a5df66962ceb160751b8bd754a1181b"

@Suite("Ethereum signing commands in batch runs")
struct EthSigningTests {
    @Test func signMessage_someData_matchesEthAccountVectorAndIsInHistory() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run("""
            import privkey \(testPrivateKey) --name raw
            use key raw
            let d = sign message "Some data" --dry-run
            print "P", hex(d.prefix)
            print "D", hex(d.digest)
            let s = sign message "Some data"
            print "S", hex(s.signature), s.v, s.signer
            let sig = s.signature
            print "R", (recover $sig --message "Some data")
            let h = history --kind message
            print "H", len(h), h[0].kind, hex(h[0].digest), h[0].verified
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("P", in: r.out) == ["0x19457468657265756d205369676e6564204d6573736167653a0a39"])
        #expect(tagged("D", in: r.out) == ["0x1da44b586eb0729ff70a73c326926f6ed5a25f5b056e7f47fbc6e58d86871655"])
        #expect(tagged("S", in: r.out) == ["\(someDataSignature) 28 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"])
        #expect(tagged("R", in: r.out) == ["0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"])
        #expect(tagged("H", in: r.out) == ["1 message 0x1da44b586eb0729ff70a73c326926f6ed5a25f5b056e7f47fbc6e58d86871655 true"])
    }

    @Test func signTyped_mailExample_everyIntermediateValueAndSignature() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let file = try home.write(mailTypedData, to: "mail.json")
        let r = try home.run("""
            import privkey \(cowPrivateKey) --name cow
            let t = sign typed "\(file)" --key cow
            print "T", hex(t.domainSeparator), hex(t.structHash), hex(t.digest), t.chainId
            print "S", hex(t.signature), t.signer
            let tsig = t.signature
            print "V", (verify $tsig --typed "\(file)" --address 0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826).valid
            let h = history --kind typed
            print "H", len(h), h[0].chainId
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("T", in: r.out) == ["0xf2cee375fa42b42143804025fc449deafd50cc031ca257e0b194a650a912090f "
            + "0xc52c0ee5d84264471806290a3f2c4cecfc5490626bf912d01f240d7a274b371e "
            + "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2 1"])
        #expect(tagged("S", in: r.out) == ["0x4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d"
            + "07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b915621c 0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"])
        #expect(tagged("V", in: r.out) == ["true"])
        #expect(tagged("H", in: r.out) == ["1 1"])
    }

    @Test func signTx_eip1559_matchesEthAccountRawAndDecodesToTheSigner() throws {
        let home = try BatchHome()
        defer { home.remove() }
        // eth-tx.json eth_account_eip1559_signed "eip1559_hex_fields".
        let r = try home.run("""
            import privkey 0x70af7ec25374c2b06cbfffeaf9817a3d1bc61854abbf39e9e00de734b0c0c8c4 --name k
            let fields = {"gas": "0x186a0", "maxFeePerGas": "0x77359400", "maxPriorityFeePerGas": "2 gwei", "data": "0x5544", "nonce": 2, "to": "0x96216849c49358B10257cb55b28eA603c874b05E", "value": "0x5af3107a4000", "type": 2, "chainId": 1337}
            let s = sign tx $fields --key k
            print "RAW", hex(s.raw)
            print "Y", s.yParity, s.signer
            let raw = s.raw
            let d = tx.decode $raw
            print "D", d.type, d.chainId, d.nonce, d.value, d.gas, d.to, d.sender
            print "HASH", hex(d.hash) == hex(s.hash)
            let h = history --kind transaction
            print "H", len(h), h[0].chainId, hex(h[0].digest) == hex(s.signingHash)
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("RAW", in: r.out) == ["0x02f8758205390284773594008477359400830186a09496216849c49358b10257cb55b28ea603c874b05e865af3107a4000825544c001a008badd022b23e5bb51a13a18c99185dbd24aac054f876a3cf89a61672e998b89a01d14fb34a688d516f6444fdb6ceca7778be786cc70d3fa29714b6f232f09a83a"])
        // The key's address, computed by eth-keys (py-evm's key library) from the vector's private key.
        let signer = "0x1C34025bd3Ce0224448cA8ec1a061BFDA495F392"
        #expect(tagged("Y", in: r.out) == ["1 \(signer)"])
        #expect(tagged("D", in: r.out) == ["EIP-1559 1337 2 100000000000000 100000 0x96216849c49358B10257cb55b28eA603c874b05E \(signer)"])
        #expect(tagged("HASH", in: r.out) == ["true"])
        #expect(tagged("H", in: r.out) == ["1 1337 true"])
    }

    @Test func signTx_eip155Legacy_withUnits_matchesTheEIPExample() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run("""
            import privkey 0x4646464646464646464646464646464646464646464646464646464646464646 --name k
            let s = sign tx {"nonce": 9, "gasPrice": "20 gwei", "gas": 21000, "to": "0x3535353535353535353535353535353535353535", "value": "1 ether", "chainId": 1} --key k
            print "U", hex(s.unsigned)
            print "H", hex(s.signingHash), s.networkV, s.v, s.yParity
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("U", in: r.out) == ["0xec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080"])
        #expect(tagged("H", in: r.out) == ["0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53 37 27 0"])
    }

    @Test func verify_highS_rejectedUnlessAllowed_andWrongAddressIsFalse() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run("""
            let a = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
            print "LOW", (verify \(someDataSignature) --message "Some data" --address $a).valid
            try { verify \(someDataHighS) --message "Some data" --address $a } catch e { print "HIGH", e.kind }
            let v = verify \(someDataHighS) --message "Some data" --address $a --allow-high-s
            print "ALLOW", v.valid, v.lowS
            print "OTHER", (verify \(someDataSignature) --message "Other data" --address $a).valid
            print "DIGEST", (verify 0x1da44b586eb0729ff70a73c326926f6ed5a25f5b056e7f47fbc6e58d86871655 \(someDataSignature) --address $a).valid
            try { verify \(someDataSignature) --message "x" } catch e { print "NOSIGNER", e.kind }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("LOW", in: r.out) == ["true"])
        #expect(tagged("HIGH", in: r.out) == ["eth.signature.highS"])
        #expect(tagged("ALLOW", in: r.out) == ["true false"])
        #expect(tagged("OTHER", in: r.out) == ["false"])
        #expect(tagged("DIGEST", in: r.out) == ["true"])
        #expect(tagged("NOSIGNER", in: r.out) == ["eth.command.needsSigner"])
    }

    @Test func badInput_eachNamedPrecisely() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let unknown = try home.write(mailTypedData.replacingOccurrences(of: "\"type\": \"Person\"}, {\"name\": \"to\"",
                                                                        with: "\"type\": \"Persn\"}, {\"name\": \"to\""),
                                     to: "unknown.json")
        let r = try home.run("""
            import privkey \(testPrivateKey) --name raw
            use key raw
            let cases = [
              ["fees", {"chainId": 1, "gasPrice": "1 gwei", "maxFeePerGas": "2 gwei", "to": "0x3535353535353535353535353535353535353535"}],
              ["chain0", {"type": 2, "chainId": 0, "maxFeePerGas": "2 gwei", "to": "0x3535353535353535353535353535353535353535"}],
              ["negative", {"chainId": 1, "value": -1}],
              ["big", {"chainId": 1, "value": "0x10000000000000000000000000000000000000000000000000000000000000000"}],
              ["unit", {"chainId": 1, "value": "1 etherz"}],
            ]
            for c in cases {
              let f = c[1]
              try { sign tx $f --dry-run } catch e { print "E", c[0], e.kind }
            }
            try { tx.decode "0x02c0" } catch e { print "E", "decode", e.kind }
            try { tx.decode "0xf86" } catch e { print "E", "oddhex", e.kind }
            try { recover 0x1234 \(someDataSignature) } catch e { print "E", "digest", e.kind }
            try { recover 0x1da44b586eb0729ff70a73c326926f6ed5a25f5b056e7f47fbc6e58d86871655 0x1234 } catch e { print "E", "siglen", e.kind }
            try { sign typed "\(unknown)" --dry-run } catch e { print "E", "typed", e.kind, e.message }
            try { sign typed "no-such-file.json" } catch e { print "E", "file", e.kind }
            let d = 0x1da44b586eb0729ff70a73c326926f6ed5a25f5b056e7f47fbc6e58d86871655
            let who = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
            try { verify $d \(someDataSignature) --address $who --public-key 0x0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798 } catch e { print "M", e.message }
            try { verify $d \(someDataSignature) } catch e { print "M", e.message }
            try { verify $d \(someDataSignature) --message "Some data" --address $who } catch e { print "M", e.message }
            try { recover \(someDataSignature) --message "Some data" --typed "x.json" } catch e { print "M", e.message }
            try { recover $d } catch e { print "M", e.message }
            let words = mnemonic.generate()
            try { sign typed {"types": {"EIP712Domain": []}, "primaryType": "EIP712Domain", "domain": {}, "message": {"w": words}} --dry-run } catch e { print "M", e.message }
            try { eth.send {"hash": d} } catch e { print "M", e.message }
            try { eth.receipt 0x1234 } catch e { print "M", e.message }
            try { eth.balance $who --block newest } catch e { print "M", e.message }
            try { eth.node "http://127.0.0.1:1" --clear } catch e { print "M", e.message }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("M", in: r.out) == [
            "verify: expected one of --address and --public-key, got both",
            "verify: expected --address A or --public-key P, got neither",
            "verify: expected exactly one of DIGEST SIGNATURE, SIGNATURE --message TEXT, SIGNATURE --typed FILE",
            "recover: expected exactly one of DIGEST SIGNATURE, SIGNATURE --message TEXT, SIGNATURE --typed FILE",
            "recover: expected DIGEST SIGNATURE (65 bytes r ‖ s ‖ v), got only one argument",
            "sign.typed: typed data.message.w must be a plain value, got a secret mnemonic",
            "eth.send: raw must be signed transaction bytes or a map with raw, got a map without raw",
            "eth.receipt: hash must be a 32-byte transaction hash, got 2 bytes",
            "eth.balance: --block must be latest, pending, earliest, safe, finalized or a block number, got \"newest\"",
            "eth.node: --clear does not apply here: it takes no URL",
        ], "\(r.out)")
        let errors = tagged("E", in: r.out)
        #expect(errors.count == 11, "\(r.out)")
        #expect(errors.contains("fees eth.tx.gasPriceAndFeeCaps"))
        #expect(errors.contains("chain0 eth.tx.chainIdZero"))
        #expect(errors.contains("negative eth.tx.quantity"))
        #expect(errors.contains("big eth.tx.quantity"))
        #expect(errors.contains("unit eth.tx.quantity"))
        #expect(errors.contains { $0.hasPrefix("decode eth.tx.") })
        #expect(errors.contains("oddhex eth.tx.badHex"))
        #expect(errors.contains("digest eth.digest.length"))
        #expect(errors.contains("siglen eth.signature.length"))
        #expect(errors.contains { $0.hasPrefix("typed eth.typedData.unknownType") && $0.contains("Persn") })
        #expect(errors.contains("file eth.command.unreadableFile"))
    }

    @Test func simulatedCard_signsMessageAndEIP1559Tx_senderRecoversToTheCardKey() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run("""
            card.connect
            card.init --pin "123456" --puk "987654321098" --pairing "example pairing"
            card.login "123456" --password "example pairing"
            card.load mnemonic "\(testMnemonic)" --name kc
            use card
            derive "m/44'/60'/0'/0/0"
            let s = sign message "hello"
            print "M", s.signer, s.verified
            let sig = s.signature
            print "R", (recover $sig --message "hello")
            let t = sign tx {"type": 2, "chainId": 1, "nonce": 0, "to": "0x3535353535353535353535353535353535353535", "value": "1 ether", "gas": 21000, "maxFeePerGas": "20 gwei", "maxPriorityFeePerGas": "1 gwei"}
            let raw = t.raw
            let d = tx.decode $raw
            print "T", d.sender, d.lowS, t.verified
            let ht = history --kind transaction
            let hm = history --kind message
            print "H", len(ht), len(hm)
            """)
        #expect(r.code == 0, "\(r.err)")
        // m/44'/60'/0'/0/0 of the "abandon … about" mnemonic.
        let address = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
        #expect(tagged("M", in: r.out) == ["\(address) true"])
        #expect(tagged("R", in: r.out) == [address])
        #expect(tagged("T", in: r.out) == ["\(address) true true"])
        #expect(tagged("H", in: r.out) == ["1 1"])
    }
}
