import CardProtocol
import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `use` namespace: choosing the active signer — a stored key, or the connected card's key.

extension Builtins {
    static let use: [Builtin] = [
        Builtin(
            "use.key", params: [ParamSpec("name", .string)],
            summary: "Makes a stored key (software, or a card key: the card signs) the active signer for `sign`.",
            example: "use key savings-0"
        ) { args in
            let session = try args.session()
            return keyValue(try session.useKey(named: args.string("name") ?? ""))
        },

        Builtin(
            "use.card",
            summary: "Makes the connected card's key the active signer (recorded in the store on first use).",
            example: "use card"
        ) { args in
            let session = try args.session()
            let card = try session.requireCard()
            let store = try session.store()
            let record: KeyRecord
            if card.known.pinVerified, card.commands.isSecureChannelOpen {
                // Logged in: read the card's key, so a key loaded by another client is recorded
                // (and a stale entry retired); the entry for the same key is reused.
                guard try card.commands.getStatus().keyInitialized else { throw CardKeyError.noKeyOnCard }
                record = try session.recordCardKey(of: card, keyUID: nil, source: .card, name: nil).record
            } else if let existing = try session.cardKeys(of: card).last {
                record = existing
            } else {
                _ = try session.requireLoggedIn()
                throw CardKeyError.noKeyOnCard
            }
            session.activeKey = record.name
            return keyValue(record)
        },
    ]
}
