// ERC-7730 descriptors (docs/eth-signing.md, "ERC-7730") against the clear-signing registry's own
// tests (LedgerHQ/clear-signing-erc7730-registry: registry/lido/tests/calldata-stETH.tests.json and
// registry/permit/tests/eip712-permit-arbitrum-usdc.tests.json — their raw transactions and typed
// data, and the texts a Ledger shows, spaces being its line breaks). The USDC permit descriptor
// and the ERC-2612 file it includes are the registry's (registry/permit/eip712-permit-arbitrum-usdc.json,
// ercs/eip712-erc2612-permit.json); the stETH descriptor is the registry's calldata-stETH.json in
// schema v2's form (parameter names in the format keys, as ERC-7730's example writes it).
// Tests/TranscriptTests/Scripts/eth/erc7730 holds them. The ABI decoder is checked against eth-abi.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private let folder = TestPaths.root.appendingPathComponent("Tests/TranscriptTests/Scripts/eth/erc7730")

private func descriptor(_ path: String) throws -> ClearSigningDescriptor {
    let url = folder.appendingPathComponent(path)
    let json = Array(try Data(contentsOf: url))
    let included = try ClearSigningDescriptor.includes(json).map { name in
        Array(try Data(contentsOf: url.deletingLastPathComponent().appendingPathComponent(name)))
    }
    return try ClearSigningDescriptor(json: json, file: path, included: included)
}

/// The registry's `rawTx` (an unsigned EIP-1559 payload) as the descriptor shows it.
private func clear(_ rawTx: String, _ d: ClearSigningDescriptor) throws -> ClearSigned? {
    let tx = try EthereumTransaction.decodeUnsigned(try Hex.decode(rawTx))
    return d.call(tx.data, to: tx.to!, chainID: tx.chainID, value: tx.value, from: nil)
}

@Suite("ERC-7730 clear-signing descriptors")
struct ClearSigningTests {
    @Test("stETH: approve, submit and transfer render the registry's expected texts")
    func stETH() throws {
        let d = try descriptor("registry/lido/calldata-stETH.json")
        let approve = try #require(
            try clear(
                "0x02f86d01158401bdfe288405866f45830129ab94ae7ab96520de3a18e5e111b5eaab095312d7fe8480b844095ea7b300000000000000000000000040aa958dd87fc8305b97f2ba922cddca374bcd7f0000000000000000000000000000000000000000000000000354a6ba7a180000c0",
                d))
        #expect(approve.owner == "Lido DAO")
        #expect(approve.intent == "Approve 0x40aA958dd87FC8305b97f2BA922CDdCa374bcD7f to spend 0.24 stETH")
        #expect(approve.fields.map(\.label) == ["Spender", "Amount"])
        #expect(approve.fields.map(\.value) == ["0x40aA958dd87FC8305b97f2BA922CDdCa374bcD7f", "0.24 stETH"])
        let stake = try #require(
            try clear(
                "0x02f853011f830f42408405b16fd683016b4794ae7ab96520de3a18e5e111b5eaab095312d7fe84880ef7fca59c4bb813a4a1903eab0000000000000000000000006dc9657c2d90d57cadffb64239242d06e6103e43c0",
                d))
        #expect(stake.intent == "Stake ETH")
        // "Referral" is `visible: never`.
        #expect(stake.fields.map(\.label) == ["Amount to stake"])
        #expect(stake.fields[0].value.hasPrefix("1.078608424000534547 ETH"))
        let transfer = try #require(
            try clear(
                "0x02f86e01158477359400852e90edd0008303a98094ae7ab96520de3a18e5e111b5eaab095312d7fe8480b844a9059cbb00000000000000000000000062425cd6bdcb6bfe51558ea465b063486b70dc9f0000000000000000000000000000000000000000000000000e0db2f70f18f532c0",
                d))
        #expect(transfer.intent == "Transfer stETH")
        #expect(
            transfer.fields.map(\.value) == [
                "0x62425cD6BDcB6bFE51558EA465B063486B70dc9f", "1.012662265408189746 stETH",
            ])
        // Another chain, or another contract: the descriptor does not apply.
        let tx = try EthereumTransaction.decodeUnsigned(
            try Hex.decode(
                "02f86e01158477359400852e90edd0008303a98094ae7ab96520de3a18e5e111b5eaab095312d7fe8480b844a9059cbb00000000000000000000000062425cd6bdcb6bfe51558ea465b063486b70dc9f0000000000000000000000000000000000000000000000000e0db2f70f18f532c0"
            ))
        #expect(d.call(tx.data, to: tx.to!, chainID: UInt256(10), value: .zero, from: nil) == nil)
        #expect(
            d.call(
                tx.data, to: try EthereumAddress(bytes: [UInt8](repeating: 1, count: 20)), chainID: UInt256(1),
                value: .zero, from: nil) == nil)
    }

    @Test("USDC permit on Arbitrum: the included ERC-2612 format, the domain bound, 250 USDC and its deadline")
    func usdcPermit() throws {
        let d = try descriptor("registry/permit/eip712-permit-arbitrum-usdc.json")
        func document(name: String, chain: Int) -> [UInt8] {
            Array(
                """
                {"types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
                  {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}],
                  "Permit": [{"name": "owner", "type": "address"}, {"name": "spender", "type": "address"},
                  {"name": "value", "type": "uint256"}, {"name": "nonce", "type": "uint256"}, {"name": "deadline", "type": "uint256"}]},
                 "primaryType": "Permit",
                 "domain": {"name": "\(name)", "version": "2", "chainId": \(chain), "verifyingContract": "0xaf88d065e77c8cC2239327C5EDb3A432268e5831"},
                 "message": {"owner": "0x742d35Cc6634C0532925a3b844Bc454e4438f44e", "spender": "0x1111111254EEB25477B68fb85Ed929f73A960582",
                   "value": "250000000", "nonce": "7", "deadline": "1780000000"}}
                """.utf8)
        }
        let permit = try #require(d.message(try TypedData(json: document(name: "USD Coin", chain: 42161))))
        #expect(permit.intent == "Authorize spending of tokens")
        #expect(permit.owner == "USDC")
        // Ledger shows "2026-05-28 08:26:40 PM UTC": the same instant, on a 24-hour clock here.
        #expect(
            permit.fields.map { "\($0.label)=\($0.value)" }.sorted() == [
                "Max spending amount=250 USDC", "Spender=0x1111111254EEB25477B68fb85Ed929f73A960582",
                "Valid until=2026-05-28 20:26:40 UTC",
            ])
        #expect(d.message(try TypedData(json: document(name: "USD Coin (fake)", chain: 42161))) == nil)
        #expect(d.message(try TypedData(json: document(name: "USD Coin", chain: 1))) == nil)
        // In the typed-data review: the intent and the labelled fields, the digests still there.
        var review = try SigningReview.typedData(try TypedData(json: document(name: "USD Coin", chain: 42161)))
        review.addClearSigned(
            d.message(try TypedData(json: document(name: "USD Coin", chain: 42161))), descriptor: d, what: "message")
        let text = review.rendered(width: 200)
        #expect(text.contains("clear signing"))
        #expect(text.contains("Authorize spending of tokens (descriptor of USDC)"))
        #expect(text.contains("EIP-712 Digest"))
    }

    @Test("formats: a tokenPath to a parameter, a threshold constant, an enum, a duration, a hidden value")
    func formats() throws {
        let contract = "0x1111111111111111111111111111111111111111"
        let json = """
            {"context": {"contract": {"deployments": [{"chainId": 1, "address": "\(contract)"}]}},
             "metadata": {"owner": "Test", "constants": {"max": "0x8000000000000000000000000000000000000000000000000000000000000000"},
                          "enums": {"kinds": {"0": "savings", "1": "loan"}}},
             "display": {"formats": {"deposit(address token, uint256 amount, uint8 kind, uint256 lock)": {
                "intent": "Deposit",
                "fields": [
                  {"label": "Amount", "path": "amount", "format": "tokenAmount",
                   "params": {"tokenPath": "#.token", "threshold": "$.metadata.constants.max"}},
                  {"label": "Kind", "path": "kind", "format": "enum", "params": {"$ref": "$.metadata.enums.kinds"}},
                  {"label": "Lock", "path": "lock", "format": "duration", "visible": {"ifNotIn": ["0"]}}]}}}}
            """
        let d = try ClearSigningDescriptor(json: Array(json.utf8), file: "test.json")
        let f = try ABIFunction("deposit(address,uint256,uint8,uint256)")
        func call(_ amount: UInt256, lock: UInt64) -> [UInt8] {
            f.selector + [UInt8](repeating: 0, count: 12)
                + (try! EthereumAddress("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")).bytes + amount.bigEndianBytes
                + UInt256(1).bigEndianBytes + UInt256(lock).bigEndianBytes
        }
        let to = try EthereumAddress(contract)
        let usdc = try #require(
            d.call(call(UInt256(1_000_000_000), lock: 90061), to: to, chainID: UInt256(1), value: .zero, from: nil))
        #expect(
            usdc.fields.map { "\($0.label)=\($0.value)" } == ["Amount=1,000 USDC", "Kind=loan", "Lock=1d 1h 1m 1s"])
        let huge = UInt256.max
        let unlimited = try #require(d.call(call(huge, lock: 0), to: to, chainID: UInt256(1), value: .zero, from: nil))
        // At the threshold or above: the message ("Unlimited" by default); a lock of 0 is hidden.
        #expect(unlimited.fields.map { "\($0.label)=\($0.value)" } == ["Amount=Unlimited (\(huge))", "Kind=loan"])
    }

    @Test("bad descriptors are named; call data that lies about its lengths is refused, not decoded")
    func badInput() throws {
        #expect(throws: ClearSigningError.self) { try ClearSigningDescriptor(json: Array("[1]".utf8), file: "x.json") }
        #expect(
            throws: ClearSigningError.malformed(
                file: "x.json", reason: "expected display.formats (an ERC-7730 descriptor)")
        ) {
            try ClearSigningDescriptor(json: Array("{}".utf8), file: "x.json")
        }
        let f = try ABIFunction("f(uint256[] xs)")
        // An array claiming 2^32 elements at offset 32.
        let lying = f.selector + UInt256(32).bigEndianBytes + UInt256(UInt64(1) << 32).bigEndianBytes
        #expect(throws: EthereumError.self) { try f.decode(lying) }
        #expect(throws: EthereumError.self) { try ABIType.parse("uint7") }
        #expect(
            try ABIFunction("swap((address a, uint256 b)[] memory legs, bytes data)").signature
                == "swap((address,uint256)[],bytes)")
    }

    @Test("the ABI decoder agrees with eth-abi on 20 random calls with dynamic, nested and array types")
    func abiAgainstEthAbi() throws {
        let types = "(address,uint256,bytes,string,uint64[],(address,bytes)[],bool,bytes4,int128)"
        let function = try ABIFunction("f" + types)
        let script = """
            import sys, random
            from eth_abi import encode
            from eth_utils import to_checksum_address
            r = random.Random(7730)
            types = ["address", "uint256", "bytes", "string", "uint64[]", "(address,bytes)[]", "bool", "bytes4", "int128"]
            for _ in range(20):
                a = to_checksum_address(bytes(r.getrandbits(8) for _ in range(20)))
                vals = [a, r.getrandbits(256), bytes(r.getrandbits(8) for _ in range(r.randrange(70))),
                        "".join(r.choice("abcdefghijklmnopqrstuvwxyz ABC0123456789") for _ in range(r.randrange(40))),
                        [r.getrandbits(64) for _ in range(r.randrange(5))],
                        [(a, bytes(r.getrandbits(8) for _ in range(r.randrange(40)))) for _ in range(r.randrange(4))],
                        bool(r.getrandbits(1)), bytes(r.getrandbits(8) for _ in range(4)), r.randrange(-2**127, 2**127)]
                text = lambda v: ("0x" + v.hex()) if isinstance(v, bytes) else (("true" if v else "false") if isinstance(v, bool) else (str(v) if isinstance(v, int) else (v if v.startswith("0x") and len(v) == 42 else '"' + v + '"')))
                def show(v):
                    if isinstance(v, list): return "[" + ", ".join(show(x) for x in v) + "]"
                    if isinstance(v, tuple): return "(" + ", ".join(show(x) for x in v) + ")"
                    return text(v)
                print(encode(types, vals).hex(), show(tuple(vals)))
            """
        let answer = try runPython(script, input: "")
        var count = 0
        for line in answer.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            let values = try function.decode(function.selector + (try Hex.decode(parts[0])))
            #expect(ABIValue.tuple(values).text == parts[1])
            count += 1
        }
        #expect(count == 20)
    }
}
