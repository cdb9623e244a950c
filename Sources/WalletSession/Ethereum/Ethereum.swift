import EthRPC
import Foundation
import KCSErrors
import WalletCore
import WalletCrypto

// Ethereum through a node (docs/eth-node.md): what `sign tx` fills from the node, and sending a
// signed transaction exactly once (never retried), optionally waiting for its receipt.

extension Session {
    /// Fills what `sign tx` was not given — chain id, nonce, gas, fees — from the node, and says
    /// which (on the status line too). `given` are the keys the person wrote; `sender` (asked only when the nonce or the
    /// gas estimate needs it) is the signer's address. Nothing missing: no request at all.
    public func fill(
        _ tx: inout EthereumTransaction, given: Set<String>, sender: () throws -> EthereumAddress,
        node: EthereumNode
    ) throws -> [(field: String, value: UInt256)] {
        let needsNonce = !given.contains("nonce")
        let needsGas = !given.contains("gas") && !given.contains("gasLimit")
        let needsFee =
            !given.contains("gasPrice") && !(given.contains("maxFeePerGas") && given.contains("maxPriorityFeePerGas"))
        guard !given.contains("chainId") || needsNonce || needsGas || needsFee else { return [] }

        var filled: [(field: String, value: UInt256)] = []
        let chain = try node.chainID()
        if !given.contains("chainId") {
            tx.chainID = chain
            filled.append(("chainId", chain))
        } else if let mine = tx.chainID, mine != chain {
            throw EthCommandError.chainMismatch(
                given: mine.description, node: chain.description, endpoint: node.endpoint)
        }
        let from = needsNonce || needsGas ? try sender() : nil
        if needsNonce, let from {
            tx.nonce = try node.transactionCount(of: from, block: "pending")
            filled.append(("nonce", tx.nonce))
        }
        if needsFee {
            // A blob or set-code transaction keeps its type (its fields say what it is).
            let chooseType =
                !given.contains("type") && !given.contains("maxFeePerGas") && !given.contains("maxPriorityFeePerGas")
                && !tx.type.requiresRecipient
            if chooseType || tx.type.hasFeeCaps {
                let fees = try node.fees()
                // No type and no cap given: EIP-1559 where the chain has a base fee, else legacy
                // (EIP-2930 when there is an access list).
                if chooseType && fees.baseFee != nil {
                    tx.type = .dynamicFee
                    tx.gasPrice = nil
                } else if chooseType && !tx.accessList.isEmpty {
                    tx.type = .accessList
                }
                if tx.type.hasFeeCaps {
                    let suggested = fees.maxPriorityFeePerGas ?? fees.gasPrice
                    if !given.contains("maxPriorityFeePerGas") {
                        // A given cap bounds the tip.
                        tx.maxPriorityFeePerGas =
                            given.contains("maxFeePerGas") ? min(suggested, tx.maxFeePerGas ?? suggested) : suggested
                        filled.append(("maxPriorityFeePerGas", tx.maxPriorityFeePerGas!))
                    }
                    if !given.contains("maxFeePerGas") {
                        tx.maxFeePerGas = try fees.maxFee(tip: tx.maxPriorityFeePerGas ?? suggested)
                        filled.append(("maxFeePerGas", tx.maxFeePerGas!))
                    }
                } else {
                    tx.gasPrice = fees.gasPrice
                    filled.append(("gasPrice", fees.gasPrice))
                }
            } else {
                // Legacy or EIP-2930 by its type: the gas price is all it needs.
                tx.gasPrice = try node.gasPrice()
                filled.append(("gasPrice", tx.gasPrice!))
            }
        }
        if needsGas, let from {
            var call: [String: Any] = ["from": from.checksummed, "value": tx.value.hexQuantity]
            if let to = tx.to { call["to"] = to.checksummed }
            if !tx.data.isEmpty { call["data"] = Hex.encodePrefixed(tx.data) }
            // The access list costs gas of its own (EIP-2930: 2400 per address, 1900 per key).
            if tx.type != .legacy {
                call["accessList"] = tx.accessList.map { e in
                    ["address": e.address.checksummed, "storageKeys": e.storageKeys.map { Hex.encodePrefixed($0) }]
                        as [String: Any]
                }
            }
            // Each authorization costs gas of its own (EIP-7702: 25000 per tuple), as the node counts it.
            if !tx.authorizationList.isEmpty {
                call["authorizationList"] = tx.authorizationList.map { a in
                    Dictionary(uniqueKeysWithValues: a.jsonFields.map { ($0.0, $0.1 as Any) })
                }
            }
            tx.gasLimit = try node.estimateGas(call)
            filled.append(("gas", tx.gasLimit))
        }
        if !filled.isEmpty {
            prompts?.status("filled from the node at \(node.endpoint): " + filled.map(\.field).joined(separator: ", "))
        }
        return filled
    }

    /// Sends a signed raw transaction once, decoded first so a malformed one is refused before
    /// anything is sent; `wait` polls for the receipt. A failure after which the node may have
    /// the transaction is `EthCommandError.sendUnknown`, naming its hash.
    public func send(
        _ raw: [UInt8], to node: EthereumNode, wait: Bool
    )
        throws -> (
            transaction: SignedEthereumTransaction, sender: EthereumAddress, hash: [UInt8], receipt: TransactionReceipt?
        )
    {
        let stx = try SignedEthereumTransaction.decode(raw)
        let sender = try stx.sender()
        let hash: [UInt8]
        do {
            hash = try node.sendRawTransaction(raw)
        } catch let e as RPCError where e.mayHaveReachedNode {
            throw EthCommandError.sendUnknown(hash: Hex.encodePrefixed(stx.hash), reason: e.description)
        }
        return (stx, sender, hash, wait ? try waitForReceipt(node, hash: hash) : nil)
    }

    /// Polls for the receipt up to 3 × the node's time-out by the session's clock; Ctrl-C at the
    /// console stops the waiting (the transaction stays sent).
    public func waitForReceipt(_ node: EthereumNode, hash: [UInt8]) throws -> TransactionReceipt {
        let deadline = clock().addingTimeInterval(node.client.timeout * 3)
        var pause = 0.05
        while true {
            if let r = try node.receipt(hash) { return r }
            if clock() > deadline {
                throw EthCommandError.notMined(hash: Hex.encodePrefixed(hash), seconds: Int(node.client.timeout * 3))
            }
            var slept = 0.0
            while slept < pause {
                if prompts?.shouldInterrupt() == true {
                    throw EthCommandError.waitStopped(hash: Hex.encodePrefixed(hash))
                }
                Thread.sleep(forTimeInterval: 0.05)
                slept += 0.05
            }
            pause = min(pause * 2, 1)
        }
    }
}

/// Errors of the Ethereum signing commands that the signing core does not name.
public enum EthCommandError: WalletError, Equatable {
    /// A typed-data file that cannot be read.
    case unreadableFile(path: String)
    /// A secret inside a map to be hashed.
    case secretValue(path: String, kind: String)
    /// `verify` without --address or --public-key.
    case needsSigner
    /// `verify` with both --address and --public-key.
    case bothSigners
    /// A digest argument together with --message or --typed, or both of those.
    case digestSources
    /// A digest with no signature after it.
    case needsSignature
    /// `sign tx` with a chain id that is not the node's, while filling fields from that node.
    case chainMismatch(given: String, node: String, endpoint: String)
    /// `eth.send` lost the connection: the node may or may not have the transaction.
    case sendUnknown(hash: String, reason: String)
    /// `eth.send --wait` saw no receipt in time.
    case notMined(hash: String, seconds: Int)
    /// `eth.send --wait` stopped waiting at Ctrl-C; the transaction was sent.
    case waitStopped(hash: String)
    /// A legacy transaction without a chain id (pre-EIP-155), without `--allow-no-chain-id`.
    case noChainID

    /// Its sentences follow the command's name (`IdentifiableError.followsCommandName`).
    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .unreadableFile: "eth.command.unreadableFile"
        case .secretValue: "eth.command.secretValue"
        case .needsSigner: "eth.command.needsSigner"
        case .bothSigners: "eth.command.bothSigners"
        case .digestSources: "eth.command.digestSources"
        case .needsSignature: "eth.command.needsSignature"
        case .chainMismatch: "eth.command.chainMismatch"
        case .sendUnknown: "eth.command.sendUnknown"
        case .notMined: "eth.command.notMined"
        case .waitStopped: "eth.command.waitStopped"
        case .noChainID: "eth.command.noChainID"
        }
    }

    public var description: String {
        switch self {
        case .unreadableFile(let path):
            "expected a readable EIP-712 JSON file, got \"\(path)\""
        case .secretValue(let path, let kind):
            "\(path) must be a plain value, got a secret \(kind)"
        case .needsSigner:
            "expected --address A or --public-key P, got neither"
        case .bothSigners:
            "expected one of --address and --public-key, got both"
        case .digestSources:
            "expected exactly one of DIGEST SIGNATURE, SIGNATURE --message TEXT, SIGNATURE --typed FILE"
        case .needsSignature:
            "expected DIGEST SIGNATURE (65 bytes r ‖ s ‖ v), got only one argument"
        case .chainMismatch(let given, let node, let endpoint):
            "chainId \(given) is not the chain of the node at \(endpoint) (\(node)); drop chainId, or sign with --offline"
        case .sendUnknown(let hash, let reason):
            "not known whether the node took transaction \(hash) (\(reason)); it was not sent again — "
                + "check eth.receipt \(hash) before sending it again (a resend of the same bytes cannot pay twice)"
        case .notMined(let hash, let seconds):
            "transaction \(hash) was sent but not mined within \(seconds) s; check eth.receipt \(hash) later"
        case .waitStopped(let hash):
            "stopped waiting; transaction \(hash) was sent — check eth.receipt \(hash) later"
        case .noChainID:
            "expected a chainId: without one (pre-EIP-155) the signed transaction is valid on every chain, and anyone"
                + " can replay it there; give chainId, or --allow-no-chain-id to sign it all the same"
        }
    }
}

extension EthCommandError {
    public var exitClass: ExitClass {
        switch self {
        case .waitStopped: .cancelled
        // The node may or may not have the transaction: as unavailable as a missing node.
        case .sendUnknown: .noCard
        default: .runtimeError
        }
    }
}
