import BigInt
import CardProtocol
import Foundation
import KCSErrors
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `tx` namespace: signed transactions decoded (docs/eth-node.md).

extension Builtins {
    static let tx: [Builtin] = [
        Builtin(
            "tx.decode", params: [ParamSpec("raw", .oneOf([.bytes, .string]))],
            summary:
                "Decodes a raw signed transaction (legacy, EIP-2930, EIP-1559): its fields, the sender by recovery, and the hash.",
            example:
                "tx.decode 0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83"
        ) { args in
            let stx: SignedEthereumTransaction =
                switch args.value("raw") {
                case .bytes(let b)?: try SignedEthereumTransaction.decode(b)
                case .string(let s)?: try SignedEthereumTransaction.decode(hex: s)
                default: try SignedEthereumTransaction.decode([])
                }
            return .map(ValueMap(try decodedFields(stx)))
        }
    ]
}
