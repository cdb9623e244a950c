#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Text to standard output or standard error, written whole with write(2): short writes are
/// continued and EINTR retried; on another error (a closed pipe) the rest is dropped. Unlike
/// `FileHandle.write(Data)` it copies nothing into a `Data` first, and it never traps.
public enum StandardStreams {
    public static func out(_ text: String) { write(text, to: STDOUT_FILENO) }
    public static func err(_ text: String) { write(text, to: STDERR_FILENO) }

    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n > 0 { offset += n } else if n < 0, errno == EINTR { continue } else { return }
            }
        }
    }
}
