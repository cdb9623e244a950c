import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `vault` namespace: the sealed store's passphrase (docs/store.md, "The vault").

extension Builtins {
    static let vault: [Builtin] = [
        Builtin("vault.status",
                summary: "Whether the vault exists and is unlocked, with its scrypt parameters.",
                example: "vault.status") { args in
            let store = try args.session().store()
            var fields: [(String, Value)] = [("state", .string(try store.vaultStatus().rawValue))]
            if let info = try store.vaultInfo() { fields.append(("kdf", .string(info.parameters.description))) }
            return .map(ValueMap(fields))
        },

        Builtin("vault.lock", summary: "Locks the vault now: the next command that needs a secret asks the passphrase.",
                example: "vault.lock") { args in
            try args.session().lockVault()
            return .null
        },

        Builtin("vault.change-passphrase",
                summary: "Re-seals every secret under a new vault passphrase (the old one asked first).",
                example: "vault.change-passphrase") { args in
            let session = try args.session()
            let store = try session.store()
            let old = try session.passphrase(prompt: "current vault passphrase: ")
            let new = try session.passphrase(prompt: "new vault passphrase: ")
            if session.prompts?.isInteractive == true {
                guard try session.passphrase(prompt: "the new passphrase again: ") == new else {
                    throw SessionError.passphrasesDiffer
                }
            }
            try store.changePassphrase(old: old, new: new)
            return .null
        },
    ]
}
