// EIP-681 payment requests: `ethereum:[pay-]ADDRESS[@CHAIN][/FUNCTION][?KEY=VALUE&…]`, as a
// wallet shows them in a QR code. Source: ethereum/EIPs EIPS/eip-681.md ("Syntax", "Semantics").
// `value`, `gas`, `gasLimit` and `gasPrice` are numbers in atomic units, which may be written in
// scientific notation (`2.014e18`); they must come out whole. ENS names are not resolved: kcs
// reads an address written out.

/// A payment request read from an `ethereum:` URI.
public struct PaymentRequest: Sendable, Equatable {
    /// One `key=value` of the query, in order.
    public struct Parameter: Sendable, Equatable {
        public let key: String
        public let value: String
    }

    /// The recipient of a plain payment, or the contract a function is called on.
    public let target: EthereumAddress
    public let chainID: UInt256?
    /// The function to call (`transfer` for an ERC-20 payment), if any.
    public let function: String?
    public let parameters: [Parameter]
    /// The `value` parameter, in wei.
    public let value: UInt256?

    /// The parameter `key`'s text, if given.
    public func parameter(_ key: String) -> String? { parameters.first { $0.key == key }?.value }

    /// Parses an `ethereum:` URI; nil when `text` is not one (another kind of text), an error
    /// when it is one that is malformed.
    public static func parse(_ text: String) throws(EthereumError) -> PaymentRequest? {
        guard text.lowercased().hasPrefix("ethereum:") else { return nil }
        var rest = Substring(text.dropFirst("ethereum:".count))
        if rest.hasPrefix("pay-") { rest = rest.dropFirst(4) }
        let addressText = rest.prefix { $0 != "@" && $0 != "/" && $0 != "?" }
        rest = rest.dropFirst(addressText.count)
        let target: EthereumAddress
        do { target = try EthereumAddress(String(addressText)) } catch {
            throw .txBadField(
                field: "EIP-681 address",
                reason: "must be a 0x address (ENS names are not resolved): \(error.description)")
        }
        var chainID: UInt256?
        if rest.hasPrefix("@") {
            let digits = rest.dropFirst().prefix { $0 != "/" && $0 != "?" }
            rest = rest.dropFirst(1 + digits.count)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let id = UInt256(decimal: String(digits)),
                !id.isZero, id <= UInt256(EthereumTransaction.maximumChainID)
            else {
                throw .txBadField(
                    field: "EIP-681 chain id",
                    reason: "must be a decimal chain id of 1 to \(EthereumTransaction.maximumChainID), got \(digits)")
            }
            chainID = id
        }
        var function: String?
        if rest.hasPrefix("/") {
            let name = rest.dropFirst().prefix { $0 != "?" }
            rest = rest.dropFirst(1 + name.count)
            guard !name.isEmpty else { throw .txBadField(field: "EIP-681 function", reason: "must be a name after /") }
            function = String(name)
        }
        var parameters: [Parameter] = []
        if rest.hasPrefix("?") {
            for pair in rest.dropFirst().split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else {
                    throw .txBadField(field: "EIP-681 parameter", reason: "must be key=value, got \(pair)")
                }
                let value = String(parts[1]).removingPercentEncodingKeepingText
                guard !parameters.contains(where: { $0.key == parts[0] }) else {
                    throw .txBadField(
                        field: "EIP-681 parameter",
                        reason: "\(parts[0]) is given twice (one reader would take the first, another the last)")
                }
                parameters.append(Parameter(key: String(parts[0]), value: value))
            }
        } else if !rest.isEmpty {
            throw .txBadField(field: "EIP-681 URI", reason: "has \(rest) after its address")
        }
        var value: UInt256?
        for p in parameters where ["value", "gas", "gasLimit", "gasPrice"].contains(p.key) {
            let n = try number(p.value, key: p.key)
            if p.key == "value" { value = n }
        }
        return PaymentRequest(
            target: target, chainID: chainID, function: function, parameters: parameters, value: value)
    }

    /// An EIP-681 number: digits with an optional fraction and exponent, a whole amount in the end.
    static func number(_ text: String, key: String) throws(EthereumError) -> UInt256 {
        let parts = text.lowercased().split(separator: "e", maxSplits: 1, omittingEmptySubsequences: false)
        let mantissa = parts[0], exponentText = parts.count == 2 ? parts[1] : "0"
        let halves = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = halves[0]
        // Trailing zeros of the fraction say nothing: 1.50e1 is 15.
        let fraction = halves.count == 2 ? Substring(String(halves[1].reversed().drop { $0 == "0" }.reversed())) : ""
        guard !whole.isEmpty || !fraction.isEmpty, (whole + fraction).allSatisfy({ $0.isASCII && $0.isNumber }),
            let exponent = Int(exponentText), (0...77).contains(exponent), fraction.count <= exponent
        else {
            throw .txBadField(
                field: "EIP-681 \(key)", reason: "must be a whole number of atomic units (like 2.014e18), got \(text)")
        }
        let significant = String(whole + fraction) + String(repeating: "0", count: exponent - fraction.count)
        let digits = significant.drop { $0 == "0" }
        guard let n = UInt256(decimal: digits.isEmpty ? "0" : String(digits)) else {
            throw .txBadField(field: "EIP-681 \(key)", reason: "must be below 2^256, got \(text)")
        }
        return n
    }
}

extension String {
    /// `%XX` escapes decoded where they make UTF-8; the text as it is otherwise.
    var removingPercentEncodingKeepingText: String {
        guard contains("%") else { return self }
        var bytes: [UInt8] = []
        let u = Array(utf8)
        var k = 0
        while k < u.count {
            if u[k] == 0x25, k + 2 < u.count,
                let b = UInt8(String(decoding: u[(k + 1)...(k + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(b)
                k += 3
            } else {
                bytes.append(u[k])
                k += 1
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? self
    }
}
