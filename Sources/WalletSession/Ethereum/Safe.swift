import EthRPC
import Foundation
import KCSErrors
import WalletCore
import WalletCrypto

// Safe owner confirmations (docs/eth-signing.md, "Safe"): a SafeTx from a map or from the Safe
// Transaction Service's JSON (its safeTxHash recomputed, never trusted), the owner's signature in
// Safe's encoding, and several owners' signatures checked and packed.

/// Where a SafeTx comes from.
public enum SafeTransactionSource {
    /// A map of SafeTx fields (a console map or JSON).
    case fields([String: Any])
    /// A file of the Safe Transaction Service's JSON (a proposed transaction).
    case serviceFile(String)
}

/// Why a Safe command refused.
public enum SafeCommandError: WalletError, Equatable {
    case unreadableFile(path: String, reason: String)
    /// The service's safeTxHash is not the one the fields hash to.
    case hashMismatch(path: String, given: String, computed: String)
    /// A signature to combine is not for this hash, or its owner is not the one claimed.
    case notForThisHash(index: Int, owner: String)

    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .unreadableFile: "eth.safe.unreadableFile"
        case .hashMismatch: "eth.safe.hashMismatch"
        case .notForThisHash: "eth.safe.notForThisHash"
        }
    }

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason):
            "expected the Safe Transaction Service's JSON of a transaction in \(path), got \(reason)"
        case .hashMismatch(let path, let given, let computed):
            "the safeTxHash in \(path) is \(given), but its fields hash to \(computed) (for the chain and Safe "
                + "version given): what the service shows is not what would be signed; nothing was signed"
        case .notForThisHash(let index, let owner):
            "signature \(index) (\(owner)) is not a confirmation of this safeTxHash"
        }
    }
}

extension Session {
    /// The SafeTx `source` describes, for `safe` (else the JSON's `safe`) on `chainID` at
    /// `version`; from the service's JSON, also its EOA confirmations. A service file's
    /// `safeTxHash` must equal the hash kcs computes, or nothing goes further.
    public func safeTransaction(
        _ source: SafeTransactionSource, safe: EthereumAddress?, chainID: UInt256, version: SafeVersion
    ) throws -> (transaction: SafeTransaction, confirmations: [SafeOwnerSignature]) {
        switch source {
        case .fields(let map):
            return (try SafeTransaction(fields: map, safe: safe, chainID: chainID, version: version), [])
        case .serviceFile(let path):
            // JSONText refuses a key named twice: one reader would hash the first value, another the last.
            guard case .bytes(let data) = BoundedFile.read(path, maximumBytes: 4 << 20),
                let map = (try? JSONText.parse(data)) as? [String: Any]
            else {
                throw SafeCommandError.unreadableFile(path: path, reason: "no JSON object of at most 4 MiB")
            }
            let tx = try SafeTransaction(fields: map, safe: safe, chainID: chainID, version: version)
            let computed = "0x" + Hex.encode(tx.safeTxHash)
            if let given = (map["safeTxHash"] ?? map["contractTransactionHash"]) as? String,
                given.lowercased() != computed
            {
                throw SafeCommandError.hashMismatch(path: path, given: given, computed: computed)
            }
            var confirmations: [SafeOwnerSignature] = []
            for c in (map["confirmations"] as? [[String: Any]]) ?? [] {
                guard let text = c["signature"] as? String, let bytes = try? Hex.decode(text) else { continue }
                confirmations += try SafeOwnerSignature.parse(bytes, safeTxHash: tx.safeTxHash)
            }
            return (tx, confirmations)
        }
    }

    /// Several owners' signatures of `safeTxHash` (each 65 bytes, or already packed), read,
    /// each ECDSA owner recovered, and packed ascending by owner (`SafeOwnerSignature.pack`).
    /// `claimed` names the owner each part should be from, when known.
    public func combineSafeSignatures(
        _ parts: [[UInt8]], safeTxHash: [UInt8], claimed: [EthereumAddress?] = []
    ) throws -> (packed: [UInt8], signatures: [SafeOwnerSignature]) {
        var all: [SafeOwnerSignature] = []
        for (i, part) in parts.enumerated() {
            let read = try SafeOwnerSignature.parse(part, safeTxHash: safeTxHash)
            if i < claimed.count, let owner = claimed[i], read.count == 1, read[0].owner != owner {
                throw SafeCommandError.notForThisHash(index: i, owner: owner.checksummed)
            }
            all += read
        }
        return (
            try SafeOwnerSignature.pack(all), all.sorted { $0.owner.bytes.lexicographicallyPrecedes($1.owner.bytes) }
        )
    }
}

/// What a node says of a Safe: its version, nonce, owners and threshold (`eth_call`).
public struct SafeState: Sendable, Equatable {
    public let version: String
    public let nonce: UInt256
    public let owners: [EthereumAddress]
    public let threshold: UInt256
}

/// A Safe a node was asked about that does not answer as a Safe, or a signer it does not have.
public enum SafeNodeError: WalletError, Equatable {
    case notASafe(safe: String, reason: String)
    case notOwner(signer: String, safe: String, owners: String)
    case nonceUsed(given: String, current: String)

    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .notASafe: "eth.safe.notASafe"
        case .notOwner: "eth.safe.notOwner"
        case .nonceUsed: "eth.safe.nonceUsed"
        }
    }

    public var description: String {
        switch self {
        case .notASafe(let safe, let reason): "\(safe) does not answer as a Safe at the node: \(reason)"
        case .notOwner(let signer, let safe, let owners):
            "\(signer) is not an owner of the Safe \(safe) (its owners: \(owners)); nothing was signed"
        case .nonceUsed(let given, let current):
            "the SafeTx nonce \(given) is below the Safe's nonce \(current): a transaction with it has run already;"
                + " nothing was signed"
        }
    }
}

extension Session {
    /// Reads `safe`'s VERSION(), nonce(), getOwners() and getThreshold() from `node`.
    public func safeState(_ safe: EthereumAddress, node: EthereumNode) throws -> SafeState {
        func call(_ signature: String) throws -> [UInt8] {
            try node.call(to: safe, data: Array(Hash.keccak256(Array(signature.utf8)).prefix(4)))
        }
        func word(_ b: [UInt8], _ i: Int) -> UInt256? {
            b.count >= 32 * (i + 1) ? UInt256(bigEndian: Array(b[(32 * i)..<(32 * i + 32)])) : nil
        }
        let bad = { (reason: String) in SafeNodeError.notASafe(safe: safe.checksummed, reason: reason) }
        let v = try call("VERSION()")
        guard let offset = word(v, 0)?.uint64, offset % 32 == 0, let length = word(v, Int(offset / 32))?.uint64,
            length <= 64, v.count >= Int(offset) + 32 + Int(length),
            let version = String(bytes: v[(Int(offset) + 32)..<(Int(offset) + 32 + Int(length))], encoding: .utf8)
        else { throw bad("VERSION() is not a string") }
        guard let nonce = word(try call("nonce()"), 0) else { throw bad("nonce() is not a number") }
        guard let threshold = word(try call("getThreshold()"), 0) else { throw bad("getThreshold() is not a number") }
        let o = try call("getOwners()")
        guard let at = word(o, 0)?.uint64, at % 32 == 0, let count = word(o, Int(at / 32))?.uint64, count <= 1000,
            o.count >= Int(at) + 32 * (Int(count) + 1)
        else { throw bad("getOwners() is not a list of addresses") }
        let owners = (0..<Int(count)).compactMap { i -> EthereumAddress? in
            let start = Int(at) + 32 * (i + 1) + 12
            return try? EthereumAddress(bytes: Array(o[start..<(start + 20)]))
        }
        return SafeState(version: version, nonce: nonce, owners: owners, threshold: threshold)
    }

    /// Refuses a SafeTx whose nonce has run already, and a signer that is not an owner.
    public func checkSafe(_ state: SafeState, tx: SafeTransaction, signer: EthereumAddress?) throws {
        if tx.nonce < state.nonce {
            throw SafeNodeError.nonceUsed(given: tx.nonce.description, current: state.nonce.description)
        }
        if let signer, !state.owners.contains(signer) {
            throw SafeNodeError.notOwner(
                signer: signer.checksummed, safe: tx.safe.checksummed,
                owners: state.owners.map(\.checksummed).joined(separator: ", "))
        }
    }
}
