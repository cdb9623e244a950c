// Safe (Gnosis Safe) multisig transactions and owner signatures (docs/eth-signing.md, "Safe").
// Sources: safe-global/safe-smart-account contracts/Safe.sol and docs/signatures.md. A SafeTx is
// EIP-712 typed data, so its hashes come from `TypedData` (one place for EIP-712):
//   domain  ≥ 1.3.0   EIP712Domain(uint256 chainId,address verifyingContract)
//           < 1.3.0   EIP712Domain(address verifyingContract)        (valid on every chain)
//   message SafeTx(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,
//                  uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)
//           (0.1.0 calls baseGas `dataGas`)
//   safeTxHash = keccak256(0x19 ‖ 0x01 ‖ domainSeparator ‖ hashStruct(SafeTx))
// An owner's signature is 65 bytes r ‖ s ‖ v: v 27/28 over safeTxHash (EIP-712), 31/32 over the
// EIP-191 hash of safeTxHash (eth_sign), 1 an approved hash (r = the owner), 0 a contract
// signature (r = the contract, s = the offset of its dynamic part). Owners sign in ascending order.
import Foundation
import KCSErrors

/// A Safe contract version, by the band that decides the hash.
public struct SafeVersion: Sendable, Hashable, CustomStringConvertible {
    public let major: Int, minor: Int, patch: Int

    /// Reads `1.3.0`, `1.4.1+L2`, `v1.5.0`: the numeric prefix; nil when there is none.
    public init?(_ text: String) {
        var t = Substring(text.trimmingCharacters(in: .whitespaces))
        if t.hasPrefix("v") { t = t.dropFirst() }
        let numeric = t.prefix { $0.isNumber || $0 == "." }
        let parts = numeric.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
        major = parts[0]!
        minor = parts[1]!
        patch = parts.count == 3 ? parts[2]! : 0
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    /// From 1.3.0 the domain holds the chain id.
    public var domainHasChainID: Bool { (major, minor) >= (1, 3) }

    /// Before 1.0.0 the sixth field is `dataGas`.
    public var gasFieldName: String { major < 1 ? "dataGas" : "baseGas" }
}

/// Call or delegatecall: what the Safe does with `to` and `data`.
public enum SafeOperation: UInt8, Sendable, Hashable, CustomStringConvertible {
    case call = 0
    /// Runs `to`'s code as the Safe itself: it can change owners, modules, anything.
    case delegateCall = 1

    public var description: String { self == .call ? "Call" : "DelegateCall" }
}

/// A Safe transaction to be confirmed by its owners.
public struct SafeTransaction: Sendable, Hashable {
    public var safe: EthereumAddress
    public var chainID: UInt256
    public var version: SafeVersion
    public var to: EthereumAddress
    public var value: UInt256
    public var data: [UInt8]
    public var operation: SafeOperation
    public var safeTxGas: UInt256
    public var baseGas: UInt256
    public var gasPrice: UInt256
    public var gasToken: EthereumAddress
    public var refundReceiver: EthereumAddress
    public var nonce: UInt256

    static let zero = try! EthereumAddress(bytes: [UInt8](repeating: 0, count: 20))

    /// The field names `init(fields:…)` accepts: the SafeTx fields, and what the Safe Transaction
    /// Service's JSON adds (`safe`, `safeTxHash`, and fields kcs ignores because they are not hashed).
    public static let fieldNames: Set<String> = [
        "to", "value", "data", "operation", "safeTxGas", "baseGas", "dataGas", "gasPrice", "gasToken",
        "refundReceiver", "nonce",
    ]
    /// Fields of the Safe Transaction Service's JSON that are not part of the hash (read or ignored).
    public static let serviceFieldNames: Set<String> = [
        "safe", "safeTxHash", "contractTransactionHash", "proposer", "proposedByDelegate", "isExecuted",
        "isSuccessful", "transactionHash", "dataDecoded", "confirmationsRequired", "confirmations", "signatures",
        "submissionDate", "modified", "blockNumber", "executionDate", "executor", "ethGasPrice", "maxFeePerGas",
        "maxPriorityFeePerGas", "gasUsed", "fee", "origin", "trusted", "txType", "sender", "signature",
    ]

    public init(
        safe: EthereumAddress, chainID: UInt256, version: SafeVersion, to: EthereumAddress, value: UInt256 = .zero,
        data: [UInt8] = [], operation: SafeOperation = .call, safeTxGas: UInt256 = .zero, baseGas: UInt256 = .zero,
        gasPrice: UInt256 = .zero, gasToken: EthereumAddress? = nil, refundReceiver: EthereumAddress? = nil,
        nonce: UInt256
    ) {
        self.safe = safe
        self.chainID = chainID
        self.version = version
        self.to = to
        self.value = value
        self.data = data
        self.operation = operation
        self.safeTxGas = safeTxGas
        self.baseGas = baseGas
        self.gasPrice = gasPrice
        self.gasToken = gasToken ?? Self.zero
        self.refundReceiver = refundReceiver ?? Self.zero
        self.nonce = nonce
    }

    /// Reads a SafeTx map — the console's, or the Safe Transaction Service's JSON, whose numbers
    /// are integers or decimal strings and whose `data` may be null. `to` and `nonce` are
    /// required; absent quantities are 0, absent addresses the zero address; an operation other
    /// than 0 (Call) or 1 (DelegateCall) is refused. The service's `safe` must agree with `safe`.
    public init(
        fields: [String: Any], safe: EthereumAddress?, chainID: UInt256, version: SafeVersion
    ) throws(EthereumError) {
        for key in fields.keys.sorted() where !Self.fieldNames.contains(key) && !Self.serviceFieldNames.contains(key) {
            throw .safeBadField(
                field: key,
                reason: "is not a SafeTx field (expected \(Self.fieldNames.sorted().joined(separator: ", ")))")
        }
        func quantity(_ key: String) throws(EthereumError) -> UInt256 {
            guard let raw = fields[key], !(raw is NSNull) else { return .zero }
            do { return try EthereumTransaction.quantity(raw, field: key) } catch {
                throw .safeBadField(field: key, reason: "must be a whole number, got \(raw)")
            }
        }
        func address(_ key: String, required: Bool = false) throws(EthereumError) -> EthereumAddress? {
            guard let raw = fields[key], !(raw is NSNull) else {
                if required { throw .safeBadField(field: key, reason: "is required") }
                return nil
            }
            guard let text = raw as? String, let a = try? EthereumAddress(text) else {
                throw .safeBadField(field: key, reason: "must be an address, got \(raw)")
            }
            return a
        }
        let given = try address("safe")
        guard let safeAddress = safe ?? given else {
            throw .safeBadField(field: "safe", reason: "is required (--safe ADDR, or the service JSON's \"safe\")")
        }
        if let safe, let given, safe != given {
            throw .safeBadField(
                field: "safe", reason: "is \(given.checksummed), not the --safe \(safe.checksummed) given")
        }
        var data: [UInt8] = []
        if let raw = fields["data"], !(raw is NSNull) {
            guard let text = raw as? String, let bytes = try? Hex.decode(text) else {
                throw .safeBadField(field: "data", reason: "must be hex bytes, got \(raw)")
            }
            data = bytes
        }
        let op = try quantity("operation")
        guard let small = op.uint64, small <= 1, let operation = SafeOperation(rawValue: UInt8(small)) else {
            throw .safeBadField(field: "operation", reason: "must be 0 (Call) or 1 (DelegateCall), got \(op)")
        }
        guard fields["nonce"] != nil else { throw .safeBadField(field: "nonce", reason: "is required") }
        if fields["baseGas"] != nil && fields["dataGas"] != nil {
            throw .safeBadField(field: "baseGas", reason: "is given twice (as baseGas and dataGas)")
        }
        self.init(
            safe: safeAddress, chainID: chainID, version: version, to: try address("to", required: true)!,
            value: try quantity("value"), data: data, operation: operation, safeTxGas: try quantity("safeTxGas"),
            baseGas: fields["dataGas"] != nil ? try quantity("dataGas") : try quantity("baseGas"),
            gasPrice: try quantity("gasPrice"), gasToken: try address("gasToken"),
            refundReceiver: try address("refundReceiver"), nonce: try quantity("nonce"))
    }

    /// The EIP-712 document of this SafeTx, as its version's contracts hash it: JSON text with
    /// sorted keys (what a co-signer or an air-gapped signer is sent).
    public var typedDataJSON: [UInt8] {
        var domainTypes: [[String: String]] = [["name": "verifyingContract", "type": "address"]]
        var domain: [String: Any] = ["verifyingContract": safe.checksummed]
        if version.domainHasChainID {
            domainTypes.insert(["name": "chainId", "type": "uint256"], at: 0)
            domain["chainId"] = chainID.description
        }
        let fields: [(String, String, Any)] = [
            ("to", "address", to.checksummed), ("value", "uint256", value.description),
            ("data", "bytes", Hex.encodePrefixed(data)), ("operation", "uint8", Int(operation.rawValue)),
            ("safeTxGas", "uint256", safeTxGas.description), (version.gasFieldName, "uint256", baseGas.description),
            ("gasPrice", "uint256", gasPrice.description), ("gasToken", "address", gasToken.checksummed),
            ("refundReceiver", "address", refundReceiver.checksummed), ("nonce", "uint256", nonce.description),
        ]
        let document: [String: Any] = [
            "types": [
                "EIP712Domain": domainTypes, "SafeTx": fields.map { ["name": $0.0, "type": $0.1] },
            ],
            "primaryType": "SafeTx", "domain": domain,
            "message": Dictionary(uniqueKeysWithValues: fields.map { ($0.0, $0.2) }),
        ]
        let data = try! JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        return Array(data)
    }

    /// The document parsed (it is built here, so it always parses).
    public var typedData: TypedData { try! TypedData(json: typedDataJSON) }

    /// ERC-8213's Domain Hash, Message Hash and EIP-712 Digest (= safeTxHash).
    public var hashes: (domain: [UInt8], message: [UInt8], safeTxHash: [UInt8]) {
        let t = typedData
        return (try! t.domainSeparator(), try! t.messageHash(), try! t.digest())
    }

    public var safeTxHash: [UInt8] { hashes.safeTxHash }

    /// Reads a SafeTx back from its EIP-712 document (a co-signer's or a review's view): nil when
    /// the document is not a SafeTx of one of the three version bands.
    public static func recognise(
        _ typed: TypedData
    ) -> (
        safe: EthereumAddress, chainID: UInt256?, operation: SafeOperation, gasPrice: UInt256,
        refundReceiver: EthereumAddress
    )? {
        guard typed.primaryType == "SafeTx", case .object(let domain) = typed.domain,
            case .string(let v)? = domain["verifyingContract"], let safe = try? EthereumAddress(v),
            case .object(let m) = typed.message
        else { return nil }
        let number = SigningReview.number
        guard let op = number(m["operation"]), let small = op.uint64, small <= 1,
            let operation = SafeOperation(rawValue: UInt8(small))
        else { return nil }
        var refund = Self.zero
        if case .string(let r)? = m["refundReceiver"], let a = try? EthereumAddress(r) { refund = a }
        return (safe, number(domain["chainId"]), operation, number(m["gasPrice"]) ?? .zero, refund)
    }
}

// MARK: - Owner signatures

/// One owner's part of a Safe's packed signatures.
public struct SafeOwnerSignature: Sendable, Hashable {
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// v 27/28: ECDSA over safeTxHash.
        case eip712
        /// v 31/32: ECDSA over the EIP-191 hash of safeTxHash.
        case ethSign
        /// v 1: the owner approved the hash on chain (or executes).
        case approvedHash
        /// v 0: an EIP-1271 contract signature, with its dynamic part.
        case contract(data: [UInt8])

        public var description: String {
            switch self {
            case .eip712: "EOA (EIP-712)"
            case .ethSign: "EOA (eth_sign)"
            case .approvedHash: "approved hash"
            case .contract: "contract (EIP-1271)"
            }
        }
    }

    public let owner: EthereumAddress
    public let kind: Kind
    /// The 65-byte static part (a contract signature's offset is patched when packed).
    public let staticPart: [UInt8]

    public init(owner: EthereumAddress, kind: Kind, staticPart: [UInt8]) {
        self.owner = owner
        self.kind = kind
        self.staticPart = staticPart
    }

    /// An ECDSA signature over `safeTxHash` (or, `ethSign`, over its EIP-191 hash) in Safe's
    /// encoding: r ‖ s ‖ 27/28, or r ‖ s ‖ 31/32.
    public static func encode(_ signature: EthereumSignature, ethSign: Bool) -> [UInt8] {
        signature.signature.r + signature.signature.s + [(ethSign ? 31 : 27) + signature.recoveryID]
    }

    /// Reads packed signatures as `checkNSignatures` does: 65-byte static parts, then the dynamic
    /// parts of contract signatures; each ECDSA owner is recovered from `safeTxHash`. v 2 (a passkey
    /// form of later Safes) and any other v are refused, naming the entry.
    public static func parse(_ blob: [UInt8], safeTxHash: [UInt8]) throws(EthereumError) -> [SafeOwnerSignature] {
        guard !blob.isEmpty, blob.count >= 65 else {
            throw .safeBadSignature(index: 0, reason: "must be at least 65 bytes (r ‖ s ‖ v), got \(blob.count)")
        }
        var out: [SafeOwnerSignature] = []
        var i = 0
        var staticEnd = blob.count
        while i * 65 + 65 <= staticEnd {
            let part = Array(blob[(i * 65)..<(i * 65 + 65)])
            let r = Array(part[0..<32]), s = Array(part[32..<64]), v = part[64]
            switch v {
            case 27, 28, 31, 32:
                let ethSign = v > 30
                let digest = ethSign ? PersonalMessage.digest(safeTxHash) : safeTxHash
                guard let sig = try? ECDSASignature(r: r, s: s),
                    let key = try? RecoverableSignature(signature: sig, recoveryID: (v - (ethSign ? 31 : 27)))
                        .recoverPublicKey(digest: digest)
                else { throw .safeBadSignature(index: i, reason: "recovers no owner") }
                out.append(
                    SafeOwnerSignature(
                        owner: EthereumAddress(publicKey: key), kind: ethSign ? .ethSign : .eip712, staticPart: part))
            case 1:
                guard r.prefix(12).allSatisfy({ $0 == 0 }), let owner = try? EthereumAddress(bytes: Array(r.suffix(20)))
                else {
                    throw .safeBadSignature(index: i, reason: "an approved hash must hold an address in r")
                }
                out.append(SafeOwnerSignature(owner: owner, kind: .approvedHash, staticPart: part))
            case 0:
                guard r.prefix(12).allSatisfy({ $0 == 0 }),
                    let owner = try? EthereumAddress(bytes: Array(r.suffix(20))),
                    let offset = UInt256(bigEndian: s)?.uint64, offset < UInt64(blob.count),
                    offset + 32 <= UInt64(blob.count)
                else { throw .safeBadSignature(index: i, reason: "a contract signature's offset is out of bounds") }
                let start = Int(offset)
                guard let length = UInt256(bigEndian: Array(blob[start..<(start + 32)]))?.uint64,
                    UInt64(start + 32) + length <= UInt64(blob.count)
                else { throw .safeBadSignature(index: i, reason: "a contract signature's data runs past the end") }
                staticEnd = min(staticEnd, start)
                let data = Array(blob[(start + 32)..<(start + 32 + Int(length))])
                out.append(SafeOwnerSignature(owner: owner, kind: .contract(data: data), staticPart: part))
            case 2:
                throw .safeBadSignature(
                    index: i,
                    reason:
                        "v 2 is a passkey (secp256r1) owner, which the Safe contracts kcs knows (≤ 1.5.0) do not accept"
                )
            default:
                throw .safeBadSignature(index: i, reason: "v must be 0, 1, 27, 28, 31 or 32, got \(v)")
            }
            i += 1
        }
        guard i * 65 == staticEnd else {
            throw .safeBadSignature(index: i, reason: "\(staticEnd - i * 65) bytes left over: not a whole 65-byte part")
        }
        return out
    }

    /// The signatures packed as `execTransaction` takes them: one per owner, owners ascending as
    /// 160-bit numbers (not as EIP-55 text), contract signatures' dynamic parts after every static
    /// part with their offsets written in. Two signatures of one owner are refused.
    public static func pack(_ signatures: [SafeOwnerSignature]) throws(EthereumError) -> [UInt8] {
        let sorted = signatures.sorted { $0.owner.bytes.lexicographicallyPrecedes($1.owner.bytes) }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.owner == b.owner {
            throw .safeBadSignature(index: 0, reason: "owner \(a.owner.checksummed) signed twice")
        }
        var statics: [UInt8] = []
        var dynamic: [UInt8] = []
        for entry in sorted {
            if case .contract(let data) = entry.kind {
                let offset = UInt256(UInt64(65 * sorted.count + dynamic.count)).bigEndianBytes
                statics += Array(entry.staticPart[0..<32]) + offset + [0]
                dynamic += UInt256(UInt64(data.count)).bigEndianBytes + data
            } else {
                statics += entry.staticPart
            }
        }
        return statics + dynamic
    }
}
