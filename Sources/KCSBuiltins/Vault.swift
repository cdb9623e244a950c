import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `vault` namespace: the sealed store's passphrase (docs/store.md, "The vault").

extension Builtins {
    static let vault: [Builtin] = [
        Builtin(
            "vault.status",
            summary: "Whether the vault exists and is unlocked, with its scrypt parameters.",
            example: "vault.status"
        ) { args in
            let store = try args.session().store()
            var fields: [(String, Value)] = [("state", .string(try store.vaultStatus().rawValue))]
            if let info = try store.vaultInfo() { fields.append(("kdf", .string(info.parameters.description))) }
            return .map(ValueMap(fields))
        },

        Builtin(
            "vault.lock", summary: "Locks the vault now: the next command that needs a secret asks the passphrase.",
            example: "vault.lock"
        ) { args in
            try args.session().lockVault()
            return .null
        },

        Builtin(
            "vault.change-passphrase", traits: [.opensVault],
            options: [
                OptionSpec(
                    "new", .secret(nil),
                    "the new passphrase (a secret); else asked twice at a terminal, else $KCS_VAULT_NEW_PASSPHRASE_FILE or $KCS_VAULT_NEW_PASSPHRASE",
                    secret: true)
            ],
            summary:
                "Re-seals every secret under a new vault passphrase (the old one asked first; the same one is refused).",
            example: "vault.change-passphrase"
        ) { args in
            let new: Secret? = if case .secret(let s)? = args.value("new") { try secretBytes(s) } else { nil }
            try args.session().changeVaultPassphrase(new: new)
            return .null
        },
    ]
}
