import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `store` namespace: where the store lives, and its integrity check (docs/store.md).

extension Builtins {
    static let store: [Builtin] = [
        Builtin(
            "store.home",
            summary: "The kcs home folder: where kcs.db and the simulated cards live (--home, KCS_HOME, …).",
            example: "let backup = store.home() + \"/backup.json\""
        ) { args in
            guard let home = try args.session().home else { throw SessionError.noHome }
            return .string(home)
        },

        Builtin(
            "store.check",
            summary:
                "Checks the store file: SQLite's integrity_check and the store's invariants (positions, secrets, parents).",
            example: "print (store.check).ok, (store.check).problems"
        ) { args in
            let check = try args.session().store().check()
            return .map(
                ValueMap([
                    ("ok", .bool(check.integrity == ["ok"] && check.problems.isEmpty)),
                    ("integrity", .string(check.integrity.joined(separator: "\n"))),
                    ("problems", .list(check.problems.map { .string($0) })),
                ]))
        },
    ]
}
