#if canImport(Glibc)
    import Glibc
#endif

/// Where a co-signer listens: `unix:/path` (or a path) or `host:port` (IPv4, 127.0.0.1 by default).
public enum Endpoint: Sendable, Equatable, CustomStringConvertible {
    case unix(String)
    case tcp(host: String, port: UInt16)

    public init(_ text: String) throws(MPCLinkError) {
        if text.hasPrefix("unix:") {
            self = .unix(String(text.dropFirst(5)))
        } else if text.hasPrefix("/") || text.hasPrefix(".") {
            self = .unix(text)
        } else if let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) {
            let host = String(text[..<colon])
            self = .tcp(host: host.isEmpty ? "127.0.0.1" : host, port: port)
        } else {
            throw .badAddress(text)
        }
    }

    public var description: String {
        switch self {
        case .unix(let path): "unix:" + path
        case .tcp(let host, let port): "\(host):\(port)"
        }
    }
}

/// A connected stream socket with deadlines on every read.
public final class SocketStream: @unchecked Sendable {
    let fd: Int32
    let peer: String
    /// The peer's address without its port ("127.0.0.1"), for a limit per address; nil when unknown.
    public var peerHost: String?

    init(fd: Int32, peer: String) {
        self.fd = fd
        self.peer = peer
    }

    deinit { close(fd) }

    /// Connects to `endpoint`.
    public static func connect(_ endpoint: Endpoint) throws(MPCLinkError) -> SocketStream {
        let (fd, ok, why) = withAddress(endpoint) { fd, addr, len in Glibc.connect(fd, addr, len) == 0 }
        guard ok else {
            if fd >= 0 { close(fd) }
            throw .unreachable(address: endpoint.description, reason: why)
        }
        return SocketStream(fd: fd, peer: endpoint.description)
    }

    /// Reads exactly `count` bytes by `deadline`: a total for the whole read, not a wait per
    /// piece, so a peer sending a byte now and then cannot hold a read open for ever.
    func read(
        _ count: Int, until deadline: ContinuousClock.Instant, seconds: Int, what: String
    ) throws(MPCLinkError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let left = deadline - ContinuousClock.now
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            guard milliseconds > 0 else { throw .timeout(waitingFor: what, seconds: seconds) }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(min(milliseconds, Int64(Int32.max))))
            if ready == 0 { throw .timeout(waitingFor: what, seconds: seconds) }
            if ready < 0 {
                if errno == EINTR { continue }
                throw .closed(during: what)
            }
            let n = out.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                throw .closed(during: what)
            }
            got += n
        }
        return out
    }

    func write(_ bytes: [UInt8], what: String) throws(MPCLinkError) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                throw .closed(during: what)
            }
            sent += n
        }
    }

    /// Closes the connection now (the peer reads end-of-stream).
    public func shutdownNow() { _ = shutdown(fd, Int32(SHUT_RDWR)) }

    /// Reads what has come, at most `maximum` bytes, waiting until `deadline`: [] at end of
    /// stream, nil when the deadline passed with nothing (the local signer's HTTP and socket
    /// framing, which do not know a message's length before they read it).
    public func readSome(_ maximum: Int, until deadline: ContinuousClock.Instant) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: maximum)
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            guard milliseconds > 0 else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(min(milliseconds, Int64(Int32.max))))
            if ready == 0 { return nil }
            if ready < 0 {
                if errno == EINTR { continue }
                return []
            }
            let n = out.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, maximum, 0) }
            if n < 0 && errno == EINTR { continue }
            return n <= 0 ? [] : Array(out[..<n])
        }
    }

    /// Writes all of `bytes`; false when the peer is gone.
    public func sendAll(_ bytes: [UInt8]) -> Bool {
        do throws(MPCLinkError) { try write(bytes, what: "an answer") } catch { return false }
        return true
    }

    /// True once the peer has closed its side (or the connection broke), without reading what
    /// it sent: the local signer withdraws a request whose client gave up.
    public var peerHasClosed: Bool {
        // POLLRDHUP (Linux, <poll.h> under _GNU_SOURCE, which Swift's Glibc does not define).
        let rdhup: Int16 = 0x2000
        var p = pollfd(fd: fd, events: rdhup, revents: 0)
        guard poll(&p, 1, 0) > 0 else { return false }
        return p.revents & (rdhup | Int16(POLLHUP) | Int16(POLLERR)) != 0
    }

    /// The process at the other end of a Unix socket, as the kernel reports it (`SO_PEERCRED`).
    public var peerCredentials: (pid: Int32, uid: UInt32)? {
        // struct ucred {pid_t pid; uid_t uid; gid_t gid;} (<sys/socket.h> under _GNU_SOURCE);
        // SO_PEERCRED is 17 on Linux.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, 17, &credentials, &length) == 0 else { return nil }
        return (credentials.pid, credentials.uid)
    }
}

/// A socket for `endpoint` and `body` run with its address; returns (fd, body's result, reason).
func withAddress(
    _ endpoint: Endpoint, _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool
) -> (Int32, Bool, String) {
    switch endpoint {
    case .unix(let path):
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            return (-1, false, "the socket path is too long")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return (fd, false, String(cString: strerror(errno))) }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return (fd, ok, ok ? "" : String(cString: strerror(errno)))
    case .tcp(let host, let port):
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &addr.sin_addr) == 1 else {
            return (-1, false, "\(host) is not an IPv4 address")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return (fd, false, String(cString: strerror(errno))) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return (fd, ok, ok ? "" : String(cString: strerror(errno)))
    }
}

/// A listening socket.
public final class SocketListener: @unchecked Sendable {
    let fd: Int32
    public let endpoint: Endpoint

    deinit {
        close(fd)
        if case .unix(let path) = endpoint { unlink(path) }
    }

    /// Removes what is at `path` only when it is a socket nobody listens on (a co-signer that
    /// ended without cleaning up): a file, a link or a live socket there is refused, not deleted.
    static func removeStaleSocket(_ path: String, endpoint: Endpoint) throws(MPCLinkError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw .cannotListen(
                address: endpoint.description,
                reason: "\(path) exists and is not a socket; kcs removes only a stale socket")
        }
        if let live = try? SocketStream.connect(endpoint) {
            live.shutdownNow()
            throw .cannotListen(address: endpoint.description, reason: "another process listens on \(path)")
        }
        unlink(path)
    }

    /// Listens on `endpoint` (a Unix socket is created with mode 0600, under umask 077 so it
    /// never exists with a wider mode; port 0 picks a free port).
    public init(_ endpoint: Endpoint, backlog: Int32 = 8) throws(MPCLinkError) {
        if case .unix(let path) = endpoint { try Self.removeStaleSocket(path, endpoint: endpoint) }
        let (fd, ok, why) = withAddress(endpoint) { fd, addr, len in
            let old = umask(0o077)
            defer { umask(old) }
            return bind(fd, addr, len) == 0 && listen(fd, backlog) == 0
        }
        guard ok else {
            if fd >= 0 { close(fd) }
            throw .cannotListen(address: endpoint.description, reason: why)
        }
        self.fd = fd
        switch endpoint {
        case .unix(let path):
            chmod(path, 0o600)
            self.endpoint = endpoint
        case .tcp(let host, _):
            var addr = sockaddr_in()
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
            }
            self.endpoint = .tcp(host: host, port: UInt16(bigEndian: addr.sin_port))
        }
    }

    /// Waits for the next connection (nil after `seconds` without one, when given).
    public func accept(seconds: Int? = nil) throws(MPCLinkError) -> SocketStream? {
        while true {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, seconds.map { Int32($0 * 1000) } ?? -1)
            if ready == 0 { return nil }
            if ready < 0 {
                if errno == EINTR { continue }
                throw .cannotListen(address: endpoint.description, reason: String(cString: strerror(errno)))
            }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(fd, $0, &length) }
            }
            if client < 0 {
                if errno == EINTR { continue }
                throw .cannotListen(address: endpoint.description, reason: String(cString: strerror(errno)))
            }
            let stream = SocketStream(fd: client, peer: "a client of \(endpoint)")
            if address.ss_family == sa_family_t(AF_INET) {
                stream.peerHost = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        String(cString: inet_ntoa($0.pointee.sin_addr))
                    }
                }
            } else if address.ss_family == sa_family_t(AF_UNIX) {
                stream.peerHost = "local"
            }
            return stream
        }
    }
}
