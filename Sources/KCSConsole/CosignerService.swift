import KCSErrors
import WalletSession

// `kcs cosigner serve` calls the session's co-signer directly (docs/two-party.md, "The
// co-signer"): no script is built from its options and parsed back. Its errors read as the other
// subcommands' do (`kcs cosigner serve: error: …`), and its exit status comes from the error's
// class (docs/card-console.md, "Exit codes").

public enum CosignerService {
    /// Serves until `sessions` connections are done (or Ctrl-C), in `host`'s home; the exit status.
    /// `approve` is `ask` or `all` (the command line has checked it).
    public static func serve(
        host: ConsoleHost, listen: String, approve: String, sessions: Int?, pairAny: Bool,
        allowRawDigests: Bool, noColor: Bool
    ) -> Int32 {
        do {
            try host.session.serveCosigner(
                listen: listen, approval: TwoPartyApproval(rawValue: approve) ?? .ask,
                sessions: sessions, pairAny: pairAny, allowRawDigests: allowRawDigests)
            return ExitStatus.ok
        } catch {
            return failed("kcs cosigner serve", error, noColor: noColor)
        }
    }

    /// A serving subcommand's failure (`kcs cosigner serve`, `kcs signer serve`): `COMMAND:
    /// error: sentence` on standard error, and the exit status of the error's class.
    static func failed(_ command: String, _ error: any Error, noColor: Bool) -> Int32 {
        let identified = error as? any IdentifiableError
        let style = ErrorStyle.forStandardError(noColorFlag: noColor)
        StandardStreams.err(
            style.apply("\(command): error: \(identified?.description ?? String(describing: error))\n"))
        return ExitStatus.code(for: identified?.exitClass ?? .runtimeError)
    }
}
