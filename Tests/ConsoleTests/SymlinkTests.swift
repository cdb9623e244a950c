// The file system is not trusted either (docs/store.md): a symbolic link planted at the store's
// database, at its -wal file, or at the REPL history file is refused by name, and its target is
// neither written nor chmodded.
import Foundation
import KCSTestSupport
import Testing

@Suite("Planted symbolic links")
struct SymlinkTests {
    /// A file outside the home with mode 0644 and known text, and a link to it at `link`.
    private func plant(_ home: BatchHome, link: String) throws -> String {
        let target = home.path("target-\(UUID().uuidString)")
        try "not kcs's\n".write(toFile: target, atomically: false, encoding: .utf8)
        chmod(target, 0o644)
        try FileManager.default.createDirectory(
            atPath: (link as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        return target
    }

    private func untouched(_ target: String) throws -> Bool {
        let mode = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int
        let text = try String(contentsOfFile: target, encoding: .utf8)
        return mode == 0o644 && text == "not kcs's\n"
    }

    @Test func linkAtTheDatabaseOrItsWAL_isRefusedByName_andItsTargetIsUntouched() throws {
        for name in ["kcs.db", "kcs.db-wal", "kcs.db-shm"] {
            let home = try BatchHome()
            defer { home.remove() }
            let link = home.folder.appendingPathComponent("home/\(name)").path
            let target = try plant(home, link: link)
            let r = try home.run("import privkey \(testPrivateKey) --name a\n")
            #expect(r.code == 70, "\(name): \(r.err)")
            #expect(
                r.err.contains("store file \(link) is a symbolic link; kcs opens its store only as a plain file"),
                "\(name): \(r.err)")
            #expect(try untouched(target), "\(name): the link's target was changed")
        }
    }

    @Test func linkAtTheHistoryFile_isNotWrittenThrough_andTheSessionSaysSo() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let link = home.folder.appendingPathComponent("kcs/history").path
        let target = try plant(home, link: link)
        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        try t.expect("the history file \(link) is a symbolic link")
        try t.answer("kcs> ", with: "print 6 * 7")
        try t.expect("42")
        let text = try t.quit()
        #expect(try untouched(target), "history was written through the link: \(text)")
        var st = stat()
        #expect(lstat(link, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK, "the link itself is left as it was")
    }
}
