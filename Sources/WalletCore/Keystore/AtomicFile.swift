#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Errors

/// Why an atomic write failed. Each case names the target path (not the randomly named
/// temporary file, so messages are reproducible) and carries the `errno` of the failing
/// system call; its text (`strerror`) is rendered in `description`.
public enum AtomicFileError: WalletError, Equatable {
    /// The target path is empty or ends in `/`, so it names no file.
    case invalidPath(path: String)
    /// The temporary file beside `path` could not be created (`open` with `O_CREAT | O_EXCL`).
    case createFailed(path: String, errno: Int32)
    /// Writing the bytes, setting the mode, `fsync` or `close` of the temporary file failed.
    case writeFailed(path: String, errno: Int32)
    /// Renaming the temporary file over `path` failed.
    case renameFailed(path: String, errno: Int32)
    /// The rename happened, but the directory holding `path` could not be synced: the new file
    /// is in place and may not survive a power loss.
    case syncDirectoryFailed(path: String, errno: Int32)

    /// Stable identifier, e.g. `atomicFile.renameFailed`.
    public var id: String {
        switch self {
        case .invalidPath: "atomicFile.invalidPath"
        case .createFailed: "atomicFile.createFailed"
        case .writeFailed: "atomicFile.writeFailed"
        case .renameFailed: "atomicFile.renameFailed"
        case .syncDirectoryFailed: "atomicFile.syncDirectoryFailed"
        }
    }

    public var description: String {
        switch self {
        case .invalidPath(let path):
            "file path must name a file, got \"\(path)\""
        case .createFailed(let path, let code):
            "cannot create a temporary file to write \(path): \(Self.text(code))"
        case .writeFailed(let path, let code):
            "cannot write the temporary file for \(path): \(Self.text(code))"
        case .renameFailed(let path, let code):
            "cannot replace \(path) with the new file: \(Self.text(code))"
        case .syncDirectoryFailed(let path, let code):
            "cannot sync the directory of \(path) after replacing it: \(Self.text(code))"
        }
    }

    /// The C library's text for `code` (e.g. "No such file or directory").
    private static func text(_ code: Int32) -> String {
        guard let p = strerror(code) else { return "errno \(code)" }
        return String(cString: p)
    }
}

// MARK: - Atomic replacement

/// Replaces a file's contents all at once: readers see the old file or the new one, never a
/// mix, and after a crash the path holds one of the two.
///
/// The usual POSIX recipe (as in SQLite's and git's lock-file writes):
/// 1. create `.<name>.tmp-<random>` in the same directory with `O_CREAT | O_EXCL`, mode 0600,
///    so no other process can have it open and nobody else can read it while it is written;
/// 2. write every byte, set the final mode, `fsync`, `close`;
/// 3. `rename` it over the target (atomic within one file system);
/// 4. `fsync` the directory so the rename itself is durable.
///
/// If any step before the rename fails, the temporary file is removed and the target is untouched.
///
/// A writer killed before the rename leaves its temporary file behind, secrets and all. The writer
/// holds an exclusive `flock` on the temporary file while it exists, so `removeStaleTemporaries`
/// can tell a live writer's file (locked) from a dead one's (the lock died with the process) and
/// remove only the latter; `write` runs it for its own target first.
public enum AtomicFile {
    /// The temporary file's name for target `name` ends in this and 12 lower-case hex digits.
    static let temporaryMarker = ".tmp-"

    /// True when `file` is the name of a temporary file of `write` (for target `name`, when given):
    /// `.<name>.tmp-<12 hex digits>`.
    static func isTemporary(_ file: String, of name: String? = nil) -> Bool {
        let bytes = Array(file.utf8), marker = Array(temporaryMarker.utf8)
        let markerStart = bytes.count - 12 - marker.count
        guard markerStart >= 2, bytes[0] == UInt8(ascii: "."),
            Array(bytes[markerStart..<(markerStart + marker.count)]) == marker,
            bytes[(bytes.count - 12)...].allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return false }
        return name.map { Array($0.utf8) == Array(bytes[1..<markerStart]) } ?? true
    }

    /// Removes the temporary files that writers killed before their rename left in `directory`
    /// (those of target `name` only, when given), and returns their names. A file still locked by
    /// its writer is kept. Errors are ignored: this is housekeeping, and a file it cannot remove is
    /// tried again next time.
    @discardableResult
    public static func removeStaleTemporaries(in directory: String, of name: String? = nil) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var removed: [String] = []
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        while let entry = readdir(dir) {
            let file = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard isTemporary(file, of: name) else { continue }
            let fd = open(prefix + file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { continue }
            // The writer's lock, if it is alive; once we hold it, the writer (if it comes back from
            // between its `open` and its `flock`) sees the file unlinked and starts over.
            if flock(fd, LOCK_EX | LOCK_NB) == 0, unlink(prefix + file) == 0 { removed.append(file) }
            close(fd)
        }
        return removed.sorted()
    }

    /// Writes `bytes` to `path`, replacing any existing file atomically; the new file gets
    /// permissions `mode` (not reduced by the umask; default 0600, owner read/write only).
    ///
    /// Throws `.invalidPath` for an empty path or one ending in `/`; `.createFailed`,
    /// `.writeFailed` or `.renameFailed` (temporary file removed, target untouched); or
    /// `.syncDirectoryFailed` (target already replaced). A file system that cannot sync
    /// directories (`EINVAL`) is not treated as an error.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws(AtomicFileError) {
        guard !path.isEmpty, !path.hasSuffix("/") else { throw .invalidPath(path: path) }
        let (directory, name) = split(path)
        let prefix = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""

        // 0. What a writer killed before its rename left behind holds secrets: remove it.
        removeStaleTemporaries(in: directory, of: name)

        // 1. Create the temporary file and lock it (it is ours while the lock is held); retry on
        //    the (unlikely) name collision, or when a sweep removed it before we locked it.
        var temp = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            temp = prefix + "." + name + temporaryMarker + SystemRandom().bytes(6).hex
            fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 {
                if errno == EEXIST { continue }
                break
            }
            var info = stat()
            if flock(fd, LOCK_EX) == 0, fstat(fd, &info) == 0, info.st_nlink > 0 { break }
            close(fd)
            fd = -1
        }
        guard fd >= 0 else { throw .createFailed(path: path, errno: errno) }

        // 2. Write, set the mode, sync, close. Any failure removes the temporary file.
        func fail(_ code: Int32) -> AtomicFileError {
            unlink(temp)
            return .writeFailed(path: path, errno: code)
        }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                posixWrite(fd, buffer.baseAddress! + written, buffer.count - written)
            }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                throw fail(code)
            }
            written += n
        }
        if fchmod(fd, mode) != 0 || fsync(fd) != 0 {
            let code = errno
            close(fd)
            throw fail(code)
        }
        if close(fd) != 0 { throw fail(errno) }

        // 3. Rename over the target.
        if rename(temp, path) != 0 {
            let code = errno
            unlink(temp)
            throw .renameFailed(path: path, errno: code)
        }

        // 4. Make the rename durable.
        let dirfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dirfd >= 0 else { throw .syncDirectoryFailed(path: path, errno: errno) }
        defer { close(dirfd) }
        if fsync(dirfd) != 0, errno != EINVAL {
            throw .syncDirectoryFailed(path: path, errno: errno)
        }
    }

    /// Splits `path` into its directory ("." when there is none) and last component.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let name = String(path[path.index(after: slash)...])
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, name)
    }
}

/// `write(2)`; a free function so the name is not shadowed by `AtomicFile.write`.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
