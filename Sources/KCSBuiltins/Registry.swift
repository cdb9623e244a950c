import KCSRuntime
import WalletCrypto

/// The builtin namespaces (STYLE §3). Each namespace is one file in this module that owns a
/// table; this file is touched only when a namespace is added.
public enum Builtins {
    /// Every builtin of the language, in help order.
    public static var all: [Builtin] { core + input + wallet }

    /// The registry the interpreter and the console use.
    public static func registry() -> BuiltinRegistry { BuiltinRegistry(all) }
}

extension Builtins {
    /// A secret value holding the UTF-8 of `text` (what a terminal prompt produces).
    public static func secret(kind: String, text: String) -> SecretValue {
        SecretValue(kind: kind, payload: Secret(utf8: text))
    }
}
