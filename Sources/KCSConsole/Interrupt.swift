import Foundation
import Synchronization

/// Ctrl-C at the console. A signal handler can only set a flag, so this is the one piece of
/// process-wide state in the console (docs/habits.md §3 allows nothing else): SIGINT sets it, the
/// line reader and the interpreter's loop poll (`ConsoleHost.shouldInterrupt`) take it.
/// Installed only for the REPL: a batch run keeps the default (Ctrl-C ends it).
public enum Interrupt {
    private static let flag = Atomic<Bool>(false)

    /// Routes SIGINT to the flag instead of ending the process.
    public static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in Interrupt.flag.store(true, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: a blocked read returns, so the prompt can start over
        sigaction(SIGINT, &action, nil)
        // A parent may have started kcs with SIGINT blocked (the mask is inherited); unblock it.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Runs `body` with SIGINT routed to the flag (a batch run's prompt: Ctrl-C there must
    /// restore the terminal and stop the script cleanly, not kill kcs with echo off), then puts
    /// back the disposition there was.
    static func routed<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        var old = sigaction()
        sigaction(SIGINT, nil, &old)
        // Only the default is replaced: ours is already there, and an ignored SIGINT never comes.
        let replace = old.__sigaction_handler.sa_handler == nil  // SIG_DFL
        if replace {
            clear()
            install()
        }
        defer { if replace { sigaction(SIGINT, &old, nil) } }
        return try body()
    }

    /// Waits until `fd` has input (or an error to read) and returns true, or returns false once
    /// Ctrl-C was pressed (the flag stays set for `take`). The wait is in 100 ms slices of
    /// poll(2) with a look at the flag after each: a Ctrl-C that lands between a look and a
    /// blocking read(2), or on another thread, interrupts no read, and a reader that counted on
    /// it would wait for a key. Both prompt readers wait here (`Terminal.readLine`, and the line
    /// editor through `kcs_el_read_char`).
    static func waitForInput(_ fd: Int32 = STDIN_FILENO) -> Bool {
        waitForInput(fd, until: { false }) == .input
    }

    /// What ended a wait for input that something else may settle.
    enum Wait { case input, interrupted, settled }

    /// `waitForInput`, also ending once `settled()` (looked at in each 100 ms slice).
    static func waitForInput(_ fd: Int32, until settled: () -> Bool) -> Wait {
        while !flag.load(ordering: .relaxed) {
            if settled() { return .settled }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, 100)
            if polled > 0 || (polled < 0 && errno != EINTR) { return .input }
        }
        return .interrupted
    }

    /// True once after Ctrl-C.
    public static func take() -> Bool { flag.exchange(false, ordering: .relaxed) }

    /// Forgets a Ctrl-C typed before now.
    public static func clear() { flag.store(false, ordering: .relaxed) }
}
