import Foundation
import MPCLink

// One HTTP/1.1 request as the local signer reads it (docs/signer.md, "Security"): the head within
// 16 KiB, a `Content-Length` body of at most 2 MiB (no chunked bodies), the whole request within
// 10 s of its first byte, and at most 30 s of silence between requests on a kept-alive connection.

/// A request's head and body.
public struct HTTPRequest: Sendable {
    public let method: String
    /// The request target, as sent (`/TOKEN`).
    public let target: String
    /// Header names in lower case; a repeated header's values joined with ", ".
    public let headers: [String: String]
    public var body: [UInt8]

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why a connection's next request could not be read: the status to answer (or none: close).
public enum HTTPReadFailure: Error, Equatable {
    /// The client closed the connection, or stayed silent past the idle limit: close quietly.
    case ended
    case status(Int, String)
}

/// The limits of `HTTPReader`.
public struct HTTPLimits: Sendable {
    public var head = 16 << 10
    public var body = 2 << 20
    /// Seconds for a whole request, from its first byte (slow clients cannot hold a thread).
    public var request: Double = 10
    /// Seconds a kept-alive connection may stay silent between requests.
    public var idle: Double = 30
    public init() {}
}

/// Reads requests off one connection, keeping bytes that belong to the next one.
public struct HTTPReader {
    let stream: SocketStream
    let limits: HTTPLimits
    var buffer: [UInt8] = []

    public init(stream: SocketStream, limits: HTTPLimits) {
        self.stream = stream
        self.limits = limits
    }

    /// The head of the next request; its body is read by `readBody` once the gate let it through
    /// (a refused request's body is never read).
    public mutating func readHead() throws(HTTPReadFailure) -> (HTTPRequest, deadline: ContinuousClock.Instant) {
        var deadline = ContinuousClock.now + .milliseconds(Int(limits.idle * 1000))
        var started = !buffer.isEmpty
        if started { deadline = ContinuousClock.now + .milliseconds(Int(limits.request * 1000)) }
        var end: Int?
        while true {
            if let e = Self.endOfHead(buffer) {
                end = e
                break
            }
            if buffer.count > limits.head { throw .status(431, "the request head is larger than 16 KiB") }
            guard let chunk = stream.readSome(16 << 10, until: deadline) else {
                if started { throw .status(408, "the request did not arrive within \(Int(limits.request)) s") }
                throw .ended
            }
            if chunk.isEmpty { throw .ended }
            if !started {
                started = true
                deadline = ContinuousClock.now + .milliseconds(Int(limits.request * 1000))
            }
            buffer += chunk
        }
        guard let end, end <= limits.head else { throw .status(431, "the request head is larger than 16 KiB") }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            throw .status(400, "expected an HTTP/1.1 request line")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .status(400, "a header line without a name")
            }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "host", headers[name] != nil { throw .status(400, "the Host header is given twice") }
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return (
            HTTPRequest(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: []),
            deadline
        )
    }

    /// The body of `request` (its `Content-Length`, already checked against the limit), by `deadline`.
    public mutating func readBody(
        of request: inout HTTPRequest, length: Int, until deadline: ContinuousClock.Instant
    ) throws(HTTPReadFailure) {
        while buffer.count < length {
            guard let chunk = stream.readSome(min(64 << 10, length - buffer.count), until: deadline) else {
                throw .status(408, "the request did not arrive within \(Int(limits.request)) s")
            }
            if chunk.isEmpty { throw .ended }
            buffer += chunk
        }
        request.body = Array(buffer[..<length])
        buffer.removeFirst(length)
    }

    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4)
        where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}

/// An answer: status, headers, body; `close` ends the connection after it.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    public var close: Bool

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], close: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.close = close
    }

    static let reasons: [Int: String] = [
        200: "OK", 204: "No Content", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
        405: "Method Not Allowed", 408: "Request Timeout", 411: "Length Required", 413: "Content Too Large",
        415: "Unsupported Media Type", 431: "Request Header Fields Too Large",
    ]

    public var bytes: [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reasons[status] ?? "Status")\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n"
        head += close ? "Connection: close\r\n" : "Connection: keep-alive\r\n"
        head += "Cache-Control: no-store\r\n\r\n"
        return Array(head.utf8) + body
    }
}
