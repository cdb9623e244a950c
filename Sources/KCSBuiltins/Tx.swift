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
                "Decodes a raw signed transaction (legacy, EIP-2930, EIP-1559, EIP-4844 canonical or network form, EIP-7702): its fields, the sender by recovery, each authorization's authority, and the hash.",
            example:
                "tx.decode 0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83"
        ) { args in
            let (stx, sidecar) =
                switch args.value("raw") {
                case .bytes(let b)?: try SignedEthereumTransaction.decodeNetwork(b)
                case .string(let s)?: try SignedEthereumTransaction.decodeNetwork(hex: s)
                default: try SignedEthereumTransaction.decodeNetwork([])
                }
            return .map(ValueMap(try decodedFields(stx) + sidecarFields(sidecar)))
        }
    ]

    /// A blob transaction's fields (EIP-4844) and a set-code transaction's authorizations, each
    /// with its authority recovered (EIP-7702).
    static func newTypeFields(_ tx: EthereumTransaction) -> [(String, Value)] {
        switch tx.type {
        case .blob:
            return [
                ("maxFeePerBlobGas", uintValue(tx.maxFeePerBlobGas ?? .zero)),
                ("blobVersionedHashes", .list(tx.blobVersionedHashes.map(Value.bytes))),
            ]
        case .setCode:
            return [
                (
                    "authorizationList",
                    .list(
                        tx.authorizationList.map { t in
                            let authority = (try? t.authority())?.checksummed
                            return .map(
                                ValueMap(
                                    authorizationMap(t) + [
                                        ("authority", authority.map(Value.string) ?? .null),
                                        ("digest", .bytes(t.authorization.digest)),
                                    ]))
                        })
                )
            ]
        default: return []
        }
    }

    /// What a blob transaction's network form carried (nothing for a canonical transaction).
    static func sidecarFields(_ sidecar: BlobSidecar?) -> [(String, Value)] {
        guard let sidecar else { return [] }
        return [
            (
                "sidecar",
                .map(
                    ValueMap([
                        (
                            "form",
                            .string(sidecar.version == 0 ? "EIP-4844 network form (v0)" : "EIP-7594 network form (v1)")
                        ),
                        ("blobs", .int(sidecar.blobs)), ("proofs", .int(sidecar.proofs)),
                        ("commitments", .list(sidecar.commitments.map(Value.bytes))),
                        ("checked", .string("commitments match the versioned hashes; KZG proofs not verified")),
                    ]))
            )
        ]
    }
}
