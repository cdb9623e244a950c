// `kcs cosigner serve`: this home as the co-signer of two-party keys (docs/two-party.md). It calls
// the session's co-signer (`CosignerService`) with the console's host, so the vault, prompts and
// exit codes are the console's own.
import ArgumentParser
import Foundation
import KCSConsole

struct Cosigner: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cosigner", abstract: "A co-signer for two-party keys.", subcommands: [Serve.self])

    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Pair with consoles, make joint keys with them and co-sign what they ask, after showing it.",
            discussion:
                "Its shares are sealed in this home's vault (KCS_VAULT_PASSPHRASE or KCS_VAULT_PASSPHRASE_FILE in a batch run). Ctrl-C stops it."
        )

        @Option(name: .long, help: "HOST:PORT to listen on (default 127.0.0.1:7000).")
        var listen: String?

        @Option(name: .long, help: "A Unix socket path to listen on instead (created 0600).")
        var socket: String?

        @Option(
            name: .long, help: "ask: show each request and ask (the default); all: sign unattended (tests, scripts).")
        var approve: String = "ask"

        @Option(name: .long, help: "Stop after this many connections.")
        var sessions: Int?

        @Flag(
            name: .long,
            help: "Pair any console without asking (else every pairing is confirmed here, whatever --approve says).")
        var pairAny = false

        @Flag(name: .long, help: "Co-sign bare 32-byte digests (else refused: they cannot be shown).")
        var allowRawDigests = false

        @OptionGroup var common: CommonOptions

        func validate() throws {
            guard approve == "ask" || approve == "all" else {
                throw ValidationError("--approve must be ask or all, got \(approve)")
            }
            if listen != nil && socket != nil { throw ValidationError("give --listen or --socket, not both") }
            if let sessions, sessions < 1 { throw ValidationError("--sessions must be at least 1, got \(sessions)") }
        }

        func run() throws {
            let host = ConsoleHost()
            // However it ends: an ephemeral card pairing is unpaired, the card let go.
            defer { host.session.close() }
            _ = common.runner(host: host, json: false)  // the home, the node and the colours, as the console's
            throw ExitCode(
                CosignerService.serve(
                    host: host, listen: socket.map { "unix:" + $0 } ?? listen ?? "127.0.0.1:7000",
                    approve: approve, sessions: sessions, pairAny: pairAny,
                    allowRawDigests: allowRawDigests, noColor: common.noColor))
        }
    }
}
