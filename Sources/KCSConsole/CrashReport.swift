import Foundation

/// What kcs prints when it crashes. Swift's own crash handler prints every register and the
/// memory the registers point to, and in a wallet that memory can hold a key, a seed or a
/// passphrase. This replaces it for the fatal signals: one line that names the signal, then
/// the stack as addresses and symbol names only (glibc's `backtrace_symbols_fd`), then the
/// default action, so the exit status still says which signal it was. Core files are turned
/// off too: they would hold all of kcs's memory. Installed first thing in `main`.
public enum CrashReport {
    static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT]

    public static func install() {
        crashFrames.initialize(repeating: nil, count: Int(crashFrameCount))
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &none)
        for sig in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = crashHandler
            sigemptyset(&action.sa_mask)
            action.sa_flags = Int32(bitPattern: UInt32(SA_RESETHAND))
            sigaction(sig, &action, nil)
        }
    }
}

/// Room for the stack, made before any crash (a signal handler must not allocate).
private let crashFrameCount: Int32 = 64
nonisolated(unsafe) private let crashFrames = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 64)

private func say(_ text: StaticString) {
    _ = write(STDERR_FILENO, text.utf8Start, text.utf8CodeUnitCount)
}

/// Only async-signal-safe work: fixed text, the signal's digits by hand, the stack, re-raise.
private func crashHandler(_ sig: Int32) {
    say("\nkcs crashed (signal ")
    var digits: (UInt8, UInt8) = (
        0x30 + UInt8(truncatingIfNeeded: sig / 10 % 10), 0x30 + UInt8(truncatingIfNeeded: sig % 10)
    )
    withUnsafeBytes(of: &digits) { raw in
        let skip = sig >= 10 ? 0 : 1
        _ = write(STDERR_FILENO, raw.baseAddress! + skip, 2 - skip)
    }
    say("); no memory is shown. The stack, as addresses and names only:\n")
    let n = glibcBacktrace(crashFrames, crashFrameCount)
    glibcBacktraceSymbols(crashFrames, n, STDERR_FILENO)
    signal(sig, SIG_DFL)
    raise(sig)
}

// glibc's <execinfo.h>, which the Glibc module does not bring.
@_silgen_name("backtrace")
private func glibcBacktrace(_ buffer: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ size: Int32) -> Int32
@_silgen_name("backtrace_symbols_fd")
private func glibcBacktraceSymbols(_ buffer: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ size: Int32, _ fd: Int32)
