import KCSRuntime

// The wallet namespaces bound to the wallet core (issue 3 §3). Each family is one table in its
// own file — `Mnemonic.swift` (mnemonic.*) and `HD.swift` (hd.master, derive, address, xkey.*,
// path.parse, coins); card, store and signing namespaces plug in beside them.

extension Builtins {
    /// Every wallet builtin, in help order.
    static let wallet: [Builtin] = mnemonic + hd + teaching
}
