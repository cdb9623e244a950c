import ArgumentParser
import CardSimulator
import Foundation
import KCSConsole
import KCSErrors
import WalletStore

/// Where kcs keeps its files (docs/habits.md "Files and environment"): `$KCS_HOME`, else
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
    func cardsDirectory() throws(SimulatorError) -> String {
        let cards = (path as NSString).appendingPathComponent("cards")
        for dir in [path, cards] {
            do {
                try FileManager.default.createDirectory(
                    atPath: dir, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw .directoryUnusable(
                    path: dir, reason: (error as NSError).localizedFailureReason ?? error.localizedDescription)
            }
        }
        return cards
    }

    /// `kcs sim …`'s folder of simulated cards, or the reason on standard error and the card error's exit status.
    func cardsDirectoryOrExit() throws -> String {
        do {
            return try cardsDirectory()
        } catch {
            StandardStreams.err("kcs sim: error: \(error)\n")
            throw ExitCode(ExitStatus.code(for: error.exitClass))
        }
    }
}
