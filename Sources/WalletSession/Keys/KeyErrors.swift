import CardProtocol
import KCSErrors
import WalletCrypto

/// Errors of the key commands that the store and wallet core do not already name.
public enum KeyCommandError: WalletError, Equatable {
    case privateWhereWatchOnly
    case moveNeedsOneOption(given: Int)
    case cannotSign(name: String, kind: String)
    /// `use key` of a software HD master: it signs through its children; `children` are its
    /// stored ones (the first few).
    case masterSignsThroughChildren(name: String, children: [String])
    case digestLength(got: Int)
    case noActiveKey
    case customNeedsPath
    case privateKeyLength(got: Int)
    case backupNeedsTerminal
    case backupWordWrong(position: Int)
    /// `--key` given an extended public key: it has no private key to sign with.
    case publicKeyGiven
    /// A key retired by a rotation: its secret is gone; `successor` replaced it.
    case retired(name: String, successor: String?)

    /// Its sentences follow the command's name (`IdentifiableError.followsCommandName`).
    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .privateWhereWatchOnly: "key.privateWhereWatchOnly"
        case .moveNeedsOneOption: "key.moveNeedsOneOption"
        case .cannotSign, .masterSignsThroughChildren: "key.cannotSign"
        case .digestLength: "key.digestLength"
        case .noActiveKey: "key.noActiveKey"
        case .customNeedsPath: "key.customNeedsPath"
        case .privateKeyLength: "key.privateKeyLength"
        case .backupNeedsTerminal: "key.backupNeedsTerminal"
        case .backupWordWrong: "key.backupWordWrong"
        case .publicKeyGiven: "key.publicKeyGiven"
        case .retired: "key.retired"
        }
    }

    public var description: String {
        switch self {
        case .privateWhereWatchOnly:
            "expected an extended public key (xpub…), got a private one; import its mnemonic instead"
        case .moveNeedsOneOption(let given):
            "give exactly one of --to N, --up, --down, got \(given)"
        case .masterSignsThroughChildren(let name, let children):
            "\(name) is an HD master: it signs through a child, "
                + (children.isEmpty
                    ? "and it has none stored yet: "
                    : "such as \(children.map { "`use key \($0)`" }.joined(separator: " or ")); or ")
                + "make one with `wallet.discover` then `wallet.select ADDRESS`, or sign at any path once with"
                + " `--key (derive \"m/44'/60'/0'/0/1\" --from KEY)`"
        case .cannotSign(let name, let kind):
            "\(name) is \(kind), which cannot sign here; use an ECDSA or HD-CHILD key"
        case .digestLength(let got):
            "the digest must be 32 bytes (0x + 64 hex digits), got \(got) byte\(got == 1 ? "" : "s")"
        case .noActiveKey:
            "no active key; choose one with `use key NAME` or `use card` (a logged-in Keycard), or pass --key NAME"
                + " (a stored key) or --key VALUE (an HD key, a private key as 0x…, a WIF or an xprv)"
        case .customNeedsPath:
            "--preset custom needs --path TEMPLATE, with * for the account, e.g. --path \"m/44'/60'/*'/0/0\""
        case .privateKeyLength(let got):
            "a private key is 32 bytes (0x + 64 hex digits) or WIF text, got \(got) byte\(got == 1 ? "" : "s")"
        case .backupNeedsTerminal:
            "confirming a new mnemonic needs a terminal; add --skip-confirm in a batch run"
        case .publicKeyGiven:
            "--key is an extended public key, which cannot sign; give the private key (an xprv, or the HD key from hd.master or derive) or a stored key's name"
        case .retired(let name, let successor):
            "\(name) was retired by a rotation and its secret is gone; "
                + (successor.map { "sign with its successor \($0) (use key \($0))" } ?? "sign with another key")
        case .backupWordWrong(let position):
            "word #\(position) does not match; nothing was stored, write the words down and try again"
        }
    }
}

/// Errors of the card's key commands that the card layer does not already name.
public enum CardKeyError: WalletError, Equatable {
    case keyPresent
    case removeNeedsForce
    case noKeyOnCard
    case notExtended
    case privateNotExportable(path: String)
    case xpubNotExportable(path: String)
    /// The master's xpub: unreliable on 3.1/3.2, refused by a 4.0 card (`version4`).
    case masterXpub(version4: Bool)
    /// A 4.0-only command (`sign --schnorr`, `card.bip85`, `card.ecdh`, `card.challenge`) without a
    /// logged-in 4.0 card.
    case needsVersion4(feature: String)
    /// A 4.0 card answered `6D 00` to a command newer builds have: several builds share version 4.0.
    case notInThisBuild(command: String)
    /// `card.lee` on a 4.0 card that is not in LEE mode.
    case notLEEMode
    /// `sign --schnorr` refused with `6A 80` though the path fits: a build without Schnorr tweaks.
    case schnorrWithoutTweak(depth: Int)
    /// `card.ecdh` at a path the card refuses ECDH for.
    case ecdhPath(path: String)
    case oneExportKind(given: [String])
    case otherCard(name: String, keyCard: String, connected: String)
    case retiredCardKey(name: String)
    case needsCardSigner(option: String, name: String)
    /// The PIN-less key asked for before signing (a transaction's sender) and not recorded here.
    case pinlessUnknown

    /// Its sentences follow the command's name (`IdentifiableError.followsCommandName`).
    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .keyPresent: "cardKey.keyPresent"
        case .removeNeedsForce: "cardKey.removeNeedsForce"
        case .noKeyOnCard: "cardKey.noKey"
        case .notExtended: "cardKey.notExtended"
        case .privateNotExportable: "cardKey.privateNotExportable"
        case .xpubNotExportable: "cardKey.xpubNotExportable"
        case .masterXpub: "cardKey.masterXpub"
        case .needsVersion4: "cardKey.needsVersion4"
        case .notInThisBuild: "cardKey.notInThisBuild"
        case .notLEEMode: "cardKey.notLEEMode"
        case .schnorrWithoutTweak: "cardKey.schnorrWithoutTweak"
        case .ecdhPath: "cardKey.ecdhPath"
        case .oneExportKind: "cardKey.oneExportKind"
        case .otherCard: "cardKey.otherCard"
        case .retiredCardKey: "cardKey.retired"
        case .needsCardSigner: "cardKey.needsCardSigner"
        case .pinlessUnknown: "cardKey.pinlessUnknown"
        }
    }

    public var description: String {
        switch self {
        case .keyPresent:
            "the card already holds a key; add --force to replace it (the old key is gone for good unless you have its backup)"
        case .removeNeedsForce:
            "this erases the card's key for good (only its mnemonic backup, if any, brings it back); add --force to confirm"
        case .noKeyOnCard:
            "the card holds no key; load one with card.load, card.mnemonic --load or card.generate"
        case .notExtended:
            "the card's key has no chain code (card.load keypair without --chain-code), so it cannot derive; "
                + "it signs with the key itself (sign without --path)"
        case .privateNotExportable(let path):
            "the card exports a private key only under EIP-1581 (m/43'/60'/1581'/…, at least 5 levels), and \(path) "
                + "is not there: keys that can hold funds never leave the card; ask for --public or --xpub"
        case .xpubNotExportable(let path):
            "the card does not export the chain code under EIP-1581 (\(path)); ask for --public"
        case .masterXpub(let version4):
            (version4
                ? "a 4.0 card does not export the master's extended public key (it refuses EXPORT KEY of the master's "
                    + "chain code, SW 6985)"
                : "the card does not export the master's chain code reliably (applet 3.1/3.2 answer from a scratch "
                    + "buffer)")
                + "; export an account instead, e.g. card.export \"m/44'/60'/0'\" --xpub"
        case .needsVersion4(let feature):
            "\(feature) comes from a Keycard 4.0 card, and this card's applet is older: connect a 4.0 card and run card.login"
        case .ecdhPath(let path):
            "the card does ECDH only with keys under m/44'/1237'/… (Nostr, NIP-44) or m/43'/60'/1581'/… (EIP-1581), "
                + "at least 5 levels deep; \(path) is neither, and nothing was sent"
        case .notLEEMode:
            "the card is not in LEE mode: card.load mnemonic WORDS --lee (or seed … --lee) loads its keys in LEE mode"
        case .schnorrWithoutTweak(let depth):
            "the card refused hash ‖ tweak ‖ path (6A 80) though the path's \(depth) levels fit: a 4.0 build older than "
                + "Schnorr tweaks reads the 32-byte tweak as 8 more levels, and this card may be one; it cannot make a "
                + "Taproot signature (docs/card.md, \"Keycard 4.0\")"
        case .notInThisBuild(let command):
            "this card's applet build has no \(command) (it answered 6D 00): several 4.0 builds share the version number, "
                + "and this one is older than the command"
        case .oneExportKind(let given):
            "give one of --public, --xpub, --private, got " + given.map { "--" + $0 }.joined(separator: " and ")
        case .otherCard(let name, let keyCard, let connected):
            "\(name) is on card \(keyCard)…, but the connected card is \(connected)…; connect that card or `use card`"
        case .retiredCardKey(let name):
            "\(name) was removed from its card (retired); load a key with card.load and `use card`"
        case .needsCardSigner(let option, let name):
            "--\(option) is for the card, but \(name) is a software key; run `use card` or pass --key CARDKEY"
        case .pinlessUnknown:
            "the card's PIN-less key is not recorded here, so its address is not known before it signs; "
                + "card.pinless PATH records it"
        }
    }
}
