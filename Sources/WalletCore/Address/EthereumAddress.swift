/// Errors for address parsing and encoding.
public enum AddressError: WalletError, Equatable {
    /// The text is not 0x followed by 40 hex digits.
    case ethereumMalformed(given: String, reason: String)
    /// Mixed case whose EIP-55 checksum does not match; `expected` is the correct spelling.
    case ethereumBadChecksum(given: String, expected: String)
    /// The coin has no address encoder in kcs (derivation still works).
    case unsupportedCoin(symbol: String)
    /// The address kind cannot be made for this coin (e.g. bech32 for Dogecoin).
    case unsupportedKind(coin: String, kind: String)
    /// The coin's keys are on another curve than secp256k1.
    case otherCurve(symbol: String, curve: String, coinType: UInt32)

    public var id: String {
        switch self {
        case .ethereumMalformed: "address.ethereum.malformed"
        case .ethereumBadChecksum: "address.ethereum.badChecksum"
        case .unsupportedCoin: "address.unsupportedCoin"
        case .unsupportedKind: "address.unsupportedKind"
        case .otherCurve: "address.otherCurve"
        }
    }

    public var description: String {
        switch self {
        case .ethereumMalformed(let given, let reason):
            "Ethereum address must be 0x followed by 40 hex digits, got \"\(given)\" (\(reason))"
        case .ethereumBadChecksum(let given, let expected):
            "Ethereum address \(given) has a wrong EIP-55 checksum (mixed case); the checksummed form is \(expected)"
        case .unsupportedCoin(let symbol):
            "address format for \(symbol) is not supported (derivation still works)"
        case .unsupportedKind(let coin, let kind):
            "\(coin) has no \(kind) address"
        case .otherCurve(let symbol, let curve, let coinType):
            "\(symbol) keys are on \(curve), not secp256k1: kcs and the Keycard make no \(symbol) keys or addresses; "
                + "its SLIP-44 path starts m/44'/\(coinType)' for a wallet that does"
        }
    }
}

/// A 20-byte Ethereum address: the last 20 bytes of Keccak-256 of the 64-byte
/// uncompressed public key (without the 04 prefix). Printed with the EIP-55
/// mixed-case checksum.
public struct EthereumAddress: Sendable, Hashable, CustomStringConvertible {
    /// The 20 address bytes.
    public let bytes: [UInt8]

    /// The address of `publicKey`.
    public init(publicKey: PublicKey) {
        let point = publicKey.uncompressed
        bytes = Array(Hash.keccak256(point[1...]).suffix(20))
    }

    /// Wraps 20 raw bytes.
    public init(bytes: [UInt8]) throws(AddressError) {
        guard bytes.count == 20 else {
            throw .ethereumMalformed(given: Hex.encodePrefixed(bytes), reason: "\(bytes.count) bytes instead of 20")
        }
        self.bytes = bytes
    }

    /// Parses `0x` + 40 hex digits. All-lower and all-upper case are accepted as
    /// unchecksummed; mixed case must carry a correct EIP-55 checksum.
    public init(_ text: String) throws(AddressError) {
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else {
            throw .ethereumMalformed(given: text, reason: "missing 0x prefix")
        }
        let digits = text.dropFirst(2)
        guard digits.count == 40 else {
            throw .ethereumMalformed(given: text, reason: "\(digits.count) hex digits instead of 40")
        }
        let decoded: [UInt8]
        do { decoded = try Hex.decode(text) } catch {
            throw .ethereumMalformed(given: text, reason: error.description)
        }
        bytes = decoded
        let hasLower = digits.contains(where: { $0.isLowercase })
        let hasUpper = digits.contains(where: { $0.isUppercase })
        if hasLower && hasUpper {
            let expected = checksummed
            guard expected == "0x" + digits else {
                throw .ethereumBadChecksum(given: text, expected: expected)
            }
        }
    }

    /// EIP-55: hex digit i is upper-cased when nibble i of Keccak-256(lower-case hex) is ≥ 8.
    public var checksummed: String {
        let lower = Array(Hex.encode(bytes).utf8)
        let hash = Hash.keccak256(lower)
        var out = [UInt8]()
        out.reserveCapacity(42)
        out.append(contentsOf: "0x".utf8)
        for (i, c) in lower.enumerated() {
            let nibble = i & 1 == 0 ? hash[i >> 1] >> 4 : hash[i >> 1] & 0x0f
            out.append(c >= UInt8(ascii: "a") && nibble >= 8 ? c - 32 : c)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The EIP-55 form.
    public var description: String { checksummed }
}
