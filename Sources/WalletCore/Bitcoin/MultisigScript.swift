import WalletCrypto

// `OP_k <key>… OP_n OP_CHECKMULTISIG`: the script of a k-of-n multisig (BIP-11), as P2WSH,
// P2SH-P2WSH and P2SH wrap it; descriptors' `sortedmulti` orders the keys (BIP-67, BIP-383).

public struct MultisigScript: Sendable, Equatable {
    public let threshold: Int
    public let keys: [[UInt8]]

    public init(threshold: Int, keys: [[UInt8]]) {
        self.threshold = threshold
        self.keys = keys
    }

    /// Reads a multisig script; nil for any other script.
    public init?(_ script: [UInt8]) {
        guard let ops = try? BitcoinScript.operations(script), ops.count >= 4,
            ops.last?.opcode == 0xae,
            let k = Self.number(ops[0]), let n = Self.number(ops[ops.count - 2]),
            n == ops.count - 3, k >= 1, k <= n
        else { return nil }
        var keys: [[UInt8]] = []
        for op in ops[1..<(ops.count - 2)] {
            guard let d = op.data, d.count == 33 || d.count == 65 else { return nil }
            keys.append(d)
        }
        threshold = k
        self.keys = keys
    }

    /// A count as CHECKMULTISIG reads it: OP_1…OP_16, or a one-byte push of 17 to 20.
    static func number(_ op: BitcoinScript.Operation) -> Int? {
        if (0x51...0x60).contains(op.opcode) { return Int(op.opcode) - 0x50 }
        if op.opcode == 0x01, let d = op.data, d.count == 1, (17...20).contains(d[0]) { return Int(d[0]) }
        return nil
    }

    /// OP_n for 1…16; a minimal push of the number above (BIP-62).
    static func encode(_ n: Int) -> [UInt8] { n <= 16 ? [UInt8(0x50 + n)] : [0x01, UInt8(n)] }

    /// The script: k, each key pushed, n, OP_CHECKMULTISIG.
    public var script: [UInt8] {
        Self.encode(threshold) + keys.flatMap(BitcoinScript.push) + Self.encode(keys.count) + [0xae]
    }

    /// BIP-67's order: the keys sorted by their bytes.
    public var isSorted: Bool { keys == keys.sorted { $0.lexicographicallyPrecedes($1) } }

    /// `2-of-3`.
    public var shape: String { "\(threshold)-of-\(keys.count)" }
}
