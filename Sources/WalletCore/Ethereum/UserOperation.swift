// ERC-4337 user operations (docs/eth-signing.md, "ERC-4337"). Sources: ethereum/ERCs
// ERCS/erc-4337.md; eth-infinitism/account-abstraction contracts/core/UserOperationLib.sol,
// Eip7702Support.sol, SimpleAccount.sol (v0.7 and v0.8 lines). The PackedUserOperation:
//   initCode          factory ‖ factoryData (or empty; 0x7702 padded to 20 bytes: an EIP-7702 account)
//   accountGasLimits  verificationGasLimit (16 bytes) ‖ callGasLimit (16 bytes)
//   gasFees           maxPriorityFeePerGas (16) ‖ maxFeePerGas (16)
//   paymasterAndData  paymaster ‖ verification limit (16) ‖ post-op limit (16) ‖ paymasterData
// v0.7: userOpHash = keccak256(abi.encode(keccak256(abi.encode(sender, nonce, keccak(initCode),
//       keccak(callData), accountGasLimits, preVerificationGas, gasFees, keccak(paymasterAndData))),
//       entryPoint, chainId)); its SimpleAccount signs the EIP-191 hash of it.
// v0.8, v0.9: userOpHash is the EIP-712 digest of PackedUserOperation in the domain
//       ("ERC4337", "1", chainId, entryPoint), signed as it is; an EIP-7702 account's initCode is
//       hashed with its delegate in place of the marker; v0.9 hashes paymasterAndData without a
//       trailing paymaster signature (… ‖ sig ‖ uint16 len ‖ 22e325a297439656).
import Foundation

/// The EntryPoint versions kcs hashes for, by their deployed address.
public enum EntryPointVersion: String, Sendable, Hashable, CaseIterable {
    case v07 = "0.7", v08 = "0.8", v09 = "0.9"

    public var address: EthereumAddress {
        switch self {
        case .v07: try! EthereumAddress("0x0000000071727De22E5E9d8BAf0edAc6f37da032")
        case .v08: try! EthereumAddress("0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108")
        case .v09: try! EthereumAddress("0x433709009B8330FDa32311DF1C2AFA402eD8D009")
        }
    }

    /// The version deployed at `address`, if kcs knows it.
    public static func at(_ address: EthereumAddress) -> EntryPointVersion? {
        allCases.first { $0.address == address }
    }

    /// v0.8 and later sign the EIP-712 digest itself; v0.7's SimpleAccount its EIP-191 hash.
    public var isTypedData: Bool { self != .v07 }
}

/// A user operation in ERC-4337's unpacked JSON-RPC form.
public struct UserOperation: Sendable, Hashable {
    public var sender: EthereumAddress
    public var nonce: UInt256
    public var factory: EthereumAddress?
    public var factoryData: [UInt8] = []
    public var callData: [UInt8] = []
    public var callGasLimit: UInt256 = .zero
    public var verificationGasLimit: UInt256 = .zero
    public var preVerificationGas: UInt256 = .zero
    public var maxFeePerGas: UInt256 = .zero
    public var maxPriorityFeePerGas: UInt256 = .zero
    public var paymaster: EthereumAddress?
    public var paymasterVerificationGasLimit: UInt256 = .zero
    public var paymasterPostOpGasLimit: UInt256 = .zero
    public var paymasterData: [UInt8] = []
    /// The delegate of an EIP-7702 account (its `eip7702Auth.address`), hashed in place of the marker.
    public var eip7702Delegate: EthereumAddress?

    /// `0x7702` padded with zeros to 20 bytes: the initCode marker of an EIP-7702 account.
    public static let eip7702Marker: [UInt8] = [0x77, 0x02] + [UInt8](repeating: 0, count: 18)
    /// v0.9's PAYMASTER_SIG_MAGIC.
    public static let paymasterSignatureMagic: [UInt8] = [0x22, 0xe3, 0x25, 0xa2, 0x97, 0x43, 0x96, 0x56]

    public static let fieldNames: Set<String> = [
        "sender", "nonce", "factory", "factoryData", "callData", "callGasLimit", "verificationGasLimit",
        "preVerificationGas", "maxFeePerGas", "maxPriorityFeePerGas", "paymaster", "paymasterVerificationGasLimit",
        "paymasterPostOpGasLimit", "paymasterData", "signature", "eip7702Auth",
    ]

    public init(sender: EthereumAddress, nonce: UInt256) {
        self.sender = sender
        self.nonce = nonce
    }

    /// Reads the unpacked form (quantities as numbers or strings, bytes as hex; `signature`
    /// ignored: it is not hashed). Gas fields are 128-bit (they are packed in 16 bytes).
    public init(fields: [String: Any]) throws(EthereumError) {
        for key in fields.keys.sorted() where !Self.fieldNames.contains(key) {
            throw .userOpBadField(
                field: key,
                reason: "is not a user operation field (expected \(Self.fieldNames.sorted().joined(separator: ", ")))")
        }
        func address(_ key: String, in map: [String: Any] = fields) throws(EthereumError) -> EthereumAddress? {
            guard let raw = map[key], !(raw is NSNull) else { return nil }
            guard let text = raw as? String, let bytes = try? Hex.decode(text) else {
                throw .userOpBadField(field: key, reason: "must be an address, got \(raw)")
            }
            if bytes.isEmpty { return nil }
            if key == "factory" && bytes == [0x77, 0x02] { return try? EthereumAddress(bytes: Self.eip7702Marker) }
            guard bytes.count == 20, let a = try? EthereumAddress(bytes: bytes) else {
                throw .userOpBadField(field: key, reason: "must be a 20-byte address, got \(bytes.count) bytes")
            }
            return a
        }
        func data(_ key: String) throws(EthereumError) -> [UInt8] {
            guard let raw = fields[key], !(raw is NSNull) else { return [] }
            guard let text = raw as? String, let bytes = try? Hex.decode(text) else {
                throw .userOpBadField(field: key, reason: "must be hex bytes, got \(raw)")
            }
            return bytes
        }
        func quantity(_ key: String, bits: Int = 256) throws(EthereumError) -> UInt256 {
            guard let raw = fields[key], !(raw is NSNull) else { return .zero }
            let q: UInt256
            do { q = try EthereumTransaction.quantity(raw, field: key) } catch {
                throw .userOpBadField(field: key, reason: "must be a whole number, got \(raw)")
            }
            if bits == 128 && q.minimalBigEndianBytes.count > 16 {
                throw .userOpBadField(field: key, reason: "must fit in 128 bits (it is packed in 16 bytes), got \(q)")
            }
            return q
        }
        guard let sender = try address("sender") else { throw .userOpBadField(field: "sender", reason: "is required") }
        self.init(sender: sender, nonce: try quantity("nonce"))
        factory = try address("factory")
        factoryData = try data("factoryData")
        callData = try data("callData")
        callGasLimit = try quantity("callGasLimit", bits: 128)
        verificationGasLimit = try quantity("verificationGasLimit", bits: 128)
        preVerificationGas = try quantity("preVerificationGas")
        maxFeePerGas = try quantity("maxFeePerGas", bits: 128)
        maxPriorityFeePerGas = try quantity("maxPriorityFeePerGas", bits: 128)
        paymaster = try address("paymaster")
        paymasterVerificationGasLimit = try quantity("paymasterVerificationGasLimit", bits: 128)
        paymasterPostOpGasLimit = try quantity("paymasterPostOpGasLimit", bits: 128)
        paymasterData = try data("paymasterData")
        if let auth = fields["eip7702Auth"] as? [String: Any] {
            eip7702Delegate = try address("address", in: auth)
        }
        if isEIP7702 && eip7702Delegate == nil {
            throw .userOpBadField(
                field: "eip7702Auth",
                reason: "must name the account's delegate ({address}): it is hashed in place of 0x7702")
        }
    }

    /// The account is an EIP-7702 account (its factory is the 0x7702 marker).
    public var isEIP7702: Bool { factory?.bytes == Self.eip7702Marker }

    static func two(_ high: UInt256, _ low: UInt256) -> [UInt8] {
        Array(high.bigEndianBytes.suffix(16)) + Array(low.bigEndianBytes.suffix(16))
    }

    public var initCode: [UInt8] { factory.map { $0.bytes + factoryData } ?? [] }
    public var accountGasLimits: [UInt8] { Self.two(verificationGasLimit, callGasLimit) }
    public var gasFees: [UInt8] { Self.two(maxPriorityFeePerGas, maxFeePerGas) }
    public var paymasterAndData: [UInt8] {
        paymaster.map { $0.bytes + Self.two(paymasterVerificationGasLimit, paymasterPostOpGasLimit) + paymasterData }
            ?? []
    }

    /// The initCode as hashed: an EIP-7702 account's delegate in place of the marker (v0.8 on).
    func hashedInitCode(_ version: EntryPointVersion) -> [UInt8] {
        guard version != .v07, isEIP7702, let delegate = eip7702Delegate else { return initCode }
        return delegate.bytes + factoryData
    }

    /// paymasterAndData as hashed: v0.9 drops a trailing paymaster signature, keeping the magic.
    func hashedPaymasterAndData(_ version: EntryPointVersion) -> [UInt8] {
        let p = paymasterAndData
        guard version == .v09, p.count >= 10, Array(p.suffix(8)) == Self.paymasterSignatureMagic else { return p }
        let length = Int(p[p.count - 10]) << 8 | Int(p[p.count - 9])
        guard p.count >= length + 10 else { return p }
        return Array(p.prefix(p.count - length - 10)) + Self.paymasterSignatureMagic
    }

    /// The EIP-712 document of v0.8 and v0.9 (JSON, sorted keys).
    public func typedDataJSON(entryPoint: EthereumAddress, chainID: UInt256, version: EntryPointVersion) -> [UInt8] {
        let types: [(String, String)] = [
            ("sender", "address"), ("nonce", "uint256"), ("initCode", "bytes"), ("callData", "bytes"),
            ("accountGasLimits", "bytes32"), ("preVerificationGas", "uint256"), ("gasFees", "bytes32"),
            ("paymasterAndData", "bytes"),
        ]
        let message: [String: Any] = [
            "sender": sender.checksummed, "nonce": nonce.description,
            "initCode": Hex.encodePrefixed(hashedInitCode(version)), "callData": Hex.encodePrefixed(callData),
            "accountGasLimits": Hex.encodePrefixed(accountGasLimits),
            "preVerificationGas": preVerificationGas.description,
            "gasFees": Hex.encodePrefixed(gasFees),
            "paymasterAndData": Hex.encodePrefixed(hashedPaymasterAndData(version)),
        ]
        let document: [String: Any] = [
            "types": [
                "EIP712Domain": [
                    ["name": "name", "type": "string"], ["name": "version", "type": "string"],
                    ["name": "chainId", "type": "uint256"], ["name": "verifyingContract", "type": "address"],
                ],
                "PackedUserOperation": types.map { ["name": $0.0, "type": $0.1] },
            ],
            "primaryType": "PackedUserOperation",
            "domain": [
                "name": "ERC4337", "version": "1", "chainId": chainID.description,
                "verifyingContract": entryPoint.checksummed,
            ],
            "message": message,
        ]
        return Array(try! JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]))
    }

    /// The userOpHash for `entryPoint` (whose version decides the formula) on `chainID`.
    public func hash(entryPoint: EthereumAddress, chainID: UInt256, version: EntryPointVersion) -> [UInt8] {
        if version.isTypedData {
            return try! TypedData(json: typedDataJSON(entryPoint: entryPoint, chainID: chainID, version: version))
                .digest()
        }
        func word(_ a: EthereumAddress) -> [UInt8] { [UInt8](repeating: 0, count: 12) + a.bytes }
        let inner =
            word(sender) + nonce.bigEndianBytes + Hash.keccak256(initCode) + Hash.keccak256(callData) + accountGasLimits
            + preVerificationGas.bigEndianBytes + gasFees + Hash.keccak256(paymasterAndData)
        return Hash.keccak256(Hash.keccak256(inner) + word(entryPoint) + chainID.bigEndianBytes)
    }

    /// The most the operation can cost: (verification + call + pre-verification + the paymaster's
    /// limits) gas × maxFeePerGas; nil past 2^256.
    public var worstCaseFee: UInt256? {
        var gas = UInt256.zero
        for g in [
            verificationGasLimit, callGasLimit, preVerificationGas, paymasterVerificationGasLimit,
            paymasterPostOpGasLimit,
        ] {
            let (sum, overflow) = gas.addingReportingOverflow(g)
            if overflow { return nil }
            gas = sum
        }
        guard let small = gas.uint64 else { return nil }
        let (fee, overflow) = maxFeePerGas.multipliedReportingOverflow(by: small)
        return overflow ? nil : fee
    }
}
