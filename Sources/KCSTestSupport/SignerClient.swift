import Foundation

/// `kcs signer serve` as the tests start it (docs/signer.md): on a free loopback port, its socket
/// and token under the test's folder, stopped by its PID.
public struct SignerServer {
    public let process: Process
    /// `http://127.0.0.1:PORT` (without the token).
    public let url: String
    public let token: String
    public let socket: String
    public let account: String
    public let out: String
    public let err: String

    /// What it printed so far (the requests it showed, what became of them).
    public var shown: String { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }

    /// Stops it as Ctrl-C does (SIGINT) and waits; its exit status.
    @discardableResult
    public func stop() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGINT) }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

public struct SignerDidNotStart: Error, CustomStringConvertible {
    public let log: String
    public var description: String { "kcs signer serve did not start: " + log }
}

extension BatchHome {
    /// Starts `kcs signer serve --rpc NODE --listen 127.0.0.1:0` with `arguments`, and waits for
    /// the event itself — its ready file — for as long as it runs, within 2 minutes.
    public func startSigner(node: String, _ arguments: [String], name: String = "signer") throws -> SignerServer {
        var env = self
        let ready = path("\(name).ready")
        let runtime = path("\(name)-run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        chmod(runtime, 0o700)
        env.environment["KCS_SIGNER_READY_FILE"] = ready
        env.environment["XDG_RUNTIME_DIR"] = runtime
        let out = path("\(name).out"), err = path("\(name).err")
        let p = try env.start(
            arguments: ["signer", "serve", "--rpc", node, "--listen", "127.0.0.1:0"] + arguments, stdout: out,
            stderr: err)
        let deadline = Date().addingTimeInterval(120)
        while p.isRunning, Date() < deadline {
            if let data = FileManager.default.contents(atPath: ready), data.last == 0x0A,
                let facts = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let tokenFile = facts["tokenFile"] as? String,
                let token = try? String(contentsOfFile: tokenFile, encoding: .utf8)
            {
                return SignerServer(
                    process: p, url: facts["url"] as? String ?? "", token: token.trimmingCharacters(in: .newlines),
                    socket: facts["socket"] as? String ?? "", account: facts["account"] as? String ?? "", out: out,
                    err: err)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        if p.isRunning { kill(p.processIdentifier, SIGINT) }
        p.waitUntilExit()
        throw SignerDidNotStart(log: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}

/// `tools/signer-client/signer_client.py` in the EVM node's environment (web3.py 8.0.0,
/// eth-account): the clients kcs did not write.
public enum SignerClient {
    public static func run(_ arguments: [String]) throws -> [String: Any] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: EVMNode.python)
        p.arguments = [TestPaths.root.appendingPathComponent("tools/signer-client/signer_client.py").path] + arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.runWithSignalsUnblocked()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            throw SignerClientFailed(said: String(decoding: errors.suffix(2000), as: UTF8.self))
        }
        return object
    }

}

public struct SignerClientFailed: Error, CustomStringConvertible {
    public let said: String
    public var description: String { "signer_client.py failed: " + said }
}

/// One HTTP/1.1 exchange written byte for byte (a replayed client's exact request, or a hostile
/// one: a rebinding Host, a foreign Origin, a form POST), on a fresh connection.
public enum RawHTTP {
    public struct Answer: Sendable {
        public let status: Int
        /// Header names in lower case.
        public let headers: [String: String]
        public let body: [UInt8]
        /// The body as JSON (nil when empty or not JSON).
        public var json: Any? { try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }
        /// The JSON-RPC error code of a single answer.
        public var code: Int? { ((json as? [String: Any])?["error"] as? [String: Any])?["code"] as? Int }
        public var message: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["message"] as? String }
        public var result: Any? { (json as? [String: Any])?["result"] }
    }

    /// `url` is `http://127.0.0.1:PORT`; `headers` are sent as given (Host defaults to the URL's,
    /// Content-Type to JSON, Content-Length always).
    public static func send(
        _ url: String, method: String = "POST", path: String, headers: [(String, String)] = [], body: String = "",
        timeout: Int = 120
    ) throws -> Answer {
        let port = UInt16(url.split(separator: ":").last ?? "") ?? 0
        var head = "\(method) \(path) HTTP/1.1\r\n"
        let names = Set(headers.map { $0.0.lowercased() })
        if !names.contains("host") { head += "Host: 127.0.0.1:\(port)\r\n" }
        if !names.contains("content-type") { head += "Content-Type: application/json\r\n" }
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        let fd = connectLocal(port: port)
        guard fd >= 0 else { throw RawHTTPError(reason: "cannot connect to \(url)") }
        defer { close(fd) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let request = Array(head.utf8) + Array(body.utf8)
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 { break }  // the server may refuse before it reads everything
            sent += n
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            received += chunk[..<n]
        }
        guard
            let end = (0..<max(0, received.count - 3)).first(where: { i in
                received[i] == 13 && received[i + 1] == 10 && received[i + 2] == 13 && received[i + 3] == 10
            })
        else { throw RawHTTPError(reason: "no HTTP answer (\(received.count) bytes)") }
        let lines = String(decoding: received[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var answerHeaders: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            answerHeaders[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return Answer(status: status, headers: answerHeaders, body: Array(received[(end + 4)...]))
    }
}

extension RawHTTP {
    /// A TCP connection to 127.0.0.1:`port`: its descriptor, or -1.
    public static func connectLocal(port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, connected == 0 else {
            if fd >= 0 { close(fd) }
            return -1
        }
        return fd
    }
}

public struct RawHTTPError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { "raw HTTP: " + reason }
}
