// What each level of a derivation path means (`path.explain`): BIP-43 gives the first level
// to a "purpose", and the purpose fixes the layout below it — BIP-44/49/84/86
// (purpose / coin type / account / change / address index), BIP-45 and BIP-48 multisig,
// EIP-1581 non-wallet keys under 43'/60'/1581', and BIP-32's own default layout under 0'.

/// One level of a path, explained.
public struct PathLevel: Sendable, Hashable {
    /// 1 for the first level below `m`.
    public let depth: Int
    /// The index at this level.
    public let component: ChildIndex
    /// What the layout calls this level: `purpose`, `coin type`, `account`, `change`,
    /// `address index`, … or `child` when the layout is unknown.
    public let role: String
    /// What the value at this level means, with any departure from the layout noted.
    public let meaning: String

    /// The 32-bit value that goes into the HMAC data and the serialised key.
    public var raw: UInt32 { component.raw }
}

/// The level-by-level reading of derivation paths.
public enum PathExplanation {
    /// A purpose registered under BIP-43 (or BIP-32's own `0'`).
    public struct Purpose: Sendable, Hashable {
        public let number: UInt32
        /// `BIP-44`, `BIP-84`, …
        public let standard: String
        /// What wallets use it for.
        public let summary: String
        /// The roles of the levels below `m`, purpose first.
        public let layout: [String]
    }

    /// The purposes kcs can explain.
    public static let purposes: [Purpose] = [
        Purpose(
            number: 0, standard: "BIP-32",
            summary: "BIP-32's default wallet layout (account / chain / address, before BIP-43)",
            layout: ["account", "chain", "address index"]),
        Purpose(
            number: 43, standard: "BIP-43",
            summary: "BIP-43 purpose field; with 60'/1581' below it, EIP-1581 non-wallet keys",
            layout: ["purpose", "coin type", "subpurpose", "key type", "key index"]),
        Purpose(
            number: 44, standard: "BIP-44",
            summary: "BIP-44 multi-account hierarchy (P2PKH for Bitcoin; Ethereum wallets use it too)",
            layout: ["purpose", "coin type", "account", "change", "address index"]),
        Purpose(
            number: 45, standard: "BIP-45", summary: "BIP-45 multisig (P2SH, shared by cosigners)",
            layout: ["purpose", "cosigner index", "change", "address index"]),
        Purpose(
            number: 48, standard: "BIP-48", summary: "BIP-48 multisig (P2WSH or P2SH-P2WSH)",
            layout: ["purpose", "coin type", "account", "script type", "change", "address index"]),
        Purpose(
            number: 49, standard: "BIP-49", summary: "BIP-49 P2WPKH nested in P2SH (3… addresses)",
            layout: ["purpose", "coin type", "account", "change", "address index"]),
        Purpose(
            number: 84, standard: "BIP-84", summary: "BIP-84 native segwit P2WPKH (bc1q… addresses)",
            layout: ["purpose", "coin type", "account", "change", "address index"]),
        Purpose(
            number: 86, standard: "BIP-86", summary: "BIP-86 taproot key-path P2TR (bc1p… addresses)",
            layout: ["purpose", "coin type", "account", "change", "address index"]),
    ]

    /// The purpose with `number`, if registered.
    public static func purpose(_ number: UInt32) -> Purpose? { purposes.first { $0.number == number } }

    /// Each level of `path` with its role and meaning. The layout comes from a hardened first
    /// level naming a known purpose; otherwise every level is a plain `child`.
    public static func levels(of path: DerivationPath) -> [PathLevel] {
        let c = path.components
        guard path.isAbsolute, let first = c.first, first.hardened, let purpose = purpose(first.index) else {
            return c.enumerated().map { n, index in
                var meaning = (index.hardened ? "hardened child " : "child ") + "\(index.index)"
                if n == 0 && path.isAbsolute {
                    meaning +=
                        index.hardened
                        ? " (\(index.index)' is no registered BIP-43 purpose)"
                        : " (not a BIP-43 purpose: a purpose is always hardened)"
                }
                return PathLevel(depth: n + 1, component: index, role: "child", meaning: meaning)
            }
        }
        let eip1581 =
            purpose.number == 43 && c.count >= 3 && c[1] == ChildIndex(60, hardened: true)
            && c[2] == ChildIndex(1581, hardened: true)
        // Below a bare BIP-43 purpose the application chooses its own layout.
        let layout = purpose.number == 43 && !eip1581 ? ["purpose"] : purpose.layout
        return c.enumerated().map { n, index in
            guard n < layout.count else {
                let what = (index.hardened ? "hardened child " : "child ") + "\(index.index)"
                let note =
                    purpose.number == 43 && !eip1581
                    ? "the application's own layout under BIP-43"
                    : "below the \(purpose.standard) layout's last level"
                return PathLevel(depth: n + 1, component: index, role: "child", meaning: "\(what) (\(note))")
            }
            let role = layout[n]
            var meaning = describe(role: role, index: index, path: c, purpose: purpose, eip1581: eip1581)
            // The hardening each layout prescribes (BIP-44: purpose, coin type and account).
            let wantsHardened: Bool =
                switch role {
                case "purpose", "coin type", "account", "script type", "subpurpose", "key type": true
                default: false
                }
            if wantsHardened && !index.hardened {
                meaning += "; \(purpose.standard) hardens this level (\(index.index)')"
            } else if !wantsHardened && index.hardened && role != "key index" {
                meaning += "; \(purpose.standard) does not harden this level"
            }
            return PathLevel(depth: n + 1, component: index, role: role, meaning: meaning)
        }
    }

    /// The meaning of one level, starting with its role: `coin type 60 = ETH (Ethereum) in SLIP-44`.
    private static func describe(
        role: String, index: ChildIndex, path c: [ChildIndex], purpose: Purpose,
        eip1581: Bool
    ) -> String {
        let i = index.index
        switch role {
        case "purpose":
            return eip1581
                ? "purpose 43 = BIP-43, keys outside BIP-44 (EIP-1581 below)" : "purpose \(i) = \(purpose.summary)"
        case "coin type":
            guard let coin = try? SLIP44.coin(index: i) else { return "coin type \(i), not registered in SLIP-44" }
            return "coin type \(i) = " + (coin.symbol.isEmpty ? coin.name : "\(coin.symbol) (\(coin.name))")
                + " in SLIP-44"
        case "subpurpose":
            return i == 1581
                ? "subpurpose 1581 = EIP-1581, keys that hold no funds (chat, encryption, …)"
                : "subpurpose \(i) (EIP-1581 uses 1581')"
        case "key type":
            switch i {
            case 0: return "key type 0 = Status chat (Whisper / Waku) keys"
            case 1: return "key type 1 = Status encryption keys"
            default: return "key type \(i), chosen by the application"
            }
        case "key index":
            return "key index \(i)"
        case "account":
            let layout = purpose.number == 0 ? "; BIP-32's default layout m/account'/chain/address" : ""
            return "account \(i)" + (i == 0 ? " (the first)" : "") + layout
        case "chain":
            switch i {
            case 0: return "chain 0 = external (receiving addresses)"
            case 1: return "chain 1 = internal (change addresses)"
            default: return "chain \(i) (BIP-32's layout uses 0 and 1)"
            }
        case "change":
            // Depth 4 under 44'/60': the Ledger legacy / MEW layout counts addresses here.
            let legacy = c.count == 4 && purpose.number == 44 && c[1] == ChildIndex(60, hardened: true)
            let base: String =
                switch i {
                case 0: "change 0 = external chain (receiving addresses)"
                case 1: "change 1 = internal chain (change addresses)"
                default: "change \(i) (BIP-44 uses only 0 external and 1 internal)"
                }
            return legacy ? base + "; Ledger legacy / MEW use this level as address index \(i)" : base
        case "address index":
            return "address index \(i)" + (i == 0 ? " (the first)" : "")
        case "cosigner index":
            return "cosigner index \(i)"
        case "script type":
            switch i {
            case 1: return "script type 1 = P2WSH nested in P2SH"
            case 2: return "script type 2 = native segwit P2WSH"
            default: return "script type \(i) (BIP-48 defines 1 and 2)"
            }
        default:
            return "\(role) \(i)"
        }
    }
}
