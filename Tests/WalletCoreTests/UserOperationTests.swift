// ERC-4337 userOpHash (docs/eth-signing.md, "ERC-4337") against wevm/viem's nine snapshots
// (src/account-abstraction/utils/userOperation/getUserOperationHash.test.ts) and against eth-abi and
// eth-account (the project's EVM venv) on random operations, v0.9's paymaster signature included.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private func hex(_ b: [UInt8]) -> String { "0x" + Hex.encode(b) }
private let a1234 = try! EthereumAddress("0x1234567890123456789012345678901234567890")

private func viemOp(_ extra: [String: Any] = [:]) throws -> UserOperation {
    var fields: [String: Any] = [
        "sender": a1234.checksummed, "nonce": 0, "callData": "0x", "callGasLimit": 6_942_069,
        "verificationGasLimit": 6_942_069, "preVerificationGas": 6_942_069, "maxFeePerGas": 69420,
        "maxPriorityFeePerGas": 69, "signature": "0x",
    ]
    for (k, v) in extra { fields[k] = v }
    return try UserOperation(fields: fields)
}

@Suite("ERC-4337 user operations")
struct UserOperationTests {
    @Test("viem's snapshots: v0.8 (default, factory, paymaster, paymaster with limits, EIP-7702) and v0.7")
    func viemSnapshots() throws {
        let pm: [String: Any] = ["paymaster": a1234.checksummed]
        let pmFull: [String: Any] = [
            "paymaster": a1234.checksummed, "paymasterVerificationGasLimit": 6_942_069,
            "paymasterPostOpGasLimit": 6_942_069, "paymasterData": "0xdeadbeef",
        ]
        let factory: [String: Any] = ["factory": a1234.checksummed, "factoryData": "0xdeadbeef"]
        var eip7702 = pmFull
        eip7702["factory"] = "0x7702"
        eip7702["factoryData"] = "0xdeadbeef"
        eip7702["eip7702Auth"] = ["address": a1234.checksummed, "chainId": 1, "nonce": 0]
        let v08 = EntryPointVersion.v08.address
        let cases: [([String: Any], EthereumAddress, EntryPointVersion, String)] = [
            ([:], v08, .v08, "a2224e732a1d4e2f923c7c05d586a0aa6cbc42172ec02f31d35fa9a2b8ba9208"),
            (factory, v08, .v08, "3146c70a9ef7538e9b9aca8b00ad4b127ca7eef7817a557f1801acbf8d68c206"),
            (pm, v08, .v08, "364bff8f9104a3854dce4f61f8479ce3019a3bd23e1c8db4da0d7c22850835b9"),
            (pmFull, v08, .v08, "f10ef9afcf27a4fd17e477cd19f37e588e3ff7d48eade07ab5b7eb8caf75667f"),
            (eip7702, v08, .v08, "d96232eb5d02f483166b9b23dca3ec2b963d70f09b961fce348c51d306278462"),
            ([:], a1234, .v07, "1903d62bb5dc75af6fed866aa46d8e80063d9e288aa7f2caad0ff1fcae22e40d"),
            (factory, a1234, .v07, "46c1d51e831d50c1a93135f026a7d3f1921ed66e9c81da723dd3817a49f01bc1"),
            (pm, a1234, .v07, "1f2cf8638ead0fc621c6fb1562b8222c06539efcec09be156191f72418ebb109"),
            (pmFull, a1234, .v07, "265fc1350b3fc016d493f9533354cf1a758c0fb9ddbbfd8b19c987d4e8935eed"),
        ]
        for (extra, entryPoint, version, expected) in cases {
            let op = try viemOp(extra)
            #expect(
                Hex.encode(op.hash(entryPoint: entryPoint, chainID: UInt256(1), version: version)) == expected,
                "\(version) \(extra.keys.sorted())")
        }
        // The domain separator and struct hash of the default v0.8 case (the spec computed them).
        let typed = try TypedData(json: try viemOp().typedDataJSON(entryPoint: v08, chainID: UInt256(1), version: .v08))
        #expect(
            hex(try typed.domainSeparator()) == "0x1cb06c861549b538545a86964847e07ba0bcd7699008fe569947aabf7d4dc16a")
        #expect(hex(try typed.messageHash()) == "0x846c68fd772c135376b63199d0ebb435b95e3bcb97c98f8fd44f8df193ca2922")
    }

    @Test("refused: a 7702 marker without its delegate, a gas limit past 128 bits, an unknown field, no sender")
    func badOperations() throws {
        #expect(
            throws: EthereumError.userOpBadField(
                field: "eip7702Auth",
                reason: "must name the account's delegate ({address}): it is hashed in place of 0x7702")
        ) {
            try viemOp(["factory": "0x7702"])
        }
        #expect(throws: EthereumError.self) { try viemOp(["callGasLimit": "0x" + String(repeating: "f", count: 33)]) }
        #expect(throws: EthereumError.self) { try viemOp(["initCode": "0x"]) }
        #expect(throws: EthereumError.userOpBadField(field: "sender", reason: "is required")) {
            try UserOperation(fields: ["nonce": 0])
        }
        #expect(EntryPointVersion.at(a1234) == nil)
    }

    @Test(
        "eth-abi and eth-account agree on 27 random operations for v0.7, v0.8 and v0.9 (paymaster signatures stripped)")
    func againstEthAccount() throws {
        let random = SeededRandom(seed: 4337)
        var lines: [String] = [], mine: [String] = []
        for i in 0..<27 {
            let version = EntryPointVersion.allCases[i % 3]
            var op = UserOperation(
                sender: try EthereumAddress(bytes: random.bytes(20)), nonce: UInt256(bigEndian: random.bytes(i % 32))!)
            op.callData = random.bytes(i * 3)
            op.callGasLimit = UInt256(bigEndian: random.bytes(i % 16))!
            op.verificationGasLimit = UInt256(bigEndian: random.bytes(15))!
            op.preVerificationGas = UInt256(bigEndian: random.bytes(i % 20))!
            op.maxFeePerGas = UInt256(bigEndian: random.bytes(9))!
            op.maxPriorityFeePerGas = UInt256(bigEndian: random.bytes(5))!
            if i % 2 == 0 {
                op.factory = try EthereumAddress(bytes: random.bytes(20))
                op.factoryData = random.bytes(i)
            }
            var paymasterAndData: [UInt8] = []
            if i % 3 != 1 {
                op.paymaster = try EthereumAddress(bytes: random.bytes(20))
                op.paymasterVerificationGasLimit = UInt256(UInt64(i * 1000))
                op.paymasterPostOpGasLimit = UInt256(UInt64(i * 7))
                op.paymasterData = random.bytes(i % 11)
                if i % 4 == 0 {
                    // v0.9's trailing paymaster signature: sig ‖ uint16(len) ‖ magic.
                    let sig = random.bytes(65)
                    op.paymasterData += sig + [0, 65] + UserOperation.paymasterSignatureMagic
                }
                paymasterAndData = op.paymasterAndData
            }
            let entryPoint = version.address
            let chain = UInt256(UInt64([1, 10, 8453][i % 3]))
            lines.append(
                [
                    version.rawValue, op.sender.checksummed, op.nonce.description, Hex.encode(op.initCode) + "-",
                    Hex.encode(op.callData) + "-", Hex.encode(op.accountGasLimits), op.preVerificationGas.description,
                    Hex.encode(op.gasFees), Hex.encode(paymasterAndData) + "-", entryPoint.checksummed,
                    chain.description,
                ]
                .joined(separator: " "))
            mine.append(hex(op.hash(entryPoint: entryPoint, chainID: chain, version: version)))
        }
        let script = """
            import sys
            from eth_abi import encode
            from eth_hash.auto import keccak
            from eth_account.messages import encode_typed_data, _hash_eip191_message
            MAGIC = bytes.fromhex("22e325a297439656")
            TYPES = {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
                                      {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}],
                     "PackedUserOperation": [{"name": n, "type": t} for n, t in [
                         ("sender", "address"), ("nonce", "uint256"), ("initCode", "bytes"), ("callData", "bytes"),
                         ("accountGasLimits", "bytes32"), ("preVerificationGas", "uint256"), ("gasFees", "bytes32"),
                         ("paymasterAndData", "bytes")]]}
            for line in sys.stdin.read().splitlines():
                v, sender, nonce, init, call, agl, pvg, fees, pmd, ep, chain = line.split()
                b = lambda t: bytes.fromhex(t[:-1])
                init, call, pmd = b(init), b(call), b(pmd)
                agl, fees, nonce, pvg, chain = bytes.fromhex(agl), bytes.fromhex(fees), int(nonce), int(pvg), int(chain)
                if v == "0.9" and pmd.endswith(MAGIC):
                    n = int.from_bytes(pmd[-10:-8], "big")
                    pmd = pmd[: len(pmd) - n - 10] + MAGIC
                if v == "0.7":
                    inner = encode(["address", "uint256", "bytes32", "bytes32", "bytes32", "uint256", "bytes32", "bytes32"],
                                   [sender, nonce, keccak(init), keccak(call), agl, pvg, fees, keccak(pmd)])
                    h = keccak(encode(["bytes32", "address", "uint256"], [keccak(inner), ep, chain]))
                else:
                    doc = {"types": TYPES, "primaryType": "PackedUserOperation",
                           "message": dict(sender=sender, nonce=nonce, initCode=init, callData=call, accountGasLimits=agl,
                                           preVerificationGas=pvg, gasFees=fees, paymasterAndData=pmd),
                           "domain": {"name": "ERC4337", "version": "1", "chainId": chain, "verifyingContract": ep}}
                    h = _hash_eip191_message(encode_typed_data(full_message=doc))
                print("0x" + h.hex())
            """
        let answer = try runPython(script, input: lines.joined(separator: "\n") + "\n")
        #expect(answer.split(separator: "\n").map(String.init) == mine)
    }
}
