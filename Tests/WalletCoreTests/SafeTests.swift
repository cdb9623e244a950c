// Safe transactions and owner signatures (docs/eth-signing.md, "Safe") against published vectors —
// pcaversaccio/safe-tx-hashes-util's README, Cyfrin/safe-hash-rs's hasher tests, safe-eth-py's
// test_safe_tx.py for the three version bands, safe-smart-account's docs/signatures.md layout —
// and against safe-eth-py 7.27 itself (tools/safe-oracle, .build/safe-venv) on random SafeTxs.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private func hex(_ b: [UInt8]) -> String { "0x" + Hex.encode(b) }
private func address(_ s: String) -> EthereumAddress { try! EthereumAddress(s) }
private let v130 = SafeVersion("1.3.0")!

/// The Python of the Safe oracle's virtual environment.
private var safePython: String { TestPaths.root.appendingPathComponent(".build/safe-venv/bin/python").path }

@Suite("Safe transactions and owner signatures")
struct SafeTests {
    @Test("safe-tx-hashes-util's README: Domain Hash, Message Hash and safeTxHash on Arbitrum")
    func readmeVector() throws {
        let safe = address("0x111CEEee040739fD91D29C34C33E6B3E112F2177")
        let tx = SafeTransaction(
            safe: safe, chainID: UInt256(42161), version: v130, to: safe,
            data: try Hex.decode(
                "0x0d582f130000000000000000000000000c75fa5a5f1c0997e3eea425cfa13184ed0ec9e50000000000000000000000000000000000000000000000000000000000000003"
            ),
            nonce: UInt256(234))
        let h = tx.hashes
        #expect(hex(h.domain) == "0x1cf7f9b1efe3bc47fe02fd27c649fea19e79d66040683a1c86c7490c80bf7291")
        #expect(hex(h.message) == "0xd9109ea63c50ecd3b80b6b27ed5c5a9fd3d546c2169dfb69bfa7ba24cd14c7a5")
        #expect(hex(h.safeTxHash) == "0x0cb7250b8becd7069223c54e2839feaed4cee156363fbfe5dd0a48e75c4e25b3")
    }

    @Test("safe-eth-py's three version bands: 0.1.0 (dataGas), 1.0.0 (no chain id), 1.3.0")
    func versionBands() throws {
        let fields: [String: Any] = [
            "to": "0x5AC255889882aaB35A2aa939679E3F3d4Cea221E", "value": 5_000_000, "data": "0x00",
            "safeTxGas": 50000, "baseGas": 100, "gasPrice": 10000, "nonce": 67,
        ]
        let safe = address("0x692a70D2e424a56D2C6C27aA97D1a86395877b3A")
        for (version, expected) in [
            ("0.1.0", "0xc9d69a2350aede7978fdee58e702647e4bbdc82168577aa4a43b66ad815c6d1a"),
            ("1.0.0", "0x7c60341f3e1b4483575f38e84e97d6b332a2dd55b9290f39e6e26eef29a04fe7"),
        ] {
            // Before 1.3.0 the chain is not hashed: any chain gives the same hash.
            for chain in [1, 100] as [UInt64] {
                let tx = try SafeTransaction(
                    fields: fields, safe: safe, chainID: UInt256(chain), version: SafeVersion(version)!)
                #expect(hex(tx.safeTxHash) == expected, "\(version) on chain \(chain)")
            }
        }
        let modern = try SafeTransaction(
            fields: [
                "to": "0x79613FD49472C3C7a32188e45ff00e7bdC8a897d", "value": "2", "data": "0x1212",
                "gasToken": "0xFA995c7a0d32A4e7497508a5C380369BE8dB49Db",
                "refundReceiver": "0x6b92f5E5360bfCa8F5d3FcE65D87382967847983", "nonce": "17",
            ], safe: address("0x2B0b9cBDA3D7b0F760187c52A8FFB18C48E5d96A"), chainID: UInt256(4),
            version: SafeVersion("1.3.0+L2")!)
        #expect(hex(modern.safeTxHash) == "0x01d42a801ac44d3ebd43592be980dea0756d7f7b27d718d3016a42ea7ce85587")
        #expect(SafeVersion("v1.4.1")?.description == "1.4.1" && SafeVersion("latest") == nil)
    }

    @Test("the packed signatures of three owners (keys 11…, 22…, 33…), ascending by owner, and read back")
    func packedThreeOwners() throws {
        let tx = SafeTransaction(
            safe: address("0x86D46EcD553d25da0E3b96A9a1B442ac72fa9e9F"), chainID: UInt256(11_155_111), version: v130,
            to: address("0x7b79995e5f793A07Bc00c21412e50Ecae098E7f9"),
            data: try Hex.decode(
                "0x095ea7b3000000000000000000000000fe2f653f6579de62aaf8b186e618887d03fa31260000000000000000000000000000000000000000000000000000000000000001"
            ),
            nonce: UInt256(6))
        let hash = tx.safeTxHash
        #expect(hex(hash) == "0x213be037275c94449a28b4edead76b0d63c7e12b52257f9d5686d98b9a1a5ff4")
        var parts: [SafeOwnerSignature] = []
        for byte in [0x11, 0x22, 0x33] as [UInt8] {
            let key = try PrivateKey(bytes: [UInt8](repeating: byte, count: 32))
            let encoded = SafeOwnerSignature.encode(try EthereumSignature.sign(digest: hash, with: key), ethSign: false)
            parts += try SafeOwnerSignature.parse(encoded, safeTxHash: hash)
        }
        let packed = try SafeOwnerSignature.pack(parts)
        #expect(
            Hex.encode(packed)
                == "d70174410a5bbe5f77b43353d99d0d10608691333be09992db40d48e4d27e29a430441f97f4e78f112ad69e6a9b8e21eee141a008cfe23d94e4cd91f6031cebf1c"
                + "c55653f2704acb99f76cd4ca7b6e345b8f79bfc953584ab2024b07e123628e857ce4e2299a2291c5202a0d1296d2f6a2f8546e8f1517746fd20f6500f011866a1b"
                + "d4a54668f10d0ea121fc8cfafef099a415c8f2869b2b2630a3b90c3e24c9c30c653856a8c8639c2a78eac0b7df31fbbd2bcd7ac89d26a7c8053cd986868e17821c"
        )
        let back = try SafeOwnerSignature.parse(packed, safeTxHash: hash)
        #expect(
            back.map(\.owner.checksummed) == [
                "0x1563915e194D8CfBA1943570603F7606A3115508", "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A",
                "0x5CbDd86a2FA8Dc4bDdd8a8f69dBa48572EeC07FB",
            ])
        #expect(throws: EthereumError.self) { try SafeOwnerSignature.pack(parts + [parts[0]]) }
    }

    @Test(
        "docs/signatures.md's layout: a contract, an approved hash and an EOA, the dynamic part after every static part"
    )
    func threeKinds() throws {
        let hash = Hash.keccak256(Array("a SafeTx".utf8))
        let eoaKey = try PrivateKey(bytes: [UInt8](repeating: 0x33, count: 32))
        let eoa = try SafeOwnerSignature.parse(
            SafeOwnerSignature.encode(try EthereumSignature.sign(digest: hash, with: eoaKey), ethSign: false),
            safeTxHash: hash)[0]
        func word(_ n: UInt64) -> [UInt8] { UInt256(n).bigEndianBytes }
        let contract = SafeOwnerSignature(
            owner: try EthereumAddress(bytes: Array(word(1).suffix(20))), kind: .contract(data: word(0xdeadbeef)),
            staticPart: word(1) + word(0) + [0])
        let approved = SafeOwnerSignature(
            owner: try EthereumAddress(bytes: Array(word(2).suffix(20))), kind: .approvedHash,
            staticPart: word(2) + word(0) + [1])
        let packed = try SafeOwnerSignature.pack([eoa, approved, contract])
        // Owner 0x…01 first, its offset 0xc3 = 3 × 65; then 0x…02; then the EOA (0x…3 sorts last here only
        // if its address is larger: check the order by value instead of assuming).
        #expect(Array(packed[0..<32]) == word(1))
        #expect(Array(packed[32..<64]) == word(0xc3))
        #expect(packed[64] == 0)
        #expect(Array(packed[65..<97]) == word(2) && packed[129] == 1)
        #expect(Array(packed[195..<227]) == word(32) && Array(packed[227..<259]) == word(0xdeadbeef))
        #expect(packed.count == 3 * 65 + 64)
        let back = try SafeOwnerSignature.parse(packed, safeTxHash: hash)
        #expect(back.map(\.kind.description) == ["contract (EIP-1271)", "approved hash", "EOA (EIP-712)"])
        #expect(back[2].owner == eoa.owner)
        // v 2 (a passkey owner) and v 5 are refused by name.
        #expect(
            throws: EthereumError.safeBadSignature(
                index: 0,
                reason: "v 2 is a passkey (secp256r1) owner, which the Safe contracts kcs knows (≤ 1.5.0) do not accept"
            )
        ) {
            try SafeOwnerSignature.parse(word(1) + word(0) + [2], safeTxHash: hash)
        }
        #expect(throws: EthereumError.safeBadSignature(index: 0, reason: "v must be 0, 1, 27, 28, 31 or 32, got 5")) {
            try SafeOwnerSignature.parse(word(1) + word(1) + [5], safeTxHash: hash)
        }
    }

    @Test("SafeTx fields refused: operation 2, no nonce, no to, an unknown field, a non-number")
    func badFields() throws {
        let safe = address("0x111CEEee040739fD91D29C34C33E6B3E112F2177")
        let base: [String: Any] = ["to": safe.checksummed, "nonce": 1]
        func error(_ change: [String: Any?]) -> String? {
            var f = base
            for (k, v) in change { f[k] = v }
            do { _ = try SafeTransaction(fields: f, safe: safe, chainID: UInt256(1), version: v130) } catch {
                return error.description
            }
            return nil
        }
        #expect(error(["operation": 2]) == "SafeTx operation must be 0 (Call) or 1 (DelegateCall), got 2")
        #expect(error(["nonce": nil]) == "SafeTx nonce is required")
        #expect(error(["to": nil]) == "SafeTx to is required")
        #expect(error(["color": "red"])?.hasPrefix("SafeTx color is not a SafeTx field") == true)
        #expect(error(["value": "ten"]) == "SafeTx value must be a whole number, got ten")
        #expect(error(["safe": "0x692a70D2e424a56D2C6C27aA97D1a86395877b3A"])?.contains("not the --safe") == true)
        #expect(error([:]) == nil)
    }

    @Test("safe-eth-py 7.27 agrees: 30 random SafeTxs across the version bands, and reads kcs's packed signatures")
    func againstSafeEthPy() throws {
        let random = SeededRandom(seed: 1_300)
        var lines: [String] = [], mine: [String] = []
        for i in 0..<30 {
            let version = ["0.1.0", "1.0.0", "1.1.1", "1.3.0", "1.4.1", "1.5.0"][i % 6]
            let tx = SafeTransaction(
                safe: try EthereumAddress(bytes: random.bytes(20)),
                chainID: UInt256(UInt64([1, 100, 42161, 11_155_111][i % 4])),
                version: SafeVersion(version)!, to: try EthereumAddress(bytes: random.bytes(20)),
                value: UInt256(bigEndian: random.bytes(i % 12))!, data: random.bytes(i * 5 % 70),
                operation: i % 3 == 0 ? .delegateCall : .call, safeTxGas: UInt256(UInt64(i * 1000)),
                baseGas: UInt256(UInt64(i)), gasPrice: UInt256(UInt64(i % 2 * 7)),
                gasToken: try EthereumAddress(bytes: random.bytes(20)),
                refundReceiver: try EthereumAddress(bytes: random.bytes(20)),
                nonce: UInt256(UInt64(i * 37)))
            let hash = tx.safeTxHash
            var parts: [SafeOwnerSignature] = []
            for k in 0..<3 {
                let key = try PrivateKey(bytes: random.bytes(32))
                let encoded = SafeOwnerSignature.encode(
                    try EthereumSignature.sign(digest: k == 1 ? PersonalMessage.digest(hash) : hash, with: key),
                    ethSign: k == 1)
                parts += try SafeOwnerSignature.parse(encoded, safeTxHash: hash)
            }
            let packed = try SafeOwnerSignature.pack(parts)
            lines.append(
                [
                    tx.safe.checksummed, tx.to.checksummed, tx.value.description, Hex.encode(tx.data) + "-",
                    String(tx.operation.rawValue), tx.safeTxGas.description, tx.baseGas.description,
                    tx.gasPrice.description,
                    tx.gasToken.checksummed, tx.refundReceiver.checksummed, tx.nonce.description, version,
                    tx.chainID.description, Hex.encode(packed),
                ].joined(separator: " "))
            let sorted = parts.sorted { $0.owner.bytes.lexicographicallyPrecedes($1.owner.bytes) }
            mine.append(
                hex(hash) + " "
                    + sorted.map { "\($0.owner.checksummed):\($0.kind == .ethSign ? "ETH_SIGN" : "EOA")" }.joined(
                        separator: ","))
        }
        let script = """
            import sys
            from hexbytes import HexBytes
            from safe_eth.safe.safe_tx import SafeTx
            from safe_eth.safe.safe_signature import SafeSignature
            for line in sys.stdin.read().splitlines():
                (safe, to, value, data, op, stg, bg, gp, gt, rr, nonce, version, chain, packed) = line.split()
                tx = SafeTx(None, safe, to, int(value), HexBytes(data[:-1]), int(op), int(stg), int(bg), int(gp), gt, rr,
                            safe_nonce=int(nonce), safe_version=version, chain_id=int(chain))
                h = tx.safe_tx_hash
                sigs = SafeSignature.parse_signature(HexBytes(packed), h)
                kinds = ",".join(f"{s.owner}:{s.signature_type.name}" for s in sigs)
                print("0x" + bytes(h).hex(), kinds)
            """
        #expect(FileManager.default.isExecutableFile(atPath: safePython), "make test creates \(safePython)")
        let answer = try runPython(script, input: lines.joined(separator: "\n") + "\n", python: safePython)
        #expect(answer.split(separator: "\n").map(String.init) == mine)
    }
}
