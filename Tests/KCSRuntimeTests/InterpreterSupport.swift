// Test doubles for the interpreter: an in-memory host and a toy builtin table (the language
// knows nothing about wallets, STYLE §1, so these stand in for KCSBuiltins).
import Foundation
import KCSErrors
import KCSRuntime
import KCSSyntax

/// A `Host` that collects output in memory, serves modules from a dictionary or a directory,
/// and hands out queued secrets.
final class BufferHost: ScriptHost {
    var output = ""
    var isInteractive = false
    var secrets: [SecretValue] = []
    var prompts: [String] = []
    /// Module texts by name (tried first).
    var modules: [String: String] = [:]
    /// Directory that module names (and script names) are relative to.
    var root: URL?
    /// How many times each module name was loaded.
    var loads: [String: Int] = [:]
    var interruptAfterPolls: Int?
    private var polls = 0

    struct NoModule: Error, CustomStringConvertible {
        let name: String
        var description: String { "no module named \(name)" }
    }

    func write(_ text: String) { output += text }

    func readSecret(prompt: String) throws -> SecretValue? {
        prompts.append(prompt)
        return secrets.isEmpty ? nil : secrets.removeFirst()
    }

    func loadModule(name: String, relativeTo: String) throws -> Source {
        loads[name, default: 0] += 1
        if let text = modules[name] { return Source(name: name + ".kcs", text: text) }
        guard let root else { throw NoModule(name: name) }
        let dir = (relativeTo as NSString).deletingLastPathComponent
        let relative = dir.isEmpty ? name + ".kcs" : dir + "/" + name + ".kcs"
        guard let text = try? String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8) else {
            throw NoModule(name: name)
        }
        return Source(name: relative, text: text)
    }

    func shouldInterrupt() -> Bool {
        polls += 1
        return interruptAfterPolls.map { polls > $0 } ?? false
    }
}

/// A secret payload for tests.
struct BytesPayload: SecretPayload {
    let bytes: [UInt8]
    var byteCount: Int { bytes.count }
    func isEqual(to other: any SecretPayload) -> Bool { (other as? BytesPayload)?.bytes == bytes }
}

/// A record-like domain value, as `derive` would return.
struct ToyKey: DomainValue {
    let path: String
    var typeName: String { "key" }
    var text: String { "key \(path)" }
    var fields: [(name: String, value: Value)] {
        [("path", .string(path)), ("address", .string("0xaddr" + String(path.last ?? "0")))]
    }
}

/// An error with an ID, as a builtin namespace would throw.
struct ToyError: IdentifiableError {
    let id: String
    let description: String
}

/// The toy builtin table the interpreter tests run against.
let toyRegistry = BuiltinRegistry([
    Builtin("len", params: [ParamSpec("value", .any)], summary: "Length.", example: "len(x)") { args in
        switch args["value"]! {
        case .string(let s): .int(s.count)
        case .list(let l): .int(l.count)
        case .map(let m): .int(m.count)
        case .bytes(let b): .int(b.count)
        default: throw ToyError(id: "core.noLength", description: "len: no length")
        }
    },
    Builtin("type", params: [ParamSpec("value", .any)], summary: "Type name.", example: "type(x)") { args in
        .string(args["value"]!.typeName)
    },
    Builtin(
        "fail", params: [ParamSpec("id", .string), ParamSpec("message", .string)], summary: "Fail.",
        example: "fail(\"x\", \"y\")"
    ) { args in
        guard case .string(let id) = args["id"], case .string(let m) = args["message"] else { return .null }
        throw ToyError(id: id, description: m)
    },
    Builtin("string.upper", params: [ParamSpec("s", .string)], summary: "Upper case.", example: "string.upper(\"a\")") {
        args in
        guard case .string(let s) = args["s"] else { return .null }
        return .string(s.uppercased())
    },
    Builtin("derive", params: [ParamSpec("path", .string)], summary: "Derive a key.", example: "derive \"m/0\"") {
        args in
        guard case .string(let p) = args["path"] else { return .null }
        return .domain(ToyKey(path: p))
    },
    Builtin("card.pair", summary: "Pair.", example: "card.pair") { _ in .string("paired") },
    Builtin(
        "card.verifyPIN", params: [ParamSpec("pin", .secret("PIN"), secret: true)], summary: "Verify the PIN.",
        example: "card.verifyPIN"
    ) { args in
        guard case .secret(let s) = args["pin"] else { return .null }
        return .string("verified \(s.redacted) of \(s.payload.byteCount) bytes")
    },
    Builtin(
        "keystore.load", params: [ParamSpec("file", .string)],
        options: [OptionSpec("password", .string, "password"), OptionSpec("force", nil, "overwrite")],
        summary: "Load a keystore.", example: "keystore load wallet.json"
    ) { args in
        .map(
            ValueMap([
                ("file", args["file"]!), ("password", args.options["password"] ?? .null),
                ("force", .bool(args.flag("force"))),
            ]))
    },
    Builtin(
        "keystore.change-password", options: [OptionSpec("force", nil, "without asking")],
        summary: "Change a password.", example: "keystore change-password"
    ) { args in
        .string("changed, force \(args.flag("force"))")
    },
])

/// Parses and runs `text` as one program; returns the output, or the rendered error after it.
func runScript(
    _ text: String, name: String = "test.kcs", host: BufferHost = BufferHost(),
    interpreter: Interpreter? = nil
) -> (output: String, error: RuntimeError?) {
    let interp = interpreter ?? Interpreter(registry: toyRegistry, host: host, nativeStackBudget: 256 << 20)
    let source = Source(name: name, text: text)
    let (program, diagnostics) = interp.parse(source)
    precondition(diagnostics.isEmpty, DiagnosticRenderer.render(diagnostics, source: source))
    do throws(RuntimeError) {
        try interp.run(program, source: source)
        return (host.output, nil)
    } catch {
        return (host.output, error)
    }
}

/// Runs `body` on a thread with a large stack and waits for it. Deep script recursion (up to
/// the 1000-frame limit) needs more native stack than a test-pool thread has in debug builds;
/// interpreters made by the helpers here get a native stack budget to match (debug builds use
/// about 11 KB of native stack per script call, release builds about 2.5 KB).
func onLargeStack<T>(_ body: @escaping () -> T) -> T {
    let box = LargeStackBox<T>()
    box.body = body
    let thread = Thread {
        box.result = box.body!()
        box.done.signal()
    }
    thread.stackSize = 512 << 20
    thread.start()
    box.done.wait()
    return box.result!
}

private final class LargeStackBox<T>: @unchecked Sendable {
    var body: (() -> T)?
    var result: T?
    let done = DispatchSemaphore(value: 0)
}
