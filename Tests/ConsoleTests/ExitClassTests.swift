// Exit codes come from the class an error states, not from its id (docs/architecture.md,
// "Errors"; docs/card-console.md, "Exit codes"). Each error below is thrown by a builtin body
// and run through the interpreter, so the whole path — the error's `exitClass`, `callBuiltin`,
// `RuntimeError`, `ExitStatus` — is checked against the codes the ids had before, when
// `ExitStatus` decided by id and prefix (`legacyCode`, kept here as the reference).
import CardProtocol
import CardSimulator
import EthRPC
import KCSBuiltins
import KCSConsole
import KCSErrors
import KCSRuntime
import KCSSyntax
import Testing
import WalletCore
import WalletCrypto
import WalletSession

/// The id-based mapping `ExitStatus` used before errors stated their class.
private func legacyCode(forRuntimeError id: String) -> Int32 {
    switch id {
    case "card.notConnected": return 69
    case "card.wrongPIN", "card.wrongPUK", "card.lastTry": return 77
    case "card.pinBlocked", "card.pukBlocked": return 78
    case "session.cancelled", "card.resetNotConfirmed", "eth.command.waitStopped": return 75
    case "runtime.interrupted": return 130
    case "card.valueNeeded", "card.valuesDiffer", "card.unpairChoice", "card.duressTrap": return 70
    case "rpc.timeout", "rpc.noConnection", "rpc.unreachable", "rpc.http", "eth.command.sendUnknown": return 69
    default: break
    }
    if id.hasPrefix("transport.") || id.hasPrefix("card.transport.") {
        return id.hasSuffix(".invalidCommand") || id.hasSuffix(".malformedResponse") ? 76 : 69
    }
    if id.hasPrefix("card.") || id.hasPrefix("simulator.") { return 76 }
    return 70
}

private let transportErrors: [TransportError] = [
    .noService, .noReader(requested: nil), .noReader(requested: "Gemalto"), .noCard(reader: "r", seconds: nil),
    .noCard(reader: "r", seconds: 5), .cardRemoved(reader: "r"), .sharingViolation(reader: "r"),
    .connectionLost(detail: "gone"), .malformedResponse(detail: "short"), .invalidCommand(detail: "too long"),
    .pcsc(code: 0x8010_0001, text: "internal error"),
]

/// Every error whose id the old mapping named or caught by a prefix, and some it left at the default.
private let errors: [any IdentifiableError] = {
    var out: [any IdentifiableError] = []
    // card.* of the console's card link: each case
    let c = "card.x"
    out +=
        ([
            CardCommandError.notConnected, .notOpen, .pinNotVerified, .blank,
            .alreadyInitialized(shortUID: "1a2b"), .noFreePairingSlots(total: 5), .noFreePairingSlots(total: nil),
            .notPaired, .alreadyPaired(slot: 1), .pairingRefused(slot: 1),
            .lastTry(credential: "PIN"), .pinBlocked(justNow: true),
            .pukBlocked(justNow: false), .pinNotBlocked(triesLeft: 3),
            .valueNeeded(what: "PIN", option: "pin"), .valuesDiffer(what: "PIN"),
            .resetNotConfirmed(typed: "x"), .resetNotConfirmed(typed: nil),
            .resetUnsupported, .unpairChoice, .duressTrap(reason: "r"),
        ] as [CardCommandError]).map { $0 as any IdentifiableError }
    // card.* of the protocol: status words, the secure channel, and the transport under it
    out +=
        ([
            CardError.wrongPIN(triesLeft: 2), .wrongPIN(triesLeft: 0), .wrongPUK(triesLeft: 4), .wrongPUK(triesLeft: 0),
            .securityStatusNotSatisfied(command: .sign), .noFreePairingSlot, .unexpected(command: .sign, sw: 0x6F00),
            .channelClosed(command: .sign),
        ] as [CardError]).map { $0 as any IdentifiableError }
    out += transportErrors.map { CardError.transport($0) as any IdentifiableError }
    out += transportErrors.map { $0 as any IdentifiableError }
    // simulator.*
    out +=
        ([
            SimulatorError.invalidCardName(name: "a/b"), .cardExists(name: "a", path: "/p"),
            .cardNotFound(name: "a", path: "/p"),
            .directoryUnusable(path: "/p", reason: "r"), .stateUnreadable(path: "/p", reason: "r"),
            .stateWriteFailed(path: "/p", reason: "r"), .identityAlreadyProvisioned, .invalidIdentity,
        ] as [SimulatorError]).map { $0 as any IdentifiableError }
    // rpc.*: the node not answering, and the node answering wrongly
    out +=
        ([
            RPCError.badURL(given: "x"), .timeout(endpoint: "e", seconds: 5, method: "m"),
            .noConnection(endpoint: "e", method: "m", reason: "r"),
            .unreachable(endpoint: "e", method: "m", reason: "r"),
            .http(endpoint: "e", method: "m", status: 502, body: ""), .node(method: "m", code: -32000, message: "no"),
            .badResponse(method: "m", reason: "r"), .noNode(),
        ] as [RPCError]).map { $0 as any IdentifiableError }
    // session.* and eth.command.*
    let session: [SessionError] = [.cancelled, .noSession, .needsConfirmation]
    let eth: [EthCommandError] = [
        .waitStopped(hash: "0x00"),
        .sendUnknown(hash: "0x00", reason: "r"),
    ]
    out += session.map { $0 as any IdentifiableError } + eth.map { $0 as any IdentifiableError }
    // the default: lower-module errors whose ids start with none of the old prefixes
    out.append(WalletCryptoError.authenticationFailed)
    out.append(MnemonicError.wrongWordCount(count: 11))
    return out
}()

/// The exit code of a run whose builtin `boom` throws `error`, and the runtime error's id.
private func runBoom(_ error: any Error & Sendable) -> (id: String, code: Int32) {
    let registry = BuiltinRegistry([Builtin("boom", summary: "throws its error", example: "boom") { _ in throw error }])
    let interpreter = Interpreter(registry: registry, host: ConsoleHost(interactive: false, output: { _ in }))
    let source = Source(name: "exit.kcs", text: "boom\n")
    let (program, diagnostics) = interpreter.parse(source)
    precondition(diagnostics.isEmpty)
    do {
        _ = try interpreter.run(program, source: source)
        return ("", ExitStatus.ok)
    } catch {
        return (error.id, ExitStatus.code(for: error))
    }
}

@Suite("Exit codes from the error's class")
struct ExitClassTests {
    @Test func everyIdTheOldMappingNamed_keepsItsExitCode() {
        let named = [
            "card.notConnected", "card.wrongPIN", "card.wrongPUK", "card.lastTry", "card.pinBlocked",
            "card.pukBlocked", "session.cancelled", "card.resetNotConfirmed", "eth.command.waitStopped",
            "card.valueNeeded", "card.valuesDiffer", "card.unpairChoice", "card.duressTrap", "rpc.timeout",
            "rpc.noConnection", "rpc.unreachable", "rpc.http", "eth.command.sendUnknown",
        ]
        let ids = Set(errors.map(\.id))
        #expect(Set(named).subtracting(ids).isEmpty, "errors to throw for \(Set(named).subtracting(ids).sorted())")
        for error in errors {
            let (id, code) = runBoom(error as! any Error & Sendable)
            #expect(id == error.id)
            #expect(code == legacyCode(forRuntimeError: error.id), "\(error.id): \(error.exitClass)")
        }
    }

    @Test func everyPrefixFamilyTheOldMappingHad_isCovered() {
        let ids = errors.map(\.id)
        for prefix in ["card.", "card.transport.", "transport.", "simulator.", "rpc."] {
            #expect(ids.contains { $0.hasPrefix(prefix) }, "no error with an id under \(prefix)")
        }
        for suffix in [".invalidCommand", ".malformedResponse"] {
            #expect(ids.contains { $0.hasPrefix("transport.") && $0.hasSuffix(suffix) })
            #expect(ids.contains { $0.hasPrefix("card.transport.") && $0.hasSuffix(suffix) })
        }
    }

    @Test func interruptions_exit130_andOtherRuntimeErrors70() {
        let at = SourceRange(start: 0, end: 0)
        #expect(ExitStatus.code(for: RuntimeError(.interrupted, at: at)) == 130)
        #expect(ExitStatus.code(for: RuntimeError(.promptCancelled(command: "card.x", note: nil), at: at)) == 130)
        #expect(runBoom(PromptInterrupted(note: nil)).code == 130)
        #expect(ExitStatus.code(for: RuntimeError(.divisionByZero, at: at)) == 70)
        #expect(
            ExitStatus.code(
                for: RuntimeError(
                    .argument(.unknownOption(option: "y", known: []), command: "x"),
                    at: at)) == 70)
    }

    @Test func everyClass_hasTheDocumentedCode() {
        let expected: [ExitClass: Int32] = [
            .runtimeError: 70, .noCard: 69, .cancelled: 75, .interrupted: 130,
            .cardError: 76, .wrongPIN: 77, .blocked: 78,
        ]
        for c in ExitClass.allCases { #expect(ExitStatus.code(for: c) == expected[c]) }
    }
}
