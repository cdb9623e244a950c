import Foundation
import KCSErrors
import WalletStore

/// Where kcs keeps its files (DESIGN "Files and environment"): `$KCS_HOME`, else
/// `$XDG_DATA_HOME/kcs`, else `~/.local/share/kcs`. Created with mode 0700; simulated cards
/// live in `cards/` beneath it.
struct Home {
    let path: String

    /// Resolves the home from an explicit `--home`, then the environment (`WalletStore.defaultHome`).
    init(explicit: String?, environment: ProcessEnvironment = .current) {
        if let explicit, !explicit.isEmpty {
            path = explicit
        } else {
            path = WalletStore.defaultHome(environment: environment)
        }
    }

    /// The folder of simulated cards, created (0700) on first use.
    func cardsDirectory() throws -> String {
        let cards = (path as NSString).appendingPathComponent("cards")
        for dir in [path, cards] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        return cards
    }
}
