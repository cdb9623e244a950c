// `kcs signer serve`: kcs as the signer other tools use (docs/signer.md) — a local JSON-RPC
// endpoint for Foundry, web3.py, ethers, geth and browser pages, every request shown and approved
// at this console or by a rules file. It calls the session's signer (`SignerService`) with the
// console's host, so the vault, prompts and exit codes are the console's own.
import ArgumentParser
import Foundation
import KCSConsole
import WalletSession

struct SignerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signer", abstract: "A local JSON-RPC signer for other tools.", subcommands: [Serve.self])

    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract:
                "Serve a local JSON-RPC endpoint that signs with this home's key or the card after showing each request.",
            discussion:
                "Needs a node (--rpc or KCS_RPC_URL): its chain is pinned at start, reads are forwarded to it, and only signed transactions are sent. Ctrl-C stops it; waiting requests are refused."
        )

        @Option(name: .long, help: "127.0.0.1:PORT to serve HTTP on (default 127.0.0.1:1248; port 0 picks one).")
        var listen: String = "127.0.0.1:1248"

        @Flag(name: .long, help: "Serve the Unix socket only, no HTTP.")
        var noHttp = false

        @Option(name: .long, help: "The Unix socket's path (default $XDG_RUNTIME_DIR/kcs/signer.sock).")
        var socket: String?

        @Option(name: .long, help: "The stored key that signs (default: the active key).")
        var key: String?

        @Option(name: .long, help: "Sign with the card: sim:NAME, reader or reader:QUERY (with --pin-file).")
        var card: String?

        @Option(name: .long, help: "A file whose first line is the card's PIN.")
        var pinFile: String?

        @Option(name: .long, help: "A file whose first line is a 3.1 card's pairing password.")
        var pairingFile: String?

        @Option(name: .long, help: "The path that signs, from the key's master (a card: default m/44'/60'/0'/0/0).")
        var path: String?

        @Option(
            name: .long,
            help: "A browser origin allowed to call (exactly, e.g. http://localhost:5173); repeat for more.")
        var allowOrigin: [String] = []

        @Option(name: .long, help: "A JSON rules file that approves or denies requests unattended (docs/signer.md).")
        var rules: String?

        @Option(name: .long, help: "The rules file's SHA-256 (hex): start only if it matches.")
        var rulesHash: String?

        @Option(name: .long, help: "The chain id the node must report.")
        var chainId: UInt64?

        @Option(name: .long, help: "Seconds a request waits for approval (default 120).")
        var approvalTimeout: Double = 120

        @Option(name: .long, help: "Requests that may wait for approval at once (default 128).")
        var maxPending: Int = 128

        @Option(name: .long, help: "Seconds after a prompt appears in which keys are ignored (default 0.5).")
        var inputDelay: Double = 0.5

        @Option(name: .long, help: "Where to write the per-run token (default beside the socket).")
        var tokenFile: String?

        @OptionGroup var common: CommonOptions

        func validate() throws {
            if card != nil && key != nil { throw ValidationError("give --key or --card, not both") }
            if card != nil && pinFile == nil { throw ValidationError("--card needs --pin-file") }
            guard approvalTimeout > 0 && approvalTimeout <= 86_400 else {
                throw ValidationError("--approval-timeout must be between 0 and 86400 seconds, got \(approvalTimeout)")
            }
            guard (1...10_000).contains(maxPending) else {
                throw ValidationError("--max-pending must be 1 to 10000, got \(maxPending)")
            }
            guard inputDelay >= 0 && inputDelay <= 10 else {
                throw ValidationError("--input-delay must be 0 to 10 seconds, got \(inputDelay)")
            }
            for origin in allowOrigin where origin == "null" || origin == "*" || !origin.contains("://") {
                throw ValidationError(
                    "--allow-origin must be an exact origin such as http://localhost:5173, got \(origin)")
            }
        }

        func run() throws {
            let host = ConsoleHost()
            defer { host.session.close() }
            _ = common.runner(host: host, json: false)  // the home, the node and the colours, as the console's
            var options = SignerServeOptions()
            options.listen = noHttp ? nil : listen
            options.socket = socket
            options.key = key
            options.card = card
            options.pinFile = pinFile
            options.pairingFile = pairingFile
            options.path = path
            options.allowOrigins = allowOrigin
            options.rulesFile = rules
            options.rulesSHA256 = rulesHash
            options.chainID = chainId
            options.approvalTimeout = approvalTimeout
            options.maxPending = maxPending
            options.inputDelay = inputDelay
            options.tokenFile = tokenFile
            throw ExitCode(SignerService.serve(host: host, options: options, noColor: common.noColor))
        }
    }
}
