import Foundation
import Testing
import WalletCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh directory under the system temporary directory, removed by `cleanup()`.
private struct ScratchDirectory {
    let path: String

    init() throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("kcs-atomicfile-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// Names in the directory, sorted (temporary files start with a dot, so they show up here too).
    func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

private func contents(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { Array($0) } }

private func permissions(_ path: String) -> mode_t {
    var st = stat()
    precondition(stat(path, &st) == 0, "stat \(path) failed")
    return st.st_mode & 0o7777
}

private func atomicError(_ body: () throws(AtomicFileError) -> Void) -> AtomicFileError? {
    do {
        try body()
        Issue.record("expected an AtomicFileError, nothing was thrown")
        return nil
    } catch {
        return error
    }
}

@Suite("AtomicFile")
struct AtomicFileTests {
    @Test func write_newFile_hasBytesAndMode0600AndNoTemporaryFile() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let target = dir.file("key.json")
        try AtomicFile.write(Array("{\"version\":3}".utf8), to: target)
        #expect(contents(target) == Array("{\"version\":3}".utf8))
        #expect(permissions(target) == 0o600)
        #expect(try dir.listing() == ["key.json"])
    }

    @Test func write_mode0644_isAppliedRegardlessOfUmask() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let target = dir.file("public.txt")
        try AtomicFile.write([1, 2, 3], to: target, mode: 0o644)
        #expect(permissions(target) == 0o644)
    }

    @Test func write_existingFile_isReplacedWithNewBytesAndMode() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let target = dir.file("key.json")
        try AtomicFile.write(Array(repeating: 0x41, count: 4096), to: target, mode: 0o644)
        try AtomicFile.write(Array("new".utf8), to: target)
        #expect(contents(target) == Array("new".utf8))
        #expect(permissions(target) == 0o600)
        #expect(try dir.listing() == ["key.json"])
    }

    @Test func write_emptyBytes_createsEmptyFile() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let target = dir.file("empty")
        try AtomicFile.write([], to: target)
        #expect(contents(target) == [])
    }

    @Test func write_missingDirectory_throwsCreateFailedWithENOENT() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let target = dir.file("missing/key.json")
        let e = atomicError { () throws(AtomicFileError) in try AtomicFile.write([1], to: target) }
        #expect(e == .createFailed(path: target, errno: ENOENT))
        #expect(e?.id == "atomicFile.createFailed")
        #expect(e?.description == "cannot create a temporary file to write \(target): No such file or directory")
        #expect(try dir.listing() == [])
    }

    /// The rename fails (the target is a non-empty directory): the temporary file is removed
    /// and what was at the target is untouched.
    @Test func write_renameFails_removesTemporaryFileAndLeavesTargetIntact() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let target = dir.file("occupied")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        try AtomicFile.write(Array("old".utf8), to: target + "/old.txt")
        let e = atomicError { () throws(AtomicFileError) in try AtomicFile.write(Array("new".utf8), to: target) }
        #expect(e == .renameFailed(path: target, errno: EISDIR))
        #expect(e?.id == "atomicFile.renameFailed")
        #expect(e?.description == "cannot replace \(target) with the new file: Is a directory")
        #expect(try dir.listing() == ["occupied"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: target) == ["old.txt"])
        #expect(contents(target + "/old.txt") == Array("old".utf8))
    }

    @Test(arguments: ["", "/tmp/dir/"])
    func write_pathNamingNoFile_throwsInvalidPath(_ path: String) {
        let e = atomicError { () throws(AtomicFileError) in try AtomicFile.write([1], to: path) }
        #expect(e == .invalidPath(path: path))
        #expect(e?.description == "file path must name a file, got \"\(path)\"")
    }
}
