import Foundation
import MPCLink
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

// The local signer's front door (docs/signer.md): HTTP on the loopback address and a Unix socket
// (0600, its peer of this user), each connection on a thread of its own, at most 160 at once.
// What a request asks is the handler's business; this layer knows transports, limits and the
// gate, and tells the handler who called and whether that caller is still there.

/// Who sent a request, as the transport knows it. `origin` and `userAgent` are what the caller
/// stated; only the socket's pid and command come from the kernel.
public struct Caller: Sendable {
    public enum Transport: Sendable, Equatable {
        case http(remote: String)
        case socket(pid: Int32?, command: String?)
    }

    public let transport: Transport
    /// The browser origin, when the request had one (the gate let only an allowed one through).
    public let origin: String?
    public let userAgent: String?
    let gone: @Sendable () -> Bool

    public init(
        transport: Transport, origin: String? = nil, userAgent: String? = nil,
        gone: @escaping @Sendable () -> Bool = { false }
    ) {
        self.transport = transport
        self.origin = origin
        self.userAgent = userAgent
        self.gone = gone
    }

    /// True once the client closed its connection: its request is withdrawn.
    public var hasGoneAway: Bool { gone() }

    /// How the transport names it: `http 127.0.0.1`, `socket pid 4242 (python3)`.
    public var transportName: String {
        switch transport {
        case .http(let remote): "http \(remote)"
        case .socket(let pid, let command):
            "socket" + (pid.map { " pid \($0)" } ?? "") + (command.map { " (\($0))" } ?? "")
        }
    }
}

/// Answers one request body (a JSON-RPC call or batch); nil when it holds only notifications.
public protocol LocalRPCHandler: AnyObject, Sendable {
    func answer(_ body: [UInt8], from caller: Caller) -> [UInt8]?
}

public enum LocalRPCError: Error, Equatable, CustomStringConvertible {
    case notLoopback(String)
    case cannotListen(String)

    public var description: String {
        switch self {
        case .notLoopback(let text):
            "--listen must be 127.0.0.1:PORT or localhost:PORT (loopback only), got \(text)"
        case .cannotListen(let reason): reason
        }
    }
}

public final class LocalRPCServer: @unchecked Sendable {
    public static let maximumConnections = 160

    let http: SocketListener?
    let unix: SocketListener?
    let handler: any LocalRPCHandler
    let token: String
    let allowedOrigins: [String]
    let limits: HTTPLimits
    let open = Atomic<Int>(0)
    let stopped = Atomic<Bool>(false)
    let acceptors = DispatchGroup()
    let connections = DispatchGroup()

    /// `listen` is `127.0.0.1:PORT` (port 0 picks one) or nil; `socket` a path or nil.
    public init(
        listen: String?, socket: String?, token: String, allowedOrigins: [String], handler: any LocalRPCHandler,
        limits: HTTPLimits = HTTPLimits()
    ) throws(LocalRPCError) {
        if let listen {
            guard let colon = listen.lastIndex(of: ":"), ["127.0.0.1", "localhost"].contains(listen[..<colon]),
                let port = UInt16(listen[listen.index(after: colon)...])
            else { throw .notLoopback(listen) }
            do { http = try SocketListener(.tcp(host: "127.0.0.1", port: port), backlog: 64) } catch {
                throw .cannotListen("cannot listen on \(listen): \(error)")
            }
        } else {
            http = nil
        }
        if let socket {
            do { unix = try SocketListener(.unix(socket), backlog: 64) } catch {
                throw .cannotListen("cannot listen on \(socket): \(error)")
            }
        } else {
            unix = nil
        }
        self.token = token
        self.allowedOrigins = allowedOrigins
        self.handler = handler
        self.limits = limits
    }

    /// The port HTTP listens on, when it does.
    public var port: UInt16? {
        if case .tcp(_, let port) = http?.endpoint { return port }
        return nil
    }

    /// `http://127.0.0.1:PORT` (without the token).
    public var url: String? { port.map { "http://127.0.0.1:\($0)" } }

    /// Starts accepting on every listener (a thread each).
    public func start() {
        for listener in [http, unix].compactMap({ $0 }) {
            acceptors.enter()
            let thread = Thread { [self] in
                defer { acceptors.leave() }
                acceptLoop(listener)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Stops accepting and lets open connections end (their answers written) for up to
    /// `seconds`; a kept-alive connection with nothing in flight is not waited for.
    public func stop(seconds: Double = 2) {
        stopped.store(true, ordering: .relaxed)
        acceptors.wait()
        _ = connections.wait(timeout: .now() + seconds)
    }

    func acceptLoop(_ listener: SocketListener) {
        while !stopped.load(ordering: .relaxed) {
            guard let stream = try? listener.accept(seconds: 1) else { continue }
            guard open.add(1, ordering: .relaxed).newValue <= Self.maximumConnections else {
                open.subtract(1, ordering: .relaxed)
                stream.shutdownNow()
                continue
            }
            connections.enter()
            let isHTTP = listener === http
            let thread = Thread { [self] in
                defer {
                    open.subtract(1, ordering: .relaxed)
                    connections.leave()
                }
                if isHTTP { serveHTTP(stream) } else { serveSocket(stream) }
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    // MARK: HTTP

    func serveHTTP(_ stream: SocketStream) {
        var reader = HTTPReader(stream: stream, limits: limits)
        let configuration = GateConfiguration(
            port: port ?? 0, token: token, allowedOrigins: allowedOrigins, maximumBody: limits.body)
        requests: while !stopped.load(ordering: .relaxed) {
            let head: HTTPRequest
            let deadline: ContinuousClock.Instant
            do throws(HTTPReadFailure) { (head, deadline) = try reader.readHead() } catch {
                if case .status(let status, let message) = error {
                    _ = stream.sendAll(Gate.refusal(status, code: -32600, message, close: true).bytes)
                }
                stream.shutdownNow()
                return
            }
            var request = head
            switch Gate.check(request, configuration) {
            case .answer(var response):
                if request.header("connection")?.lowercased().contains("close") == true { response.close = true }
                guard stream.sendAll(response.bytes), !response.close else {
                    stream.shutdownNow()
                    return
                }
            case .pass(let length, let cors):
                do throws(HTTPReadFailure) { try reader.readBody(of: &request, length: length, until: deadline) } catch
                {
                    if case .status(let status, let message) = error {
                        _ = stream.sendAll(Gate.refusal(status, code: -32600, message, close: true).bytes)
                    }
                    stream.shutdownNow()
                    return
                }
                let caller = Caller(
                    transport: .http(remote: stream.peerHost ?? "127.0.0.1"), origin: cors,
                    userAgent: request.header("user-agent"), gone: { stream.peerHasClosed })
                let body = handler.answer(request.body, from: caller)
                var headers: [(String, String)] = [("Content-Type", "application/json")]
                if let cors { headers += Gate.corsHeaders(cors) }
                // A client that said it closes after this answer is not kept waiting for more.
                let closing = request.header("connection")?.lowercased().contains("close") == true
                guard
                    stream.sendAll(HTTPResponse(status: 200, headers: headers, body: body ?? [], close: closing).bytes),
                    !closing
                else { break requests }
            }
        }
        stream.shutdownNow()
    }

    // MARK: Unix socket

    func serveSocket(_ stream: SocketStream) {
        let peer = stream.peerCredentials
        guard let peer, peer.uid == getuid() else {
            stream.shutdownNow()
            return
        }
        let command = (try? String(contentsOfFile: "/proc/\(peer.pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let gone = Atomic<Bool>(false)
        let writing = Mutex<Void>(())
        let inFlight = DispatchGroup()
        let caller = Caller(
            transport: .socket(pid: peer.pid, command: command), gone: { gone.load(ordering: .relaxed) })
        var buffer: [UInt8] = []
        reading: while !stopped.load(ordering: .relaxed) {
            // Whole JSON texts out of the buffer, each answered on a thread of its own (a client
            // may wait for a signature on one id while it reads on another).
            while true {
                let end: Int?
                do throws(JSONFramingError) { end = try JSONFraming.firstValueEnd(buffer) } catch {
                    _ = writing.withLock { _ in
                        stream.sendAll(
                            RPCErrorBody.encode(id: nil, code: -32700, message: "expected a JSON object or array") + [
                                0x0A
                            ])
                    }
                    break reading
                }
                guard let end else { break }
                let text = Array(buffer[..<end])
                buffer.removeFirst(end)
                inFlight.enter()
                let thread = Thread { [self] in
                    defer { inFlight.leave() }
                    if let body = handler.answer(text, from: caller) {
                        _ = writing.withLock { _ in stream.sendAll(body + [0x0A]) }
                    }
                }
                thread.stackSize = 4 << 20
                thread.start()
            }
            if buffer.count > limits.body {
                _ = writing.withLock { _ in
                    stream.sendAll(
                        RPCErrorBody.encode(id: nil, code: -32600, message: "a request is larger than 2 MiB") + [0x0A])
                }
                break
            }
            guard let chunk = stream.readSome(64 << 10, until: .now + .seconds(1)) else { continue }
            if chunk.isEmpty { break }
            buffer += chunk
            if JSONFraming.isBlank(buffer) { buffer.removeAll() }
        }
        gone.store(true, ordering: .relaxed)
        inFlight.wait()
        stream.shutdownNow()
    }
}
