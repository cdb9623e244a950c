import WalletCrypto

// Output scripts kcs recognises and builds (docs/bitcoin.md, "Scripts"): the four single-key
// kinds, P2SH and P2WSH (whose multisig redeem scripts MultisigScript reads), OP_RETURN data;
// addresses to and from scripts for a chain.

/// What an output script is, by its template.
public enum ScriptTemplate: Sendable, Equatable {
    /// `76 a9 14 <hash160> 88 ac`
    case p2pkh(hash: [UInt8])
    /// `a9 14 <hash160> 87`
    case p2sh(hash: [UInt8])
    /// `00 14 <hash160>`
    case p2wpkh(hash: [UInt8])
    /// `00 20 <sha256>`
    case p2wsh(hash: [UInt8])
    /// `51 20 <x-only output key>`
    case p2tr(outputKey: [UInt8])
    /// `6a …`: data, provably unspendable.
    case opReturn(data: [UInt8])
    /// A witness program of a version kcs cannot spend (2–16), or anything else.
    case other

    public init(_ s: [UInt8]) {
        if s.count == 25, s[0] == 0x76, s[1] == 0xa9, s[2] == 0x14, s[23] == 0x88, s[24] == 0xac {
            self = .p2pkh(hash: Array(s[3..<23]))
        } else if s.count == 23, s[0] == 0xa9, s[1] == 0x14, s[22] == 0x87 {
            self = .p2sh(hash: Array(s[2..<22]))
        } else if s.count == 22, s[0] == 0x00, s[1] == 0x14 {
            self = .p2wpkh(hash: Array(s[2...]))
        } else if s.count == 34, s[0] == 0x00, s[1] == 0x20 {
            self = .p2wsh(hash: Array(s[2...]))
        } else if s.count == 34, s[0] == 0x51, s[1] == 0x20 {
            self = .p2tr(outputKey: Array(s[2...]))
        } else if let first = s.first, first == 0x6a {
            self = .opReturn(data: Self.pushedData(Array(s.dropFirst())))
        } else {
            self = .other
        }
    }

    /// The short name shown in reviews.
    public var name: String {
        switch self {
        case .p2pkh: "p2pkh"
        case .p2sh: "p2sh"
        case .p2wpkh: "p2wpkh"
        case .p2wsh: "p2wsh"
        case .p2tr: "p2tr"
        case .opReturn: "op_return"
        case .other: "unknown"
        }
    }

    /// The bytes pushed by a script of pushes (OP_RETURN's data), concatenated; the bytes
    /// themselves when they are not pushes.
    static func pushedData(_ s: [UInt8]) -> [UInt8] {
        guard let ops = try? BitcoinScript.operations(s), ops.allSatisfy({ $0.data != nil }) else { return s }
        return ops.flatMap { $0.data ?? [] }
    }
}

/// Script building and reading.
public enum BitcoinScript {
    public static func p2pkh(_ hash: [UInt8]) -> [UInt8] { [0x76, 0xa9, 0x14] + hash + [0x88, 0xac] }
    public static func p2sh(_ hash: [UInt8]) -> [UInt8] { [0xa9, 0x14] + hash + [0x87] }
    public static func p2wpkh(_ hash: [UInt8]) -> [UInt8] { [0x00, 0x14] + hash }
    public static func p2wsh(_ hash: [UInt8]) -> [UInt8] { [0x00, 0x20] + hash }
    public static func p2tr(_ outputKey: [UInt8]) -> [UInt8] { [0x51, 0x20] + outputKey }

    /// The output script of `kind` for `key` (P2TR: the BIP-86 output key, no script tree).
    public static func output(_ kind: BitcoinAddressKind, publicKey: PublicKey) throws -> [UInt8] {
        let h = Hash.hash160(publicKey.compressed)
        switch kind {
        case .p2pkh: return p2pkh(h)
        case .p2shP2wpkh: return p2sh(Hash.hash160(p2wpkh(h)))
        case .p2wpkh: return p2wpkh(h)
        case .p2tr: return p2tr(try publicKey.xOnly.key.taprootTweaked().bytes)
        }
    }

    /// One operation of a script: its opcode, and the data it pushes when it is a push.
    public struct Operation: Equatable {
        public let opcode: UInt8
        public let data: [UInt8]?
        /// Where the operation's bytes are in the script.
        public var range: Range<Int> = 0..<0
    }

    /// The operations of `script`; a push that runs past the end is refused.
    public static func operations(_ script: [UInt8]) throws(BitcoinBytesError) -> [Operation] {
        var r = BitcoinReader(script)
        var ops: [Operation] = []
        while !r.atEnd {
            let start = r.offset
            let op = try r.byte("script opcode")
            switch op {
            case 0x01...0x4b: ops.append(Operation(opcode: op, data: try r.take(Int(op), "script push")))
            case 0x4c:
                ops.append(Operation(opcode: op, data: try r.take(Int(try r.byte("OP_PUSHDATA1")), "script push")))
            case 0x4d:
                let n = try r.take(2, "OP_PUSHDATA2")
                ops.append(Operation(opcode: op, data: try r.take(Int(n[0]) | Int(n[1]) << 8, "script push")))
            case 0x4e:
                ops.append(Operation(opcode: op, data: try r.take(Int(try r.uint32("OP_PUSHDATA4")), "script push")))
            case 0x00: ops.append(Operation(opcode: op, data: []))
            default: ops.append(Operation(opcode: op, data: nil))
            }
            ops[ops.count - 1].range = start..<r.offset
        }
        return ops
    }

    /// The minimal push of `data` (BIP-62), as a scriptSig carries signatures, keys and scripts.
    public static func push(_ data: [UInt8]) -> [UInt8] {
        switch data.count {
        case 0: return [0x00]
        case 1...0x4b: return [UInt8(data.count)] + data
        case 0x4c...0xff: return [0x4c, UInt8(data.count)] + data
        default: return [0x4d, UInt8(data.count & 0xff), UInt8(data.count >> 8)] + data
        }
    }

    /// `script` with every OP_CODESEPARATOR removed (the legacy scriptCode).
    public static func removingCodeSeparators(_ script: [UInt8]) -> [UInt8] {
        guard script.contains(0xab), let ops = try? operations(script) else { return script }
        return ops.filter { $0.opcode != 0xab }.flatMap { script[$0.range] }
    }
}

/// The Bitcoin chains kcs signs for, as Bitcoin Core names them (`--chain`).
public enum BitcoinChain: String, Sendable, CaseIterable, CustomStringConvertible {
    case main, test, testnet4, signet, regtest

    /// Address parameters; every test chain shares testnet's versions, regtest its own HRP.
    public var network: BitcoinNetwork {
        switch self {
        case .main: .bitcoin
        case .test, .testnet4, .signet: .testnet
        case .regtest: .regtest
        }
    }

    /// BIP-44 coin type: 0 on main, 1 on every test chain.
    public var coinType: UInt32 { self == .main ? 0 : 1 }
    public var isMainnet: Bool { self == .main }

    /// As a review names it: `Bitcoin mainnet`, `Bitcoin testnet3`, `Bitcoin signet`.
    public var displayName: String {
        switch self {
        case .main: "Bitcoin mainnet"
        case .test: "Bitcoin testnet3"
        case .testnet4: "Bitcoin testnet4"
        case .signet: "Bitcoin signet"
        case .regtest: "Bitcoin regtest"
        }
    }
    public var description: String { rawValue }

    /// The chain `name` names: Core's names, and `bitcoin`/`mainnet`/`testnet`/`testnet3`.
    public init?(named name: String) {
        switch name.lowercased() {
        case "main", "mainnet", "bitcoin": self = .main
        case "test", "testnet", "testnet3": self = .test
        default:
            guard let c = BitcoinChain(rawValue: name.lowercased()) else { return nil }
            self = c
        }
    }
}

extension BitcoinNetwork {
    /// Regtest: testnet's Base58 versions, HRP `bcrt`.
    public static let regtest = BitcoinNetwork(
        name: "regtest", coinType: 1, p2pkhVersion: 0x6f, p2shVersion: 0xc4, bech32HRP: "bcrt")

    /// The address an output script pays, on this network; nil for OP_RETURN and unknown scripts.
    public func address(of script: [UInt8]) -> String? {
        let segwit = { (v: UInt8, p: [UInt8]) -> String? in
            self.bech32HRP.flatMap { try? SegwitAddress(hrp: $0, version: v, program: p).string }
        }
        switch ScriptTemplate(script) {
        case .p2pkh(let h): return Base58Check.encode([p2pkhVersion] + h)
        case .p2sh(let h): return Base58Check.encode([p2shVersion] + h)
        case .p2wpkh(let h), .p2wsh(let h): return segwit(0, h)
        case .p2tr(let k): return segwit(1, k)
        case .opReturn, .other:
            if script.count >= 4, script.count <= 42, (0x51...0x60).contains(script[0]),
                Int(script[1]) == script.count - 2
            {
                return segwit(script[0] - 0x50, Array(script[2...]))
            }
            return nil
        }
    }

    /// The output script of `address` on this network: refused, naming why, when it is not an
    /// address of this network.
    public func script(of address: String) throws(BitcoinAddressError) -> [UInt8] {
        if let hrp = bech32HRP, address.lowercased().hasPrefix(hrp + "1") {
            let a: SegwitAddress
            do { a = try SegwitAddress(address, acceptingHRPs: [hrp]) } catch {
                throw .malformed(address: address, reason: error.description)
            }
            return [a.version == 0 ? 0x00 : 0x50 + a.version, UInt8(a.program.count)] + a.program
        }
        if let payload = try? Base58Check.decode(address), payload.count == 21 {
            if payload[0] == p2pkhVersion { return BitcoinScript.p2pkh(Array(payload[1...])) }
            if payload[0] == p2shVersion { return BitcoinScript.p2sh(Array(payload[1...])) }
            throw .otherNetwork(address: address, network: name)
        }
        for other in [BitcoinNetwork.bitcoin, .testnet, .regtest] where other != self {
            if (try? other.script(of: address)) != nil { throw .otherNetwork(address: address, network: name) }
        }
        throw .malformed(address: address, reason: "neither a Base58Check nor a bech32 address")
    }
}

/// An address that is not one of the chain's.
public enum BitcoinAddressError: WalletError, Equatable {
    case malformed(address: String, reason: String)
    case otherNetwork(address: String, network: String)

    public var id: String {
        switch self {
        case .malformed: "bitcoin.address.malformed"
        case .otherNetwork: "bitcoin.address.otherNetwork"
        }
    }

    public var description: String {
        switch self {
        case .malformed(let a, let reason): "\(a) is not a Bitcoin address: \(reason)"
        case .otherNetwork(let a, let n): "\(a) is an address of another chain than \(n)"
        }
    }
}
