import Foundation

// The effects log (a test aid, as KCS_SIM_DROP_AFTER is one): with `$KCS_EFFECTS_LOG` set, every
// command that had the vault opened for it or changed a simulated card's persistent state appends
// `COMMAND opensVault` / `COMMAND changesCard` to that file. The help-example test runs every
// command's example with it and checks that each command's table entry declares what it did
// (docs/architecture.md §3, "How to add a builtin").

extension Session {
    /// The environment variable naming the effects log.
    public static let effectsLogVariable = "KCS_EFFECTS_LOG"

    /// Runs `body`, `command`'s, and logs what it did when the effects log is on.
    public func watchingEffects<T>(of command: String, _ body: () throws -> T) rethrows -> T {
        guard let path = effectsLogPath else { return try body() }
        let openings = vaultOpenings
        let card = self.card
        let before = card?.persistentState()
        defer {
            var lines = ""
            if vaultOpenings > openings { lines += "\(command) opensVault\n" }
            if let card, card === self.card, card.persistentState() != before { lines += "\(command) changesCard\n" }
            if !lines.isEmpty, let handle = FileHandle(forWritingAtPath: path) ?? Self.created(path) {
                handle.seekToEndOfFile()
                handle.write(Data(lines.utf8))
                handle.closeFile()
            }
        }
        return try body()
    }

    private static func created(_ path: String) -> FileHandle? {
        FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        return FileHandle(forWritingAtPath: path)
    }
}

extension CardLink {
    /// A simulated card's persistent memory as saved (its state file); nil for a card in a reader.
    func persistentState() -> Data? {
        guard case .simulator(let card) = medium, let path = card.statePath else { return nil }
        return FileManager.default.contents(atPath: path)
    }
}
