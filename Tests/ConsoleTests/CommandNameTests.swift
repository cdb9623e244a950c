// The interpreter names the command (docs/architecture.md, "Errors"): an error of the command
// layers carries facts, and `callBuiltin` writes the name of the command that raised it — as
// the script spelled it — before its sentence. Every case of every such vocabulary is thrown
// here from a builtin body and rendered through the interpreter.
import CardProtocol
import EthRPC
import KCSBuiltins
import KCSConsole
import KCSErrors
import KCSRuntime
import KCSSyntax
import Testing
import WalletCore
import WalletSession
import WalletStore

/// Every case of the errors whose sentences follow the command's name.
private let commandErrors: [any IdentifiableError & Sendable] = {
    var out: [any IdentifiableError & Sendable] = []
    out += [
        CardCommandError.notConnected, .notOpen, .pinNotVerified, .blank, .alreadyInitialized(shortUID: "1a2b"),
        .notPaired, .alreadyPaired(slot: 1), .pairingRefused(slot: 1), .lastTry(credential: "PIN"),
        .lastTry(credential: "PUK"), .pinBlocked(justNow: true), .pinBlocked(justNow: false),
        .pukBlocked(justNow: true), .pukBlocked(justNow: false), .pinNotBlocked(triesLeft: 3),
        .valueNeeded(what: "PIN", option: "pin"), .valuesDiffer(what: "PIN"), .resetNotConfirmed(typed: "x"),
        .resetNotConfirmed(typed: nil), .resetUnsupported, .unpairChoice, .duressTrap(reason: "r"),
        .noPairingOnVersion4, .trustNotConfirmed(identity: "02ab"),
        .wrongPINAfterDuressUnblock(triesLeft: 2), .wrongPINAfterDuressUnblock(triesLeft: 0),
    ]
    out += [
        KeyCommandError.privateWhereWatchOnly, .moveNeedsOneOption(given: 2), .cannotSign(name: "a", kind: "WATCH"),
        .digestLength(got: 3), .noActiveKey, .customNeedsPath, .privateKeyLength(got: 3), .backupNeedsTerminal,
        .backupWordWrong(position: 4), .publicKeyGiven,
        .retired(name: "old", successor: "new"), .retired(name: "old", successor: nil),
    ]
    out += [
        CardPathError.tooDeep(path: DerivationPath(absolute: true, [ChildIndex(1)]), depth: 11), .parentOfMaster,
        .conflictingOptions(first: "next", second: "new-account"), .indexOverflow,
    ]
    out += [
        CardKeyError.keyPresent, .removeNeedsForce, .noKeyOnCard,
        .notExtended, .privateNotExportable(path: "m/44'"), .xpubNotExportable(path: "m/43'"),
        .masterXpub(version4: false), .needsVersion4(feature: "ECDH"), .notInThisBuild(command: "ECDH"), .notLEEMode,
        .ecdhPath(path: "m/1"),
        .oneExportKind(given: ["public", "xpub"]), .otherCard(name: "k", keyCard: "1a2b3c4d", connected: "5e6f7a8b"),
        .retiredCardKey(name: "k"), .needsCardSigner(option: "path", name: "k"), .pinlessUnknown,
    ]
    out += [
        EthCommandError.unreadableFile(path: "/p"), .secretValue(path: "x", kind: "seed"), .needsSigner, .bothSigners,
        .digestSources, .needsSignature, .chainMismatch(given: "5", node: "1", endpoint: "http://n"),
        .sendUnknown(hash: "0x00", reason: "r"), .notMined(hash: "0x00", seconds: 5), .waitStopped(hash: "0x00"),
    ]
    out += [
        RotationCommandError.backupNotConfirmed(rotationID: 1, old: "a", successor: "b", declined: true),
        .backupNotConfirmed(rotationID: 1, old: "a", successor: "b", declined: false),
        .finished(rotationID: 1, state: "done"),
    ]
    out += [
        SessionError.noSession, .noHome, .passphraseNeeded,
        .passphraseFileUnreadable(path: "/p", variable: "KCS_VAULT_PASSPHRASE_FILE"), .passphrasesDiffer,
        .newPassphraseNeeded, .samePassphrase,
        .needsConfirmation, .cancelled,
    ]
    out += [
        KeystoreCommandError.fileExists(path: "/p"), .passwordsDiffer,
        .notExportable(name: "w", kind: .watch, reason: "it has no private key"),
    ]
    out += [
        BuiltinError.notAnInteger(text: "x"), .negative(value: "-1"), .tooLong(needed: 3, length: 2),
        .outOfRange(name: "--n", expected: "1 to 2", got: "3"), .rangeTooLarge(count: "9", limit: 5), .zeroStep,
        .secretNotText(kind: "seed"), .foreignSecret(kind: "x"), .badChoice(option: "o", expected: ["a"], got: "b"),
        .noCurrentKey, .optionNotApplicable(option: "o", reason: "r"), .privateNeedsFlag(version: "xprv"),
        .noHelpTopic(topic: "x", suggestion: nil), .noHelpTopic(topic: "x", suggestion: "y"), .keysNeedsMap,
    ]
    out += [
        TeachingError.secretNeedsReveal(argument: "argument 1", shows: "its words"), .needsMnemonic,
        .notAnAddress(given: "x"), .traceNeedsHDKey(name: "k", kind: "ECDSA"),
        .addressNotFound(address: "0x00", searched: 2, presets: ["metamask"], grid: "g", maxIndex: 1),
    ]
    out += [RPCError.noNode(), .noNode(alternatives: "give --used LIST")]
    out += [
        ArgumentError.tooMany(max: 1, got: 2), .missing(position: 1, name: "n", type: .string),
        .wrongType(position: 1, name: "n", expected: .string, got: "int"), .unknownOption(option: "o", known: []),
        .unknownOption(option: "o", known: ["p"]), .optionNeedsValue(option: "o", type: .string),
        .flagTakesNoValue(option: "o"), .optionWrongType(option: "o", expected: .string, got: "int"),
        .badChoice(option: "o", expected: ["a"], got: "b"), .outOfRange(name: "--n", expected: "1 to 2", got: "3"),
    ]
    return out
}()

/// Errors of the same layers whose sentences stand alone (no name before them).
private let standalone: [any IdentifiableError & Sendable] = [
    CardCommandError.noFreePairingSlots(total: 5), CardCommandError.noFreePairingSlots(total: nil),
    RPCError.timeout(endpoint: "e", seconds: 5, method: "m"), MnemonicError.wrongWordCount(count: 11),
]

/// The message a run shows when builtin `name` throws `error`.
private func message(of error: any Error & Sendable, thrownBy name: String, spelled: String? = nil) -> String {
    let registry = BuiltinRegistry([
        Builtin(name, aliases: [name + "-old"], summary: "throws", example: name) { _ in
            throw error
        }
    ])
    let interpreter = Interpreter(registry: registry, host: ConsoleHost(interactive: false, output: { _ in }))
    let source = Source(name: "name.kcs", text: (spelled ?? name) + "\n")
    let (program, diagnostics) = interpreter.parse(source)
    precondition(diagnostics.isEmpty)
    do {
        _ = try interpreter.run(program, source: source)
        return ""
    } catch {
        return error.message
    }
}

@Suite("The interpreter names the command")
struct CommandNameTests {
    /// A sentence that starts with a command's name, as the old hand-written prefixes did.
    private static func startsWithAName(_ text: String) -> Bool {
        text.range(of: #"^[a-z][A-Za-z0-9-]*(\.[A-Za-z0-9-]+)*: "#, options: .regularExpression) != nil
    }

    @Test func everyCommandErrorCase_isRenderedAfterTheNameOfTheCommandThatRaisedIt() {
        #expect(commandErrors.count > 100)
        for error in commandErrors {
            #expect(error.followsCommandName, "\(error.id)")
            #expect(!Self.startsWithAName(error.description), "\(error.id) writes a name itself: \(error.description)")
            #expect(message(of: error, thrownBy: "card.sample") == "card.sample: " + error.description)
        }
    }

    @Test func underAnAlias_theNameIsTheOneTheScriptUsed() {
        #expect(
            message(of: KeyCommandError.noActiveKey, thrownBy: "card.sample", spelled: "card.sample-old")
                == "card.sample-old: no active key; choose one with `use key NAME` or `use card` (a logged-in Keycard), or pass --key NAME (a stored key) or --key VALUE (an HD key, a private key as 0x…, a WIF or an xprv)"
        )
    }

    @Test func standaloneSentences_getNoName() {
        for error in standalone {
            #expect(!error.followsCommandName, "\(error.id)")
            #expect(message(of: error, thrownBy: "card.sample") == error.description)
        }
    }
}
