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
public enum AtomicFile {
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

        // 1. Create the temporary file; retry on the (unlikely) name collision.
        var temp = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            temp = prefix + "." + name + ".tmp-" + SystemRandom().bytes(6).hex
            fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 || errno != EEXIST { break }
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
