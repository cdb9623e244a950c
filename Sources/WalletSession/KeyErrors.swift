import CardProtocol
import KCSErrors
import WalletCrypto

/// Errors of the key commands that the store and wallet core do not already name.
public enum KeyCommandError: WalletError, Equatable {
    case privateWhereWatchOnly(command: String)
    case moveNeedsOneOption(command: String, given: Int)
    case cannotSign(command: String, name: String, kind: String)
    case digestLength(command: String, got: Int)
    case noActiveKey(command: String)
    case customNeedsPath(command: String)
    case privateKeyLength(command: String, got: Int)
    case backupNeedsTerminal(command: String)
    case backupWordWrong(command: String, position: Int)

    public var id: String {
        switch self {
        case .privateWhereWatchOnly: "key.privateWhereWatchOnly"
        case .moveNeedsOneOption: "key.moveNeedsOneOption"
        case .cannotSign: "key.cannotSign"
        case .digestLength: "key.digestLength"
        case .noActiveKey: "key.noActiveKey"
        case .customNeedsPath: "key.customNeedsPath"
        case .privateKeyLength: "key.privateKeyLength"
        case .backupNeedsTerminal: "key.backupNeedsTerminal"
        case .backupWordWrong: "key.backupWordWrong"
        }
    }

    public var description: String {
        switch self {
        case .privateWhereWatchOnly(let c):
            "\(c): expected an extended public key (xpub…), got a private one; import its mnemonic instead"
        case .moveNeedsOneOption(let c, let given):
            "\(c): give exactly one of --to N, --up, --down, got \(given)"
        case .cannotSign(let c, let name, let kind):
            "\(c): \(name) is \(kind), which cannot sign here; use an ECDSA or HD-CHILD key"
        case .digestLength(let c, let got):
            "\(c): the digest must be 32 bytes (0x + 64 hex digits), got \(got) bytes"
        case .noActiveKey(let c):
            "\(c): no active key; choose one with `use key NAME` or pass --key NAME"
        case .customNeedsPath(let c):
            "\(c): --preset custom needs --path TEMPLATE, e.g. --path \"m/44'/60'/{i}'/0/0\""
        case .privateKeyLength(let c, let got):
            "\(c): a private key is 32 bytes (0x + 64 hex digits) or WIF text, got \(got) bytes"
        case .backupNeedsTerminal(let c):
            "\(c): confirming a new mnemonic needs a terminal; add --skip-confirm in a batch run"
        case .backupWordWrong(let c, let position):
            "\(c): word #\(position) does not match; nothing was stored, write the words down and try again"
        }
    }
}

/// Errors of the card's key commands that the card layer does not already name.
public enum CardKeyError: WalletError, Equatable {
    case keyPresent(command: String)
    case removeNeedsForce(command: String)
    case noKeyOnCard(command: String)
    case tooDeep(command: String, path: String, depth: Int)
    case parentOfMaster(command: String)
    case notExtended(command: String)
    case privateNotExportable(command: String, path: String)
    case xpubNotExportable(command: String, path: String)
    case masterXpub(command: String)
    case oneExportKind(command: String, given: [String])
    case conflictingOptions(command: String, first: String, second: String)
    case indexOverflow(command: String)
    case otherCard(command: String, name: String, keyCard: String, connected: String)
    case retiredCardKey(command: String, name: String)
    case needsCardSigner(command: String, option: String, name: String)

    public var id: String {
        switch self {
        case .keyPresent: "cardKey.keyPresent"
        case .removeNeedsForce: "cardKey.removeNeedsForce"
        case .noKeyOnCard: "cardKey.noKey"
        case .tooDeep: "cardKey.pathTooDeep"
        case .parentOfMaster: "cardKey.parentOfMaster"
        case .notExtended: "cardKey.notExtended"
        case .privateNotExportable: "cardKey.privateNotExportable"
        case .xpubNotExportable: "cardKey.xpubNotExportable"
        case .masterXpub: "cardKey.masterXpub"
        case .oneExportKind: "cardKey.oneExportKind"
        case .conflictingOptions: "cardKey.conflictingOptions"
        case .indexOverflow: "cardKey.indexOverflow"
        case .otherCard: "cardKey.otherCard"
        case .retiredCardKey: "cardKey.retired"
        case .needsCardSigner: "cardKey.needsCardSigner"
        }
    }

    public var description: String {
        switch self {
        case .keyPresent(let c):
            "\(c): the card already holds a key; add --force to replace it (the old key is gone for good unless you have its backup)"
        case .removeNeedsForce(let c):
            "\(c): this erases the card's key for good (only its mnemonic backup, if any, brings it back); add --force to confirm"
        case .noKeyOnCard(let c):
            "\(c): the card holds no key; load one with card.load, card.mnemonic --load or card.generate"
        case .tooDeep(let c, let path, let depth):
            "\(c): \(path) is \(depth) levels deep; the card derives at most 10 levels (nothing was sent)"
        case .parentOfMaster(let c):
            "\(c): the card's current key is the master, which has no parent; use an m/… path (nothing was sent)"
        case .notExtended(let c):
            "\(c): the card's key has no chain code (card.load keypair without --chain-code), so it cannot derive; "
                + "it signs with the key itself (sign without --path)"
        case .privateNotExportable(let c, let path):
            "\(c): the card exports a private key only under EIP-1581 (m/43'/60'/1581'/…, at least 5 levels), and \(path) "
                + "is not there: keys that can hold funds never leave the card; ask for --public or --xpub"
        case .xpubNotExportable(let c, let path):
            "\(c): the card does not export the chain code under EIP-1581 (\(path)); ask for --public"
        case .masterXpub(let c):
            "\(c): the card does not export the master's chain code reliably (applet 3.1/3.2 answer from a scratch "
                + "buffer); export an account instead, e.g. card.export \"m/44'/60'/0'\" --xpub"
        case .oneExportKind(let c, let given):
            "\(c): give one of --public, --xpub, --private, got " + given.map { "--" + $0 }.joined(separator: " and ")
        case .conflictingOptions(let c, let first, let second):
            "\(c): --\(first) and --\(second) cannot go together"
        case .indexOverflow(let c):
            "\(c): the next account or address index would reach 2^31; choose --account N"
        case .otherCard(let c, let name, let keyCard, let connected):
            "\(c): \(name) is on card \(keyCard)…, but the connected card is \(connected)…; connect that card or `use card`"
        case .retiredCardKey(let c, let name):
            "\(c): \(name) was removed from its card (retired); load a key with card.load and `use card`"
        case .needsCardSigner(let c, let option, let name):
            "\(c): --\(option) is for the card, but \(name) is a software key; run `use card` or pass --key CARDKEY"
        }
    }
}

extension CardKeyError {
    /// The card layer's path refusal, named for `command` (nothing was sent).
    public init(_ error: CardPathError, command: String) {
        switch error {
        case .parentOfMaster: self = .parentOfMaster(command: command)
        case .tooDeep(let path, let depth): self = .tooDeep(command: command, path: path.description, depth: depth)
        case .conflictingOptions(let first, let second): self = .conflictingOptions(command: command, first: first, second: second)
        case .indexOverflow: self = .indexOverflow(command: command)
        }
    }
}
