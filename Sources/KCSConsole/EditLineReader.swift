internal import CEditLine
import Foundation

/// Line editing through libedit, used only when standard input is a terminal (STYLE habit 10):
/// emacs key bindings, history in memory and in a file. What goes into the history is decided
/// by the caller (`add(toHistory:)`), so a line with a secret is stored redacted.
public final class EditLineReader: LineReader {
    private let editLine: OpaquePointer
    private let history: OpaquePointer
    private let historyFile: String?
    private var promptBuffer: UnsafeMutablePointer<CChar>?

    /// A reader for the current terminal; `historyFile` (created 0600) is loaded now and written
    /// after every added line.
    public init?(program: String = "kcs", historyFile: String?) {
        guard let el = kcs_el_init_stdio(program), let h = history_init() else { return nil }
        editLine = el
        history = h
        self.historyFile = historyFile
        var event = HistEvent()
        _ = kcs_history_setsize(h, &event, 1000)
        _ = kcs_el_set_history(el, h)
        _ = kcs_el_set_editor(el, "emacs")
        _ = kcs_el_set_signal(el, 1)
        if let historyFile {
            let dir = (historyFile as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            _ = historyFile.withCString { kcs_history_load(h, &event, $0) }
        }
    }

    deinit {
        el_end(editLine)
        history_end(history)
        promptBuffer?.deallocate()
    }

    public func readLine(prompt: String) -> String? {
        promptBuffer?.deallocate()
        let bytes = Array(prompt.utf8CString)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        buffer.initialize(from: bytes, count: bytes.count)
        promptBuffer = buffer
        _ = kcs_el_set_prompt_text(editLine, buffer)
        var count: Int32 = 0
        guard let line = el_gets(editLine, &count), count > 0 else { return nil }
        var text = String(cString: line)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Adds a (redacted) line to the history and saves the file with mode 0600.
    public func add(toHistory line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        var event = HistEvent()
        _ = kcs_history_enter(history, &event, line)
        if let historyFile {
            _ = historyFile.withCString { kcs_history_save(history, &event, $0) }
            chmod(historyFile, 0o600)
        }
    }

    /// `$XDG_STATE_HOME/kcs/history`, else `~/.local/state/kcs/history`.
    public static func defaultHistoryFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/state")
        return ((state as NSString).appendingPathComponent("kcs") as NSString).appendingPathComponent("history")
    }
}
