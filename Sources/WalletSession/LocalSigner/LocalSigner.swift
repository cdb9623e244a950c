import EthRPC
import Foundation
import KCSErrors
import LocalRPC
import Synchronization
import WalletCore
import WalletCrypto
import WalletStore

// `kcs signer serve` (docs/signer.md): kcs as the signer other tools use. The front door is
// `LocalRPC`; here each call is routed (`SignerRoute`), read (`SignerCallReader`), and — when it
// signs — queued for the console, where it is filled from the node, shown as `sign … --dry-run`
// shows it, decided by the rules or the person, signed by the one `Session.sign`, checked, and
// logged with its outcome. Reads go to the node; signing and account methods never do.

/// How `kcs signer serve` was started.
public struct SignerServeOptions: Sendable {
    public var listen: String? = "127.0.0.1:1248"
    public var socket: String?
    /// The stored key that signs (nil: the card when `card` is given, else the active key).
    public var key: String?
    /// `sim:NAME`, `reader` or `reader:QUERY`, logged in with `pinFile` (and `pairingFile`).
    public var card: String?
    public var pinFile: String?
    public var pairingFile: String?
    /// The path that signs, from the key's master (an HD key or the card); a card signs at
    /// m/44'/60'/0'/0/0 when none is given.
    public var path: String?
    public var allowOrigins: [String] = []
    public var rulesFile: String?
    /// The rules file's SHA-256 this run accepts (hex), when pinned.
    public var rulesSHA256: String?
    /// The chain the node must report (else it is taken from the node).
    public var chainID: UInt64?
    public var approvalTimeout: Double = 120
    public var maxPending: Int = 128
    /// Seconds after a prompt is drawn in which keys are not an answer.
    public var inputDelay: Double = 0.5
    public var tokenFile: String?
    /// kcs's version, for `web3_clientVersion`.
    public var version: String = "kcs"

    public init() {}
}

/// Why `kcs signer serve` did not start.
public enum SignerServeError: WalletError, Equatable {
    case noSigner
    case chainMismatch(node: UInt64, given: UInt64)
    case rulesFile(file: String, reason: String)
    case rulesHash(file: String, actual: String, expected: String)
    case cannotListen(String)
    case options(String)

    public var id: String {
        switch self {
        case .noSigner: "signer.noSigner"
        case .chainMismatch: "signer.chainMismatch"
        case .rulesFile: "signer.rulesFile"
        case .rulesHash: "signer.rulesHash"
        case .cannotListen: "signer.cannotListen"
        case .options: "signer.options"
        }
    }

    public var description: String {
        switch self {
        case .noSigner: "no key signs: give --key NAME or --card sim:NAME|reader --pin-file FILE (or use a key first)"
        case .chainMismatch(let node, let given): "the node reports chain \(node), not the --chain-id \(given) given"
        case .rulesFile(let file, let reason): "\(file): \(reason)"
        case .rulesHash(let file, let actual, let expected):
            "\(file) has SHA-256 \(actual), not the \(expected) given with --rules-hash"
        case .cannotListen(let reason): reason
        case .options(let reason): reason
        }
    }
}

extension Session {
    /// Serves until Ctrl-C: every queued request is then refused and the listeners closed.
    public func serveSigner(_ options: SignerServeOptions) throws {
        // What the options say is checked before the node is asked or the card sees a PIN.
        let path: DerivationPath?
        do {
            path = try (options.path ?? (options.card != nil ? "m/44'/60'/0'/0/0" : nil)).map { try DerivationPath($0) }
        } catch {
            throw SignerServeError.options("--path must be a derivation path such as m/44'/60'/0'/0/0: \(error)")
        }
        let rules = try loadSignerRules(options)
        let node = try node()
        let reported = try node.chainID()
        guard let chainID = reported.uint64, chainID <= EthereumTransaction.maximumChainID else {
            throw SignerServeError.options("the node reports chain id \(reported), beyond what kcs signs for")
        }
        if let given = options.chainID, given != chainID {
            throw SignerServeError.chainMismatch(node: chainID, given: given)
        }
        let keyName: String
        if let card = options.card {
            guard let pinFile = options.pinFile else {
                throw SignerServeError.options("--card needs --pin-file: the PIN never comes over the endpoint")
            }
            keyName = try loginCard(
                medium: card, pinFile: pinFile, pairingFile: options.pairingFile, configuredIn: "--card")
        } else if let name = options.key ?? activeKey {
            keyName = name
        } else {
            throw SignerServeError.noSigner
        }
        let choice = SignerChoice(key: .stored(keyName), place: path.map { .masterPath($0) } ?? .current)
        let signer = try signer(for: choice)
        let account = EthereumAddress(publicKey: try signer.publicKey())
        // A software key's vault is opened now, at the console, never for a request.
        let store =
            try signer.keyRecord.map { record -> WalletStore in
                if case .software = record.storage { return try unlockedStore() }
                return try self.store()
            } ?? self.store()

        let runtime = try signerRuntimeDirectory()
        let token = Base64URL.encode(random.bytes(32))
        let tokenFile = options.tokenFile ?? (runtime as NSString).appendingPathComponent("signer.token")
        try AtomicFile.write(Array((token + "\n").utf8), to: tokenFile, mode: 0o600)
        defer { unlink(tokenFile) }
        let socket = options.socket ?? (runtime as NSString).appendingPathComponent("signer.sock")

        let endpoint = SignerEndpoint(
            session: self, store: store, node: node, chainID: chainID, keyName: keyName, choice: choice,
            account: account, rules: rules, options: options)
        let server: LocalRPCServer
        do {
            server = try LocalRPCServer(
                listen: options.listen, socket: socket, token: token, allowedOrigins: options.allowOrigins,
                handler: endpoint)
        } catch {
            throw SignerServeError.cannotListen(error.description)
        }
        server.start()
        defer { server.stop() }
        var lines = [
            "kcs signer: \(account.checksummed) (\(Self.signingDeviceName(signer.keyRecord, keyName))) on "
                + "\(EthereumChain.label(UInt256(chainID))), node \(node.endpoint)"
        ]
        if let url = server.url { lines.append("  http   \(url)/\(token)   (token also in \(tokenFile))") }
        lines.append("  socket \(socket)")
        lines.append(
            "  rules  "
                + (rules.map { "\(options.rulesFile ?? "") sha256 \($0.sha256)" } ?? "none: every request is asked here")
        )
        lines.append("  Ctrl-C stops; waiting requests are refused. Clients: docs/signer.md (cast --rpc-timeout 600).")
        show(lines.joined(separator: "\n"))
        if let file = environment["KCS_SIGNER_READY_FILE"], !file.isEmpty {
            let ready: [String: Any] = [
                "url": server.url ?? NSNull(), "socket": socket, "tokenFile": tokenFile,
                "account": account.checksummed, "chainId": chainID,
            ]
            let data = (try? JSONSerialization.data(withJSONObject: ready, options: [.sortedKeys])) ?? Data()
            try AtomicFile.write(Array(data) + [0x0A], to: file, mode: 0o600)
        }
        endpoint.run()
    }

    static func signingDeviceName(_ record: KeyRecord?, _ name: String) -> String {
        record.map { signingDevice($0) } ?? "key \(name)"
    }

    /// `$XDG_RUNTIME_DIR/kcs`, else `$KCS_HOME/run`: made 0700, refused when it is someone
    /// else's or open to others.
    func signerRuntimeDirectory() throws -> String {
        let base =
            environment.nonEmpty("XDG_RUNTIME_DIR").map { ($0 as NSString).appendingPathComponent("kcs") }
            ?? ((home ?? ".") as NSString).appendingPathComponent("run")
        if mkdir(base, 0o700) != 0 && errno != EEXIST {
            throw SignerServeError.options("cannot make \(base): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(base, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid() else {
            throw SignerServeError.options("\(base) must be a directory of this user (not a link)")
        }
        if info.st_mode & 0o077 != 0 { chmod(base, 0o700) }
        return base
    }

    func loadSignerRules(_ options: SignerServeOptions) throws -> SignerRules? {
        guard let file = options.rulesFile else { return nil }
        var info = stat()
        guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw SignerServeError.rulesFile(file: file, reason: "expected a regular file (not a link)")
        }
        guard info.st_uid == getuid(), info.st_mode & 0o022 == 0 else {
            throw SignerServeError.rulesFile(
                file: file, reason: "must be this user's and not writable by group or others (chmod go-w)")
        }
        guard case .bytes(let bytes) = BoundedFile.read(file, maximumBytes: 1 << 20) else {
            throw SignerServeError.rulesFile(file: file, reason: "expected a readable file of at most 1 MiB")
        }
        let rules = try SignerRules(json: bytes, file: file)
        if let pinned = options.rulesSHA256, pinned.lowercased() != rules.sha256 {
            throw SignerServeError.rulesHash(file: file, actual: rules.sha256, expected: pinned.lowercased())
        }
        return rules
    }
}

/// base64url without padding (RFC 4648 §5): the per-run token.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

/// The handler behind the front door: calls answered on the client's thread (accounts, chain,
/// forwarded reads) or queued for the console's (everything that signs).
final class SignerEndpoint: LocalRPCHandler, @unchecked Sendable {
    let session: Session
    let store: WalletStore
    let node: EthereumNode
    let chainID: UInt64
    let keyName: String
    /// The key and the place that sign every request.
    let choice: SignerChoice
    /// The signer as every review names it, and the person's own addresses by key name: read
    /// from the store once, at start (nothing else changes them while kcs serves).
    let signerSummary: SignerSummary?
    let ownKeyNames: (EthereumAddress) -> String?
    let account: EthereumAddress
    /// nil: no rules file, every request is asked at the console.
    let rules: SignerRules?
    let options: SignerServeOptions
    let queue: SignerQueue
    let stopping = Atomic<Bool>(false)
    let connectedOrigins = Mutex<Set<String>>([])
    /// The last nonce this run gave a transaction it filled (console thread only).
    var lastNonce: UInt256?

    static let maximumBatch = 100
    /// The deepest nesting a request may have (docs/signer.md, "Limits").
    static let maximumDepth = 64

    init(
        session: Session, store: WalletStore, node: EthereumNode, chainID: UInt64, keyName: String,
        choice: SignerChoice, account: EthereumAddress, rules: SignerRules?, options: SignerServeOptions
    ) {
        self.choice = choice
        self.signerSummary = session.signerSummary(choice)
        self.ownKeyNames = (try? session.ownKeyNames()) ?? { _ in nil }
        self.session = session
        self.store = store
        self.node = node
        self.chainID = chainID
        self.keyName = keyName
        self.account = account
        self.rules = rules
        self.options = options
        self.queue = SignerQueue(maximum: options.maxPending)
    }

    // MARK: The client's thread

    func answer(_ body: [UInt8], from caller: Caller) -> [UInt8]? {
        if JSONText.tooDeepOffset(body, maximumDepth: Self.maximumDepth) != nil {
            return encode(
                Self.error(
                    nil, SignerRPCError(-32600, "arrays and objects nest deeper than \(Self.maximumDepth) levels")))
        }
        let parsed: Any
        do { parsed = try JSONText.parse(body) } catch {
            return encode(Self.error(nil, SignerRPCError(-32700, "parse error: \(error.description)")))
        }
        if let batch = parsed as? [Any] {
            guard !batch.isEmpty, batch.count <= Self.maximumBatch else {
                return encode(
                    Self.error(
                        nil,
                        SignerRPCError(-32600, "a batch holds 1 to \(Self.maximumBatch) calls, got \(batch.count)")))
            }
            let answers = batch.compactMap { call($0, caller) }
            return answers.isEmpty ? nil : encode(answers)
        }
        return call(parsed, caller).flatMap { encode($0) }
    }

    func encode(_ object: Any) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])) ?? Data())
    }

    static func error(_ id: Any?, _ e: SignerRPCError) -> [String: Any] {
        RPCErrorBody.object(id: id, code: e.code, message: e.message, data: e.hash.map { ["hash": $0] })
    }

    static func result(_ id: Any, _ result: Any) -> [String: Any] { ["jsonrpc": "2.0", "id": id, "result": result] }

    /// One call's response; nil for a notification.
    func call(_ any: Any, _ caller: Caller) -> [String: Any]? {
        guard let object = any as? [String: Any], let method = object["method"] as? String,
            object["jsonrpc"] as? String == "2.0"
        else {
            return Self.error((any as? [String: Any])?["id"], SignerRPCError(-32600, "expected a JSON-RPC 2.0 call"))
        }
        let id = object["id"]
        let response = respond(method, params: object["params"], id: id ?? NSNull(), caller: caller)
        return id == nil ? nil : response
    }

    func respond(_ method: String, params: Any?, id: Any, caller: Caller) -> [String: Any]? {
        let list = params as? [Any] ?? []
        if params != nil && !(params is [Any]) && SignerRoute.of(method) != .forwarded {
            return Self.error(id, .invalid("params must be a list"))
        }
        switch SignerRoute.of(method) {
        case .answered:
            return answered(method, list, id: id, caller: caller)
        case .forwarded:
            return forward(method, params: params ?? [Any](), id: id)
        case .unsupported(let why):
            return Self.error(id, SignerRPCError(4200, why))
        case .refused:
            return Self.error(
                id, SignerRPCError(-32601, "the method \(method) is not available through kcs (it is never forwarded)"))
        case .signing:
            let call: SignerCall
            do { call = try SignerCallReader.read(method, list, account: account, chainID: chainID) } catch {
                return Self.error(id, error)
            }
            if caller.origin != nil && !isConnected(caller) { return Self.error(id, .notAuthorized) }
            return enqueue(method, call, id: id, caller: caller)
        }
    }

    func isConnected(_ caller: Caller) -> Bool {
        guard let origin = caller.origin else { return true }
        return connectedOrigins.withLock { $0.contains(origin) }
    }

    func answered(_ method: String, _ params: [Any], id: Any, caller: Caller) -> [String: Any]? {
        let accounts = isConnected(caller) ? [account.checksummed] : []
        switch method {
        case "eth_accounts", "account_list":
            return Self.result(id, accounts)
        case "eth_coinbase":
            return Self.result(id, accounts.first.map { $0 as Any } ?? NSNull())
        case "eth_chainId":
            return Self.result(id, UInt256(chainID).hexQuantity)
        case "web3_clientVersion":
            return Self.result(id, options.version)
        case "account_version":
            return Self.result(id, "6.1.0")
        case "wallet_switchEthereumChain":
            let asked = ((params.first as? [String: Any])?["chainId"] as? String).flatMap {
                try? EthereumUnits.parse($0)
            }
            guard asked == UInt256(chainID) else {
                return Self.error(
                    id, SignerRPCError(4902, "kcs signs for chain \(chainID) only; restart it with another node"))
            }
            return Self.result(id, NSNull())
        case "wallet_getPermissions":
            return Self.result(id, accounts.isEmpty ? [] : [["parentCapability": "eth_accounts"]])
        default:  // eth_requestAccounts, wallet_requestPermissions
            if let origin = caller.origin, !isConnected(caller) {
                let answer = enqueue(method, .connect(origin: origin), id: id, caller: caller)
                guard let answer, answer["error"] == nil else { return answer }
            }
            return method == "wallet_requestPermissions"
                ? Self.result(id, [["parentCapability": "eth_accounts"]]) : Self.result(id, [account.checksummed])
        }
    }

    func forward(_ method: String, params: Any, id: Any) -> [String: Any] {
        do {
            var response = try node.client.forward(method, params: params)
            response["id"] = id
            response["jsonrpc"] = "2.0"
            return response
        } catch {
            return Self.error(
                id, SignerRPCError(4900, "the node at \(node.endpoint) did not answer: \(error.description)"))
        }
    }

    func enqueue(_ method: String, _ call: SignerCall, id: Any, caller: Caller) -> [String: Any]? {
        guard !stopping.load(ordering: .relaxed) else {
            return Self.error(id, .denied("the request: kcs signer is stopping"))
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(options.approvalTimeout * 1000))
        guard
            let request = queue.add({ number in
                PendingRequest(
                    number: number, method: method, call: call, caller: caller, id: id, deadline: deadline)
            })
        else {
            return Self.error(
                id,
                SignerRPCError(
                    -32002, "\(queue.maximum) requests are already waiting for approval at the kcs console; try later"))
        }
        return request.waitForAnswer(expiredResponse: expired(id))
    }

    // MARK: The console's thread

    /// Works through the queue until Ctrl-C; then refuses what waits.
    func run() {
        while true {
            if session.prompts?.shouldInterrupt() == true { break }
            guard let request = queue.next(seconds: 0.1) else { continue }
            if !handle(request) { break }
        }
        stopping.store(true, ordering: .relaxed)
        for request in queue.drain() {
            if request.settleQueued(
                Self.error(request.id, .denied("the request: kcs signer stopped")), outcome: .denied, by: "stopped")
            {
                log(request, .denied, by: "stopped")
            }
        }
        session.show("kcs signer: stopped")
    }

    /// Shows, decides and (when approved) signs one request; false when Ctrl-C at its prompt
    /// stops the server.
    func handle(_ request: PendingRequest) -> Bool {
        guard request.show() else {
            if let (outcome, by) = request.earlyOutcome { log(request, outcome, by: by) }
            return true
        }
        do {
            var prepared = try prepare(request)
            switch try decide(request, prepared) {
            case .approved(let by):
                try sign(request, &prepared, by: by)
            case .withdrawn:
                session.show("  request #\(request.number): withdrawn — the client gave up; nothing was signed")
                request.finish(nil)
                log(request, prepared, .withdrawn, by: "client")
            case .expired:
                session.show("  request #\(request.number): expired; nothing was signed")
                request.finish(expired(request.id))
                log(request, prepared, .expired, by: "timeout")
            case .denied(let by, let answer):
                session.show("  request #\(request.number): denied (\(by))")
                request.finish(Self.error(request.id, .denied(answer)))
                log(request, prepared, .denied, by: by)
            }
        } catch let e as SignerRPCError {
            session.show("  request #\(request.number): refused — \(e.message)")
            request.finish(Self.error(request.id, e))
            log(request, e.code == 4001 ? .denied : .refused, by: e.message)
        } catch is PromptInterrupted {
            request.finish(Self.error(request.id, .denied("the request: kcs signer stopped")))
            log(request, .denied, by: "stopped")
            return false
        } catch {
            let message = (error as? any IdentifiableError)?.description ?? "\(error)"
            session.show("  request #\(request.number): failed — \(message)")
            request.finish(Self.error(request.id, SignerRPCError(-32603, message)))
            log(request, .failed, by: message)
        }
        return true
    }

    /// The answer to a request not approved within `--approval-timeout`.
    func expired(_ id: Any) -> [String: Any] {
        Self.error(id, .denied("the request: not approved within \(Int(options.approvalTimeout)) s"))
    }
}

/// What a rule or the person decided about one request.
enum Decision {
    /// `by`: `console` or `rule NAME`.
    case approved(by: String)
    /// `by` is logged; `answer` follows "User denied " in the client's error.
    case denied(by: String, answer: String)
    /// The client gave up while it was asked.
    case withdrawn
    /// Not answered within `--approval-timeout`.
    case expired
}
