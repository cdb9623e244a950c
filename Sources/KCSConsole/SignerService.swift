import KCSErrors
import WalletCore
import WalletSession

// `kcs signer serve` calls the session's local signer directly (docs/signer.md), as `kcs cosigner
// serve` calls its co-signer: its errors read as the other subcommands' do (`kcs signer serve:
// error: …`), its exit status comes from the error's class, and Ctrl-C stops it cleanly.

public enum SignerService {
    public static func serve(host: ConsoleHost, options: SignerServeOptions, noColor: Bool) -> Int32 {
        var options = options
        options.version = "kcs/\(WalletCoreInfo.version)"
        // Ctrl-C ends the serving loop (every waiting request refused), not the process.
        Interrupt.install()
        host.watchesInterrupt = true
        do {
            try host.session.serveSigner(options)
            return ExitStatus.ok
        } catch {
            return CosignerService.failed("kcs signer serve", error, noColor: noColor)
        }
    }
}
