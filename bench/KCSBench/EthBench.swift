import Foundation
import WalletCore
import WalletCrypto

/// Issue 7 §5: EIP-1559 transactions built from fields and signed per second (software key),
/// and EIP-712 digests per second for the Mail example. The baseline measured in the same run
/// is what cannot be avoided: one recoverable ECDSA signature over a 32-byte digest (for the
/// transactions) and one Keccak-256 of 66 bytes, the final 0x1901‖domain‖struct hash (for
/// typed data); the ratio shows what building and encoding add.
enum EthBench {
    static let mail = """
        {"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},\
        {"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],\
        "Person":[{"name":"name","type":"string"},{"name":"wallet","type":"address"}],\
        "Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"}]},\
        "primaryType":"Mail","domain":{"name":"Ether Mail","version":"1","chainId":1,\
        "verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},\
        "message":{"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},\
        "to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"Hello, Bob!"}}
        """

    static func run() throws {
        let key = try PrivateKey(bytes: Hash.keccak256(Array("cow".utf8)))
        var check = 0
        let txRate = try rate(2000) { i in
            let tx = try EthereumTransaction(fields: [
                "type": 2, "chainId": 1, "nonce": i, "to": "0x3535353535353535353535353535353535353535",
                "value": "1.5 ether", "gas": 21000, "maxFeePerGas": "20 gwei", "maxPriorityFeePerGas": "2 gwei",
            ])
            check &+= try tx.sign(with: key).rawBytes.count
        }
        var digest = Hash.keccak256(Array("baseline".utf8))
        let signRate = try rate(2000) { i in
            digest[0] = UInt8(truncatingIfNeeded: i)
            check &+= try key.sign(digest: digest).compact.count
        }
        report("eth_tx1559", txRate)
        report("eth_tx1559_raw", signRate)

        let typed = try TypedData(json: Array(mail.utf8))
        let typedRate = try rate(5000) { _ in check &+= Int(try typed.digest()[0]) }
        var payload = [UInt8](repeating: 0x19, count: 66)
        let keccakRate = rate(5000) { i in
            payload[2] = UInt8(truncatingIfNeeded: i)
            check &+= Int(Hash.keccak256(payload)[0])
        }
        report("eth_eip712", typedRate)
        report("eth_eip712_raw", keccakRate)

        // Round 3 (docs/eth-signing.md): an EIP-7702 authorization signed and a type-4 transaction
        // carrying it signed (two ECDSA signatures: the baseline is two raw signs), a Safe's
        // safeTxHash and an EntryPoint v0.8 userOpHash from their fields (each one EIP-712 digest:
        // the baseline is the one Keccak-256 of its last step).
        let delegate = try EthereumAddress("0x4Cd241E8d1510e30b2076397afc7508Ae59C66c9")
        let setCodeRate = try rate(1000) { i in
            let auth = EIP7702Authorization(chainID: UInt256(1), delegate: delegate, nonce: UInt64(i + 1))
            let sig = try EthereumSignature.sign(digest: auth.digest, with: key)
            var tx = EthereumTransaction(
                type: .setCode, chainID: UInt256(1), nonce: UInt256(UInt64(i)), maxPriorityFeePerGas: UInt256(1),
                maxFeePerGas: UInt256(2), gasLimit: UInt256(100_000), to: delegate, value: .zero)
            tx.authorizationList = [auth.signed(with: sig.signature, yParity: sig.recoveryID)]
            check &+= try tx.sign(with: key).rawBytes.count
        }
        report("eth_tx7702", setCodeRate)
        report("eth_tx7702_raw", signRate / 2)
        let safe = try EthereumAddress("0x86D46EcD553d25da0E3b96A9a1B442ac72fa9e9F")
        let safeRate = rate(2000) { i in
            let tx = SafeTransaction(
                safe: safe, chainID: UInt256(1), version: SafeVersion("1.3.0")!, to: delegate,
                data: [0x09, 0x5E, 0xA7, 0xB3], nonce: UInt256(UInt64(i)))
            check &+= Int(tx.safeTxHash[0])
        }
        report("eth_safetx", safeRate)
        report("eth_safetx_raw", keccakRate)
        let entryPoint = EntryPointVersion.v08.address
        let userOpRate = rate(2000) { i in
            var op = UserOperation(sender: safe, nonce: UInt256(UInt64(i)))
            op.callGasLimit = UInt256(100_000)
            op.maxFeePerGas = UInt256(2_000_000_000)
            check &+= Int(op.hash(entryPoint: entryPoint, chainID: UInt256(1), version: .v08)[0])
        }
        report("eth_userop", userOpRate)
        report("eth_userop_raw", keccakRate)
        precondition(check != 0)
    }
}
