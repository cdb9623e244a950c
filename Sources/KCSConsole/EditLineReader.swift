internal import CEditLine
import Foundation
import KCSErrors

/// Line editing through libedit, used only when standard input is a terminal (docs/habits.md §10):
/// emacs key bindings, history in memory and in a file, Tab completion through a `Completer`,
/// Ctrl-C cancelling the line. What goes into the history is decided by the caller
/// (`add(toHistory:)`), so a line with a secret is stored redacted.
public final class EditLineReader: LineReader {
    private let editLine: OpaquePointer
    private let history: OpaquePointer
    /// Nil when there is none, or when it turned out to be a symbolic link (history then stays
    /// in memory, and kcs said so once).
    private var historyFile: String?
    /// The prompt and the owner pointer libedit's callbacks reach through EL_CLIENTDATA.
    private let client: UnsafeMutablePointer<kcs_el_client>
    private var promptBuffer: UnsafeMutablePointer<CChar>?
    /// Offers completions for Tab; nil leaves Tab to insert nothing.
    public var completer: Completer?

    /// A reader for the current terminal; `historyFile` (created 0600) is loaded now and written
    /// after every added line.
    public init?(program: String = "kcs", historyFile: String?, completer: Completer? = nil) {
        guard let el = kcs_el_init_stdio(program), let h = kcs_history_init() else { return nil }
        editLine = el
        history = h
        self.historyFile = historyFile
        self.completer = completer
        client = .allocate(capacity: 1)
        client.initialize(
            to: kcs_el_client(prompt: nil, owner: nil, wait_for_input: { Interrupt.waitForInput($0) ? 1 : 0 }))
        client.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
        var event = HistEvent()
        _ = kcs_history_setsize(h, &event, 1000)
        _ = kcs_el_set_history(el, h)
        _ = kcs_el_set_editor(el, "emacs")
        _ = kcs_el_set_signal(el, 1)
        _ = kcs_el_set_client(el, client)
        _ = kcs_el_set_read_char(el)
        _ = kcs_el_add_function(
            el, "kcs-complete", "complete the word before the cursor",
            { el, _ in
                guard let el, let client = kcs_el_client_data(el), let owner = client.pointee.owner else {
                    return UInt8(CC_ERROR)
                }
                return Unmanaged<EditLineReader>.fromOpaque(owner).takeUnretainedValue().completeAtCursor()
            })
        _ = kcs_el_bind(el, "^I", "kcs-complete")
        if let historyFile {
            let dir = (historyFile as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(
                atPath: dir, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            if refuseIfLink(historyFile) {
                self.historyFile = nil
            } else {
                _ = historyFile.withCString { kcs_history_load(h, &event, $0) }
            }
        }
    }

    deinit {
        kcs_el_end(editLine)
        kcs_history_end(history)
        promptBuffer?.deallocate()
        client.deallocate()
    }

    public func readLine(prompt: String) -> LineInput {
        promptBuffer?.deallocate()
        let bytes = Array(prompt.utf8CString)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        buffer.initialize(from: bytes, count: bytes.count)
        promptBuffer = buffer
        client.pointee.prompt = UnsafePointer(buffer)
        Interrupt.clear()
        var count: Int32 = 0
        let line = kcs_el_gets(editLine, &count)
        if Interrupt.take() {
            // Ctrl-C: libedit gives up the line; start a fresh one.
            kcs_el_reset(editLine)
            StandardStreams.out("^C\n")
            return .interrupted
        }
        guard let line, count > 0 else { return .end }
        var text = String(cString: line)
        if text.hasSuffix("\n") { text.removeLast() }
        return .line(text)
    }

    /// Tab: completes the word before the cursor — the whole candidate when there is one (plus a
    /// space after a name), the common prefix of several, or the list of them when the prefix
    /// adds nothing.
    fileprivate func completeAtCursor() -> UInt8 {
        guard let completer, let info = kcs_el_line(editLine), let start = UnsafeRawPointer(info.pointee.buffer),
            let last = UnsafeRawPointer(info.pointee.lastchar), let at = UnsafeRawPointer(info.pointee.cursor)
        else { return UInt8(CC_ERROR) }
        let length = last - start
        let cursor = at - start
        let line = String(decoding: UnsafeRawBufferPointer(start: start, count: length), as: UTF8.self)
        let result = completer.complete(line: line, cursor: cursor)
        switch result.candidates.count {
        case 0:
            return UInt8(CC_REFRESH_BEEP)
        case 1:
            let only = result.candidates[0]
            replaceWord(result.word, with: only + (only.hasSuffix("/") ? "" : " "))
            return UInt8(CC_REFRESH)
        default:
            let prefix = result.commonPrefix
            if prefix.count > result.word.count {
                replaceWord(result.word, with: prefix)
                return UInt8(CC_REFRESH)
            }
            StandardStreams.out("\n" + Completer.columns(result.candidates) + "\n")
            return UInt8(CC_REDISPLAY)
        }
    }

    private func replaceWord(_ word: String, with text: String) {
        kcs_el_deletestr(editLine, Int32(word.unicodeScalars.count))
        _ = kcs_el_insertstr(editLine, text)
    }

    /// Adds a (redacted) line to the history and saves the file with mode 0600.
    public func add(toHistory line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        var event = HistEvent()
        _ = kcs_history_enter(history, &event, line)
        guard let historyFile else { return }
        if refuseIfLink(historyFile) {
            self.historyFile = nil
            return
        }
        // Written to a new 0600 file beside it, then renamed over it: a rename replaces a link
        // that appeared meanwhile instead of writing through it, and a reader never sees half.
        let temporary = historyFile + ".tmp-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        close(fd)
        _ = temporary.withCString { kcs_history_save(history, &event, $0) }
        if rename(temporary, historyFile) != 0 { unlink(temporary) }
    }

    /// True (and a warning on standard error) when `path` is a symbolic link: the history is
    /// never read from or written through one, since it could point at any file of the user's.
    private func refuseIfLink(_ path: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return false }
        StandardStreams.err(
            "kcs: warning: the history file \(path) is a symbolic link; kcs does not read or write "
                + "through one, so this session's history stays in memory (replace the link with a file)\n")
        return true
    }

    /// `$XDG_STATE_HOME/kcs/history`, else `~/.local/state/kcs/history`.
    public static func defaultHistoryFile(environment: ProcessEnvironment = .current) -> String {
        (environment.nonEmpty("XDG_STATE_HOME") ?? environment.homeDirectory + "/.local/state") + "/kcs/history"
    }
}
