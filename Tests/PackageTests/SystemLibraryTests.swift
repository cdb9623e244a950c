// The system-library targets resolve through pkg-config to Debian's headers and link.
// libedit and pcsclite are wrapped by later layers (console, PC/SC transport); until then
// these checks keep their module maps honest on a fresh machine.
import CEditLine
import CPCSC
import Testing

@Suite("System libraries")
struct SystemLibraryTests {
    @Test func pcsclite_linksAndNamesItsErrors() {
        // pcsc_stringify_error is pure: no daemon needed.
        let text = String(cString: pcsc_stringify_error(0x8010_001D))  // SCARD_E_NO_SERVICE
        #expect(text == "Service not available.")
    }

    @Test func libedit_historyWorks() {
        // libedit is loaded on first use (dlopen), not linked: loading it must work here.
        guard let h = kcs_history_init() else {
            Issue.record("libedit.so.2 could not be loaded, or history_init returned nil")
            return
        }
        defer { kcs_history_end(h) }
        var event = HistEvent()
        #expect(kcs_history_setsize(h, &event, 100) >= 0)
        #expect(kcs_history_enter(h, &event, "card.pair") >= 0)
        #expect(kcs_history_count(h, &event) == 1)
    }
}
