import Foundation
import WalletCrypto

// Partially signed Bitcoin transactions, version 0 (BIP-174) and 2 (BIP-370), with BIP-371's
// Taproot fields (docs/bitcoin.md, "PSBT"). A PSBT is kept as its records, in the order
// received, so that unknown and proprietary records are written back byte for byte and a
// PSBT read and written unchanged is the same bytes; typed views (PSBTFields.swift) read them.

/// One key-value record of a PSBT map: the key's type, its key data, and the value.
public struct PSBTRecord: Sendable, Equatable {
    public let type: UInt64
    public let keyData: [UInt8]
    public var value: [UInt8]

    public init(type: UInt64, keyData: [UInt8] = [], value: [UInt8]) {
        self.type = type
        self.keyData = keyData
        self.value = value
    }

    /// The whole key: compact-size type ‖ key data.
    public var key: [UInt8] { BitcoinWriter.compactSize(type) + keyData }
}

/// Which map of a PSBT: for errors and reviews.
public enum PSBTMapName: Sendable, Equatable, CustomStringConvertible {
    case global
    case input(Int)
    case output(Int)

    public var description: String {
        switch self {
        case .global: "the global map"
        case .input(let i): "input \(i)"
        case .output(let o): "output \(o)"
        }
    }
}

/// The records of one map, in order.
public struct PSBTMap: Sendable, Equatable {
    public var records: [PSBTRecord]

    public init(_ records: [PSBTRecord] = []) { self.records = records }

    /// The value of the record of `type` with empty key data.
    public func value(_ type: UInt64) -> [UInt8]? { records.first { $0.type == type && $0.keyData.isEmpty }?.value }

    /// Every record of `type`.
    public func all(_ type: UInt64) -> [PSBTRecord] { records.filter { $0.type == type } }

    public func has(_ type: UInt64) -> Bool { records.contains { $0.type == type } }

    /// Sets the record with this key, in place when there is one, else at the end.
    public mutating func set(_ record: PSBTRecord) {
        if let i = records.firstIndex(where: { $0.type == record.type && $0.keyData == record.keyData }) {
            records[i] = record
        } else {
            records.append(record)
        }
    }

    public mutating func remove(_ type: UInt64) { records.removeAll { $0.type == type } }

    var serialized: [UInt8] {
        var out: [UInt8] = []
        for r in records { out += BitcoinWriter.lengthPrefixed(r.key) + BitcoinWriter.lengthPrefixed(r.value) }
        return out + [0x00]
    }
}

/// A PSBT: its version, and the global, input and output maps.
public struct PSBT: Sendable, Equatable {
    public static let magic: [UInt8] = [0x70, 0x73, 0x62, 0x74, 0xff]
    /// The largest PSBT kcs reads: 16 MiB (Bitcoin Core's limit for a PSBT from a file is 100 MB;
    /// a transaction of a few thousand inputs with every previous transaction fits).
    public static let maximumSize = 16 << 20

    /// 0 (BIP-174) or 2 (BIP-370).
    public let version: UInt32
    public var global: PSBTMap
    public var inputs: [PSBTMap]
    public var outputs: [PSBTMap]

    public init(version: UInt32, global: PSBTMap, inputs: [PSBTMap], outputs: [PSBTMap]) {
        self.version = version
        self.global = global
        self.inputs = inputs
        self.outputs = outputs
    }

    /// The binary PSBT, in the version it has.
    public var serialized: [UInt8] {
        var out = Self.magic + global.serialized
        for m in inputs { out += m.serialized }
        for m in outputs { out += m.serialized }
        return out
    }

    /// Base64, the text form every wallet exchanges.
    public var base64: String { Data(serialized).base64EncodedString() }

    /// Reads text or bytes: base64, hex, or the binary form (a `.psbt` file).
    public static func read(_ bytes: [UInt8]) throws(PSBTError) -> PSBT {
        if bytes.starts(with: magic) { return try parse(bytes) }
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw .notPSBT(reason: "neither text nor a PSBT")
        }
        return try read(text: text)
    }

    /// Reads base64 or hex text.
    public static func read(text: String) throws(PSBTError) -> PSBT {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if t.hasPrefix("70736274ff") || t.hasPrefix("0x70736274ff") {
            guard let b = try? Hex.decode(t.hasPrefix("0x") ? String(t.dropFirst(2)) : t) else {
                throw .notPSBT(reason: "the hex has a character that is not a hex digit")
            }
            return try parse(b)
        }
        guard t.hasPrefix("cHNidP8") else {
            throw .notPSBT(reason: "base64 PSBTs start cHNidP8, hex ones 70736274ff")
        }
        guard t.count <= maximumSize / 3 * 4 + 4 else { throw .tooLarge(size: t.count, maximum: maximumSize) }
        guard let d = Data(base64Encoded: t) else { throw .notPSBT(reason: "the base64 is malformed") }
        return try parse(Array(d))
    }

    /// Reads the binary form, checked as BIP-174, BIP-370 and BIP-371 require.
    public static func parse(_ bytes: [UInt8]) throws(PSBTError) -> PSBT {
        guard bytes.count <= maximumSize else { throw .tooLarge(size: bytes.count, maximum: maximumSize) }
        guard bytes.starts(with: magic) else { throw .notPSBT(reason: "it does not start with psbt\\xff") }
        var r = BitcoinReader(bytes)
        _ = try bytesRead { () throws(BitcoinBytesError) in try r.take(5, "magic") }
        let global = try readMap(&r, .global)
        let version: UInt32
        if let v = global.value(0xfb) {
            version = v.reversed().reduce(0) { $0 << 8 | UInt32($1) }
            guard version == 0 || version == 2 else {
                throw .field(map: .global, key: "fb", problem: "PSBT version \(version) is not 0 or 2", offset: nil)
            }
        } else {
            version = 0
        }
        let inputCount: Int
        let outputCount: Int
        if version == 0 {
            guard let txBytes = global.value(0x00) else {
                throw .missing(map: .global, field: "PSBT_GLOBAL_UNSIGNED_TX (00)", version: 0)
            }
            let tx = try bytesRead { () throws(BitcoinBytesError) in
                try BitcoinTransaction.parse(txBytes, allowWitness: false, what: "the unsigned transaction")
            }
            if let i = tx.inputs.firstIndex(where: { !$0.scriptSig.isEmpty }) {
                throw .field(
                    map: .global, key: "00", problem: "the unsigned transaction's input \(i) has a scriptSig",
                    offset: nil)
            }
            (inputCount, outputCount) = (tx.inputs.count, tx.outputs.count)
        } else {
            guard let ic = global.value(0x04), let oc = global.value(0x05) else {
                throw .missing(
                    map: .global,
                    field: global.has(0x04) ? "PSBT_GLOBAL_OUTPUT_COUNT (05)" : "PSBT_GLOBAL_INPUT_COUNT (04)",
                    version: 2)
            }
            (inputCount, outputCount) = (
                try Self.compactValue(ic, .global, "04"), try Self.compactValue(oc, .global, "05")
            )
        }
        var inputs: [PSBTMap] = []
        for i in 0..<inputCount {
            guard !r.atEnd else { throw .truncated(map: .input(i), offset: r.position) }
            inputs.append(try readMap(&r, .input(i)))
        }
        var outputs: [PSBTMap] = []
        for o in 0..<outputCount {
            guard !r.atEnd else { throw .truncated(map: .output(o), offset: r.position) }
            outputs.append(try readMap(&r, .output(o)))
        }
        guard r.atEnd else { throw .trailingBytes(count: r.remaining, offset: r.position) }
        let psbt = PSBT(version: version, global: global, inputs: inputs, outputs: outputs)
        try PSBTValidation.check(psbt)
        return psbt
    }

    static func compactValue(_ v: [UInt8], _ map: PSBTMapName, _ key: String) throws(PSBTError) -> Int {
        var r = BitcoinReader(v)
        guard let n = try? r.compactSize("count"), r.atEnd, n <= UInt64(maximumSize) else {
            throw .field(map: map, key: key, problem: "is not one minimal compact size", offset: nil)
        }
        return Int(n)
    }

    static func bytesRead<R>(_ body: () throws(BitcoinBytesError) -> R) throws(PSBTError) -> R {
        do { return try body() } catch { throw .bytes(error) }
    }

    /// One map: records up to the 0x00 separator; a key seen twice is refused.
    static func readMap(_ r: inout BitcoinReader, _ name: PSBTMapName) throws(PSBTError) -> PSBTMap {
        var map = PSBTMap()
        var keys = Set<[UInt8]>()
        while true {
            let at = r.position
            let keyLength = try bytesRead { () throws(BitcoinBytesError) in try r.length("\(name): a key length") }
            if keyLength == 0 { return map }
            let key = try bytesRead { () throws(BitcoinBytesError) in try r.take(keyLength, "\(name): a key") }
            var kr = BitcoinReader(key, base: at + 1)
            let type = try bytesRead { () throws(BitcoinBytesError) in try kr.compactSize("\(name): a key type") }
            let value = try bytesRead { () throws(BitcoinBytesError) in try r.lengthPrefixed("\(name): a value") }
            guard keys.insert(key).inserted else {
                throw .duplicateKey(map: name, key: Hex.encode(key), offset: at)
            }
            let record = PSBTRecord(type: type, keyData: Array(key[kr.offset...]), value: value)
            do { try PSBTValidation.checkRecord(record, in: name) } catch let e as PSBTError {
                throw e.at(offset: at)
            }
            map.records.append(record)
        }
    }
}
