import KCSRuntime
import WalletCore
import WalletCrypto

// The wallet values the language shows and passes around (docs/language.md §5): a derivation path,
// an HD key, an address and a SLIP-44 coin are domain values; a mnemonic, a seed and an
// extended private key are secrets. None of them can render a private byte (docs/habits.md §4):
// the HD key lists only public facts, and secrets render as `<secret KIND>`.

// MARK: - Secrets

/// WalletCrypto's `Secret` is the payload of every secret value the wallet builtins make.
extension Secret: SecretPayload {
    /// Number of bytes held.
    public var byteCount: Int { count }

    /// Constant-time comparison (time depends only on the lengths); a payload of another
    /// type is never equal.
    public func isEqual(to other: any SecretPayload) -> Bool {
        guard let other = other as? Secret else { return false }
        return self == other
    }
}

/// The kinds of secret the wallet builtins make; the raw value is `SecretValue.kind`, which
/// is what `<secret KIND>` and `type(x)` show.
enum SecretKind: String, CaseIterable {
    /// A BIP-39 phrase, held as its canonical UTF-8 text (NFKD, lower case, single spaces).
    case mnemonic
    /// A 64-byte BIP-39 seed (or any 16–64-byte BIP-32 seed).
    case seed
    /// A Base58Check extended private key (xprv, zprv, …), held as its text.
    case xprv
    /// A BIP-39 passphrase, held as UTF-8.
    case passphrase
    /// A raw 32-byte secp256k1 private key (from the store or `import privkey`).
    case privateKey = "privkey"
    /// A private key in Wallet Import Format (compressed), held as its Base58Check text.
    case wif
    /// Raw entropy from a card (BIP-85 hex).
    case entropy
    /// An ECDH shared secret (the X coordinate, 32 bytes).
    case sharedSecret = "shared"

    /// True when the bytes are text (revealed as a string); false for raw bytes (revealed as hex).
    var isText: Bool { ![.seed, .privateKey, .entropy, .sharedSecret].contains(self) }

    /// A secret value of this kind holding `secret`.
    func value(_ secret: Secret) -> Value { .secret(SecretValue(kind: rawValue, payload: secret)) }
}

extension SecretValue {
    /// The `Secret` behind this value, when the wallet builtins made it.
    var walletSecret: Secret? { payload as? Secret }
}

extension Value {
    /// A secret mnemonic value holding the canonical phrase of `mnemonic`.
    static func mnemonic(_ mnemonic: Mnemonic) -> Value {
        SecretKind.mnemonic.value(mnemonic.withPhrase { Secret(utf8: $0) })
    }
}

// MARK: - Path

/// A BIP-32 derivation path (`m/44'/60'/0'/0/0`, or relative `0/5`).
struct PathValue: DomainValue {
    let path: DerivationPath

    var typeName: String { "path" }
    var text: String { path.description }
    var fields: [(name: String, value: Value)] {
        [
            ("text", .string(path.description)),
            ("depth", .int(path.depth)),
            ("absolute", .bool(path.isAbsolute)),
            ("components", .list(path.components.map { .string($0.description) })),
        ]
    }
}

// MARK: - HD key

/// A software BIP-32 key (private or public). Its fields are public facts, and for a private
/// key its WIF forms as secret values (`<secret wif>` until `reveal`); the raw private key and
/// the xprv serialisation never appear here (`xkey.encode --private` is the one way to get the
/// latter, as a secret).
struct HDKeyValue: DomainValue {
    let key: ExtendedKey
    /// The path from the master key, when known (a key from `hd.master`, derived from one, or
    /// decoded at depth 0); nil for a decoded key below the master.
    let path: DerivationPath?

    init(_ key: ExtendedKey, path: DerivationPath?) {
        self.key = key
        self.path = path ?? (key.depth == 0 ? DerivationPath(absolute: true, []) : nil)
    }

    var typeName: String { "hdkey" }

    /// `m/44'/60'/0'/0/0 xpub6…` with `(private)` when it holds a private key: enough to tell
    /// keys apart (equality compares it), never a private byte.
    var text: String {
        let at = path?.description ?? "depth \(key.depth)"
        return "\(at) \(key.publicString)" + (key.isPrivate ? " (private)" : "")
    }

    var fields: [(name: String, value: Value)] {
        publicFields + ["wif", "wifTestnet"].compactMap { name in field(name).map { (name, $0) } }
    }

    /// One field; the WIF forms (two Base58Check encodings of the private key) are made only
    /// when asked for, not on every `key.address`.
    func field(_ name: String) -> Value? {
        switch name {
        case "wif": key.privateKey.map { SecretKind.wif.value(WIF(privateKey: $0).encoded()) }
        case "wifTestnet": key.privateKey.map { SecretKind.wif.value(WIF(privateKey: $0, network: .testnet).encoded()) }
        default: publicFields.first { $0.name == name }?.value
        }
    }

    private var publicFields: [(name: String, value: Value)] {
        var out: [(name: String, value: Value)] = []
        if let path { out.append(("path", .domain(PathValue(path: path)))) }
        out += [
            ("depth", .int(Int(key.depth))),
            ("fingerprint", .bytes(Self.be32(key.fingerprint))),
            ("parentFingerprint", .bytes(Self.be32(key.parentFingerprint))),
            ("childNumber", .int(Int(key.childNumber))),
            ("child", .string(ChildIndex(raw: key.childNumber).description)),
            ("publicKey", .bytes(key.publicKey.compressed)),
            ("address", .domain(AddressValue(ethereum: key.publicKey))),
            ("xpub", .string(key.publicString)),
            ("private", .bool(key.isPrivate)),
        ]
        return out
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
    }
}

// MARK: - Address

/// An address of some coin. It has no fields on purpose, so it renders as its text
/// everywhere (`"address: {key.address}"`, JSON strings).
struct AddressValue: DomainValue {
    /// The address text (EIP-55 for Ethereum).
    let address: String
    /// Coin symbol or `coin type N`.
    let coin: String
    /// `ethereum`, `p2pkh`, `p2sh-p2wpkh`, `p2wpkh` or `p2tr`.
    let kind: String

    init(address: String, coin: String, kind: String) {
        self.address = address
        self.coin = coin
        self.kind = kind
    }

    /// The EIP-55 Ethereum address of `publicKey`.
    init(ethereum publicKey: PublicKey) {
        self.init(address: EthereumAddress(publicKey: publicKey).checksummed, coin: "ETH", kind: "ethereum")
    }

    var typeName: String { "address" }
    var text: String { address }
}

// MARK: - Card identity

/// A 4.0 card's identity key as the card itself reported it (`card.info`, `card.connect`): it
/// renders as its hex, and `card.trust` refuses it, since trusting what the card says about
/// itself compares nothing (docs/card.md).
struct CardIdentityValue: DomainValue {
    let hex: String

    var typeName: String { "card identity" }
    var text: String { hex }
}

// MARK: - Coin

/// One SLIP-44 registry row.
struct CoinValue: DomainValue {
    let coin: SLIP44.Coin

    var typeName: String { "coin" }
    var text: String { coin.description }
    var fields: [(name: String, value: Value)] {
        [("index", .int(Int(coin.index))), ("symbol", .string(coin.symbol)), ("name", .string(coin.name))]
    }
}
