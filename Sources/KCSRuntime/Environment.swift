// Variable storage and the state of one running interpreter.
//
// Variables are resolved to slots before anything runs (InterpreterCompiler.swift), so a
// read is an index into memory, never a dictionary lookup:
// - **Globals** (the top-level names of the script, of every `use`d module and of earlier REPL
//   lines) live in one table, `globals[slot]`, with a `defined` flag per slot: a function may
//   name a global that is only declared later, or never.
// - **Locals** (parameters, and `let`s inside blocks) live in frames on one value stack. Each
//   function call takes `slotCount` consecutive slots; nodes receive the frame's base pointer,
//   so a local is `fp[slot]`. Functions see no enclosing function's locals (§6), so no
//   environment is ever copied or captured.
import Foundation
import KCSSyntax

/// The mutable state of one interpreter: value stack, globals, modules, call depth.
final class Environment {
    // MARK: Value stack

    /// Slots for locals, allocated once; `[0, initialized)` hold initialized values.
    let stack: UnsafeMutablePointer<Value>
    /// How many slots `stack` has.
    let stackCapacity: Int
    /// First free slot.
    @exclusivity(unchecked) var top = 0
    /// Slots below this are initialized memory.
    @exclusivity(unchecked) var initialized = 0
    /// Script call depth.
    @exclusivity(unchecked) var depth = 0
    /// Maximum script call depth.
    let recursionLimit: Int
    /// Set by `return`, read by the call.
    @exclusivity(unchecked) var returnValue: Value = .null
    /// Loop iterations since the last poll of `host.shouldInterrupt()`.
    @exclusivity(unchecked) var ticks = 0
    /// Address of a local in the outermost `run`; calls compare against it so that deep
    /// recursion fails with `runtime.stackOverflow` before the native stack runs out.
    @exclusivity(unchecked) var nativeStackBase = 0
    /// How much native stack script calls may use (bytes).
    let nativeStackBudget: Int

    // MARK: Globals

    /// Global values; `[0, globalCount)` are initialized.
    let globals: UnsafeMutablePointer<Value>
    /// Whether each global has been declared (by `let`, `def` or `use`) yet.
    let globalDefined: UnsafeMutablePointer<Bool>
    /// The script function each global holds, if it holds one (so calls need no cast).
    /// Every write to `globals` goes through `setGlobal`, which keeps this in step.
    let globalFunctions: UnsafeMutablePointer<FunctionValue?>
    let globalCapacity: Int
    private(set) var globalCount = 0
    /// Slot of each global name (`NameIndex`: a run defining `args` makes no `Dictionary`).
    private(set) var globalSlots = NameIndex(capacity: 64)
    /// Name of each global slot.
    var globalNames: [String] { globalSlots.names }

    // MARK: Context

    let registry: BuiltinRegistry
    let host: any ScriptHost
    /// Names of all builtins, for "did you mean".
    let builtinNames: [String]
    /// Modules by resolved source name: true once loaded, false while loading.
    var modules: [String: Bool] = [:]
    /// Module source names in loading order (for the cycle message).
    var loadingChain: [String] = []
    /// `use` name → resolved source name, relative to the script that said it.
    var moduleRequests: [String: String] = [:]
    /// The value of the last top-level expression statement of the current run.
    @exclusivity(unchecked) var lastResult: Value?
    /// Shown each top-level expression statement's value as it finishes (`Interpreter.run(_:source:showing:)`).
    var show: ((Value) -> Void)?
    /// `print` writes one JSON document per statement instead of text (`kcs --json`).
    var printsJSON = false
    /// The command table the interpreter parses modules with.
    let commandTable: CommandTable

    init(
        registry: BuiltinRegistry, host: any ScriptHost, recursionLimit: Int, nativeStackBudget: Int,
        stackCapacity: Int = 1 << 18, globalCapacity: Int = 1 << 16
    ) {
        self.nativeStackBudget = nativeStackBudget
        self.registry = registry
        self.host = host
        self.recursionLimit = recursionLimit
        self.stackCapacity = stackCapacity
        self.globalCapacity = globalCapacity
        stack = .allocate(capacity: stackCapacity)
        globals = .allocate(capacity: globalCapacity)
        globalDefined = .allocate(capacity: globalCapacity)
        globalFunctions = .allocate(capacity: globalCapacity)
        builtinNames = registry.allNames
        commandTable = CommandTable(commands: builtinNames)
    }

    deinit {
        stack.deinitialize(count: initialized)
        stack.deallocate()
        globals.deinitialize(count: globalCount)
        globals.deallocate()
        globalDefined.deallocate()
        globalFunctions.deinitialize(count: globalCount)
        globalFunctions.deallocate()
    }

    // MARK: Frames

    /// Makes sure slots below `end` are initialized memory.
    @inline(__always)
    func ensureInitialized(_ end: Int) {
        if end > initialized {
            (stack + initialized).initialize(repeating: .null, count: end - initialized)
            initialized = end
        }
    }

    /// Reserves `count` slots and returns the frame's base pointer, or nil when full.
    @inline(__always)
    func pushFrame(_ count: Int) -> UnsafeMutablePointer<Value>? {
        let end = top + count
        guard end <= stackCapacity else { return nil }
        ensureInitialized(end)
        let fp = stack + top
        top = end
        return fp
    }

    /// Releases the frame at `fp` (its values are dropped now, so secrets do not linger).
    @inline(__always)
    func popFrame(_ fp: UnsafeMutablePointer<Value>, _ count: Int) {
        for i in 0..<count { fp[i] = .null }
        top = fp - stack
    }

    /// The current native stack address (approximately).
    @inline(__always)
    static func stackAddress() -> Int {
        var marker = 0
        return withUnsafeMutablePointer(to: &marker) { Int(bitPattern: $0) }
    }

    // MARK: Globals

    /// The slot of global `name`, creating an undeclared one if needed.
    func globalSlot(_ name: String) -> Int {
        if let s = globalSlots.value(of: name) { return s }
        precondition(globalCount < globalCapacity, "too many global names")
        let s = globalCount
        (globals + s).initialize(to: .null)
        globalDefined[s] = false
        (globalFunctions + s).initialize(to: nil)
        globalCount += 1
        globalSlots.insert(name, value: s)
        return s
    }

    /// Declares global `name` with `value`.
    func defineGlobal(_ name: String, _ value: Value) {
        let s = globalSlot(name)
        setGlobal(s, value)
        globalDefined[s] = true
    }

    /// Stores `value` in global slot `s` (declared or not), keeping `globalFunctions` in step.
    @inline(__always)
    func setGlobal(_ s: Int, _ value: Value) {
        if case .domain = value {
            globalFunctions[s] = value.functionValue
        } else if globalFunctions[s] != nil {
            globalFunctions[s] = nil
        }
        globals[s] = value
    }

    /// The value of global `name`, if declared.
    func global(_ name: String) -> Value? {
        guard let s = globalSlots.value(of: name), globalDefined[s] else { return nil }
        return globals[s]
    }

    /// Declared global names, sorted (completion, "did you mean").
    var definedGlobalNames: [String] {
        globalNames.indices.filter { globalDefined[$0] }.map { globalNames[$0] }.sorted()
    }

    /// Polls the host every 4096 ticks; throws `runtime.interrupted` when it asks to stop.
    @inline(__always)
    func tick(_ range: SourceRange) throws(RuntimeError) {
        ticks &+= 1
        if ticks & 0xFFF == 0, host.shouldInterrupt() { throw RuntimeError(.interrupted, at: range) }
    }
}
