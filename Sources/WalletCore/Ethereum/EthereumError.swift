import KCSErrors

// Errors of the Ethereum signing core (units, EIP-191, EIP-712, transactions). Each case has a
// stable dotted id and one sentence naming what was expected and what was given.

/// Every way the Ethereum signing core rejects input.
public indirect enum EthereumError: WalletError, Equatable {
    // MARK: units
    /// An empty quantity.
    case unitsEmpty
    /// A quantity with a minus sign; quantities are unsigned.
    case unitsNegative(input: String)
    /// Text that is not a quantity; `reason` says what is wrong.
    case unitsMalformed(input: String, reason: String)
    /// A unit name kcs does not know.
    case unitsUnknownUnit(input: String, unit: String)
    /// More fraction digits than the unit has decimals (the result would not be whole wei).
    case unitsTooManyDecimals(input: String, unit: String, allowed: Int)
    /// A quantity of 2^256 or more.
    case unitsTooLarge(input: String)

    // MARK: signatures and digests
    /// A digest that is not 32 bytes.
    case digestLength(got: Int)
    /// A signature that is not 65 bytes r ‖ s ‖ v.
    case signatureLength(got: Int)
    /// A signature whose v byte is none of 0, 1, 27, 28.
    case signatureBadV(v: UInt8)
    /// r or s is zero or not below the group order.
    case signatureBadScalar(reason: String)
    /// s above n/2: malleable, rejected since EIP-2 unless explicitly allowed.
    case signatureHighS
    /// No public key can be recovered from this signature and digest.
    case signatureUnrecoverable

    // MARK: EIP-712 typed data
    /// The typed-data document is not the expected JSON shape; `reason` names the part.
    case typedDataMalformed(reason: String)
    /// A type name that is neither an EIP-712 atomic/dynamic type nor a defined struct.
    case typedDataUnknownType(type: String, usedBy: String)
    /// A struct field (or domain field) with no value in the data.
    case typedDataMissingField(path: String, type: String)
    /// Struct types that reference each other in a cycle, e.g. ["A", "B", "A"].
    case typedDataCycle(path: [String])
    /// A value that does not fit its type; `reason` says how.
    case typedDataBadValue(path: String, type: String, reason: String)
    /// An integer outside the range of intN / uintN.
    case typedDataIntegerOutOfRange(path: String, type: String, value: String)
    /// A type with more array dimensions, or struct types nested deeper, than `limit`
    /// (`TypedData.maximumArrayDimensions`, `.maximumStructDepth`); `usedBy` names the field's
    /// type (`type of Mail.to`) or the struct (`struct Mail`).
    case typedDataTooDeep(usedBy: String, what: String, limit: Int, given: String)

    // MARK: transactions
    /// A transaction quantity field that is not a valid quantity (negative, ≥ 2^256, …).
    case txQuantity(field: String, error: EthereumError)
    /// A required transaction field is missing.
    case txMissingField(field: String)
    /// A field whose value cannot be used; `reason` says why.
    case txBadField(field: String, reason: String)
    /// Both `gasPrice` and EIP-1559 fee caps were given.
    case txGasPriceAndFeeCaps
    /// A chain id of 0 (EIP-155 requires a real chain id; typed transactions too).
    case txChainIDZero
    /// An envelope type byte other than legacy, 0x01 and 0x02.
    case txUnknownType(byte: UInt8)
    /// The raw transaction is empty.
    case txEmpty
    /// The raw transaction hex is unusable.
    case txBadHex(reason: String)
    /// The RLP body is malformed.
    case txRLP(RLPError)
    /// The RLP list has the wrong number of fields for its type.
    case txFieldCount(kind: String, expected: Int, got: Int)
    /// A legacy v that is neither 27/28 nor ≥ 35 (EIP-155).
    case txBadV(v: String)
    /// A signed transaction that carries no signature (r = s = 0).
    case txUnsigned
    /// An EIP-7702 authorization field out of its bounds (docs/eth-signing.md).
    case authBadField(field: String, reason: String)
    /// A SafeTx field that cannot be used (docs/eth-signing.md, "Safe").
    case safeBadField(field: String, reason: String)
    /// A Safe owner signature that cannot be read.
    case safeBadSignature(index: Int, reason: String)
    /// A user operation field that cannot be used (ERC-4337).
    case userOpBadField(field: String, reason: String)
    /// ABI text or call data that cannot be read (ERC-7730 descriptors).
    case abiBad(reason: String)

    /// Stable identifier of the case.
    public var id: String {
        switch self {
        case .unitsEmpty: "eth.units.empty"
        case .unitsNegative: "eth.units.negative"
        case .unitsMalformed: "eth.units.malformed"
        case .unitsUnknownUnit: "eth.units.unknownUnit"
        case .unitsTooManyDecimals: "eth.units.tooManyDecimals"
        case .unitsTooLarge: "eth.units.tooLarge"
        case .digestLength: "eth.digest.length"
        case .signatureLength: "eth.signature.length"
        case .signatureBadV: "eth.signature.badV"
        case .signatureBadScalar: "eth.signature.badScalar"
        case .signatureHighS: "eth.signature.highS"
        case .signatureUnrecoverable: "eth.signature.unrecoverable"
        case .typedDataMalformed: "eth.typedData.malformed"
        case .typedDataUnknownType: "eth.typedData.unknownType"
        case .typedDataMissingField: "eth.typedData.missingField"
        case .typedDataCycle: "eth.typedData.cycle"
        case .typedDataBadValue: "eth.typedData.badValue"
        case .typedDataIntegerOutOfRange: "eth.typedData.integerOutOfRange"
        case .typedDataTooDeep: "eth.typedData.tooDeep"
        case .txQuantity: "eth.tx.quantity"
        case .txMissingField: "eth.tx.missingField"
        case .txBadField: "eth.tx.badField"
        case .txGasPriceAndFeeCaps: "eth.tx.gasPriceAndFeeCaps"
        case .txChainIDZero: "eth.tx.chainIdZero"
        case .txUnknownType: "eth.tx.unknownType"
        case .txEmpty: "eth.tx.empty"
        case .txBadHex: "eth.tx.badHex"
        case .txRLP: "eth.tx.rlp"
        case .txFieldCount: "eth.tx.fieldCount"
        case .txBadV: "eth.tx.badV"
        case .txUnsigned: "eth.tx.unsigned"
        case .authBadField: "eth.auth.badField"
        case .safeBadField: "eth.safe.badField"
        case .safeBadSignature: "eth.safe.badSignature"
        case .userOpBadField: "eth.userop.badField"
        case .abiBad: "eth.abi.bad"
        }
    }

    /// One sentence: what was expected, what was given.
    public var description: String {
        switch self {
        case .unitsEmpty:
            "quantity must be a number such as 21000, \"20 gwei\", \"1.5 ether\" or 0x5208, got an empty string"
        case .unitsNegative(let input):
            "quantity must not be negative, got \(JSONString.quoted(input))"
        case .unitsMalformed(let input, let reason):
            "quantity must be a number such as 21000, \"20 gwei\", \"1.5 ether\" or 0x5208, got \(JSONString.quoted(input)) (\(reason))"
        case .unitsUnknownUnit(let input, let unit):
            "quantity unit must be one of \(EthereumUnits.units.map(\.name).joined(separator: ", ")),"
                + " got \(JSONString.quoted(unit)) in \(JSONString.quoted(input))"
        case .unitsTooManyDecimals(let input, let unit, let allowed):
            "quantity in \(unit) allows at most \(allowed) decimal places (a whole number of wei),"
                + " got \(JSONString.quoted(input))"
        case .unitsTooLarge(let input):
            "quantity must be below 2^256, got \(JSONString.quoted(input))"
        case .digestLength(let got):
            "digest must be 32 bytes, got \(got)"
        case .signatureLength(let got):
            "signature must be 65 bytes (r ‖ s ‖ v), got \(got)"
        case .signatureBadV(let v):
            "signature v must be 0, 1, 27 or 28, got \(v)"
        case .signatureBadScalar(let reason):
            "signature r and s must be in 1…n-1, got \(reason)"
        case .signatureHighS:
            "signature s must be at most n/2 (low-S, EIP-2), got a high-S signature"
        case .signatureUnrecoverable:
            "no public key can be recovered from this signature and digest"
        case .typedDataMalformed(let reason):
            "typed data must be an EIP-712 document {types, primaryType, domain, message}: \(reason)"
        case .typedDataUnknownType(let type, let usedBy):
            "typed data uses unknown type \(JSONString.quoted(type)) in \(usedBy);"
                + " it is neither an EIP-712 atomic type nor defined in types"
        case .typedDataMissingField(let path, let type):
            "typed data must give a value for \(path) (\(type)), got none"
        case .typedDataCycle(let path):
            "typed data types must not reference themselves, got the cycle \(path.joined(separator: " → "))"
        case .typedDataBadValue(let path, let type, let reason):
            "typed data value \(path) must be a valid \(type), got \(reason)"
        case .typedDataIntegerOutOfRange(let path, let type, let value):
            "typed data value \(path) must fit in \(type), got \(value)"
        case .typedDataTooDeep(let usedBy, let what, let limit, let given):
            "typed data \(usedBy) must have at most \(limit) \(what), got \(given)"
        case .txQuantity(let field, let error):
            "transaction \(field): \(error.description)"
        case .txMissingField(let field):
            "transaction must have a \(field)"
        case .txBadField(let field, let reason):
            "transaction \(field) \(reason)"
        case .txGasPriceAndFeeCaps:
            "transaction must have either gasPrice (legacy, EIP-2930) or maxFeePerGas/maxPriorityFeePerGas"
                + " (EIP-1559), got both"
        case .txChainIDZero:
            "transaction chain id must not be 0"
        case .txUnknownType(let byte):
            "raw transaction must start with an RLP list (legacy), 0x01 (EIP-2930), 0x02 (EIP-1559),"
                + " 0x03 (EIP-4844) or 0x04 (EIP-7702), got type byte 0x\(Hex.encode([byte]))"
        case .txEmpty:
            "raw transaction must not be empty"
        case .txBadHex(let reason):
            "raw transaction must be hex: \(reason)"
        case .txRLP(let error):
            "raw transaction is malformed: \(error.description)"
        case .txFieldCount(let kind, let expected, let got):
            "\(kind) transaction must have \(expected) RLP fields, got \(got)"
        case .txBadV(let v):
            "legacy transaction v must be 27, 28 or chainId*2+35/36 (EIP-155), got \(v)"
        case .txUnsigned:
            "raw transaction must carry a signature, got r = s = 0"
        case .authBadField(let field, let reason):
            "authorization \(field) \(reason)"
        case .safeBadField(let field, let reason):
            "SafeTx \(field) \(reason)"
        case .safeBadSignature(let index, let reason):
            "Safe signature \(index) \(reason)"
        case .userOpBadField(let field, let reason):
            "user operation \(field) \(reason)"
        case .abiBad(let reason):
            "ABI: \(reason)"
        }
    }
}
