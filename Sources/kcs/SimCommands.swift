import ArgumentParser
import CardPCSC
import CardProtocol
import CardSimulator
import Dispatch
import Foundation
import KCSConsole
import KCSErrors
import WalletCrypto

/// `kcs sim …`: the simulated Keycards kept under the kcs home.
struct Sim: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sim",
        abstract: "Manage simulated Keycards and put one behind a virtual PC/SC reader.",
        discussion: """
            A simulated card is a file, not a chip: its PIN, PUK, pairing secret and keys are kept in \
            $KCS_HOME/cards/NAME.json, protected by the file's permissions (0600), not by the PIN. Anyone who \
            can read the file has the keys. Fine for learning and testing; not for funds.
            """,
        subcommands: [Attach.self, List.self])

    /// `kcs sim attach`: serve a simulated card to vsmartcard's vpcd driver inside pcscd.
    struct Attach: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attach",
            abstract: "Connect a simulated card to the vpcd virtual reader (\"Virtual PCD 00 00\").",
            discussion: """
                pcscd must be running with vsmartcard-vpcd installed; the card then appears in the reader
                "Virtual PCD 00 00" to every PC/SC program (pcsc_scan, kcs, another wallet). The card's state
                is kept in $KCS_HOME/cards/NAME.json (created on first use, mode 0600). Stops on Ctrl-C or SIGTERM.
                Its secrets are protected by the file's permissions, not by the PIN: for learning and testing,
                not for funds.
                """)

        @Option(name: .long, help: "Name of the simulated card.")
        var card = "default"

        @Option(name: .long, help: "Applet profile for a new card: \(AppletProfile.namesForHelp).")
        var profile = AppletProfile.v3_1_0.id

        @Option(name: .long, help: "Host where vpcd listens.")
        var host = "127.0.0.1"

        @Option(name: .long, help: "vpcd port (35963 is the first virtual reader).")
        var port: UInt16 = 35963

        @Option(name: .long, help: "kcs home directory (default $KCS_HOME, $XDG_DATA_HOME/kcs, ~/.local/share/kcs).")
        var home: String?

        @Option(
            name: .long,
            help:
                "Show every APDU a client exchanges with the card on standard error: wire (raw bytes), channel (also the command inside each secured APDU, as the applet read it) or explain (also its meaning)."
        )
        var trace: String?

        @Flag(name: .long, help: "With --trace, each exchange as one JSON document.")
        var json = false

        @Flag(name: .long, help: "With --trace, show key material instead of masking it (a PIN or PUK never).")
        var reveal = false

        func validate() throws {
            guard AppletProfile.named(profile) != nil else {
                throw ValidationError("--profile must be one of \(AppletProfile.namesForHelp), got \(profile)")
            }
            if let trace, TraceLevel(rawValue: trace) == nil || trace == "off" {
                throw ValidationError("--trace must be one of wire, channel, explain, got \(trace)")
            }
            guard SimulatedCard.isValidName(card) else {
                throw ValidationError("--card must be a simple name (letters, digits, - and _), got \(card)")
            }
        }

        func run() throws {
            let dir = try Home(explicit: home).cardsDirectoryOrExit()
            let simulated: SimulatedCard
            do {
                simulated = try SimulatedCard.open(named: card, in: dir, profile: AppletProfile.named(profile)!)
            } catch {
                // An error, not a clean exit: said on standard error, with the card error's status.
                StandardStreams.err("kcs sim: error: \(error)\n")
                throw ExitCode(ExitStatus.code(for: error.exitClass))
            }
            let served: VirtualCard =
                trace.flatMap(TraceLevel.init(rawValue:)).map {
                    AttachedCardTrace(
                        simulated, level: $0, view: TraceView(reveal: reveal), json: json,
                        output: { StandardStreams.err($0 + "\n") })
                } ?? simulated
            let bridge = VPCDBridge(card: served, host: host, port: port) { line in
                StandardStreams.err("kcs sim: \(line)\n")
            }
            // Stop cleanly on SIGINT and SIGTERM: the bridge closes its socket and returns.
            var sources: [DispatchSourceSignal] = []
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                source.setEventHandler { bridge.stop() }
                source.resume()
                sources.append(source)
            }
            StandardStreams.err("kcs sim: card \"\(card)\" (\(simulated.applet.profile)) from \(dir)\n")
            let n = bridge.run()
            sources.forEach { $0.cancel() }
            StandardStreams.err("kcs sim: stopped after \(n) APDUs\n")
        }
    }

    /// `kcs sim list`: the simulated cards in the home.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the simulated cards in the kcs home.")

        @Option(name: .long, help: "kcs home directory.")
        var home: String?

        func run() throws {
            let dir = try Home(explicit: home).cardsDirectoryOrExit()
            let names = SimulatedCard.cardNames(in: dir)
            if names.isEmpty { print("no simulated cards in \(dir)") }
            for n in names { print(n) }
        }
    }
}
