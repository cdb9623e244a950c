// The C modules kcs loads on first use (dlopen) rather than links: loading them works on a fresh
// machine, and where a shim declares a library's ABI itself (pcsc-lite: its headers need their
// own include folder), the declarations match the real headers — a program compiled against
// pcsc-lite's own winscard.h prints every size, offset and value the shim declares.
import CEditLine
import CPCSC
import Foundation
import KCSTestSupport
import Testing

@Suite("System libraries")
struct SystemLibraryTests {
    @Test func pcsclite_loadsAndNamesItsErrors() throws {
        // pcsc_stringify_error is pure: no daemon needed.
        let api = try #require(kcs_pcsc(), "libpcsclite.so.1 could not be loaded: \(String(cString: kcs_pcsc_error()))")
        let text = try #require(api.pointee.pcsc_stringify_error(0x8010_001D))  // SCARD_E_NO_SERVICE
        #expect(String(cString: text) == "Service not available.")
        #expect(String(cString: kcs_pcsc_error()) == "")
        // The protocol control blocks are pcsc-lite's own: T=0 and T=1, each its size.
        #expect(api.pointee.g_rgSCardT0Pci.pointee.dwProtocol == UInt(SCARD_PROTOCOL_T0))
        #expect(api.pointee.g_rgSCardT1Pci.pointee.dwProtocol == UInt(SCARD_PROTOCOL_T1))
        #expect(api.pointee.g_rgSCardT1Pci.pointee.cbPciLength == UInt(MemoryLayout<SCARD_IO_REQUEST>.size))
    }

    @Test func pcscShim_declaresWhatPcscLiteHeadersDefine() throws {
        let folder = try BatchHome()
        defer { folder.remove() }
        let source = try folder.write(
            """
            #include <stddef.h>
            #include <stdio.h>
            #include <winscard.h>
            int main(void) {
                printf("%zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %d\\n", sizeof(DWORD), sizeof(LONG),
                       sizeof(SCARDCONTEXT), sizeof(SCARDHANDLE), sizeof(SCARD_READERSTATE),
                       offsetof(SCARD_READERSTATE, pvUserData), offsetof(SCARD_READERSTATE, dwCurrentState),
                       offsetof(SCARD_READERSTATE, dwEventState), offsetof(SCARD_READERSTATE, cbAtr),
                       offsetof(SCARD_READERSTATE, rgbAtr), sizeof(SCARD_IO_REQUEST), MAX_ATR_SIZE);
                printf("%d %d %d %d %d %d %d %d %d %d\\n", SCARD_SCOPE_SYSTEM, SCARD_PROTOCOL_T0, SCARD_PROTOCOL_T1,
                       SCARD_SHARE_EXCLUSIVE, SCARD_SHARE_SHARED, SCARD_LEAVE_CARD, SCARD_PRESENT,
                       SCARD_STATE_UNAWARE, SCARD_STATE_CHANGED, SCARD_STATE_PRESENT);
                return 0;
            }
            """, to: "abi.c")
        // The C compiler beside swift (the toolchain's clang), with pkg-config's flags for pcsc-lite.
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let cflags = try folder.run(arguments: ["pkg-config", "--cflags", "libpcsclite"], executable: env)
        try #require(cflags.code == 0, "\(cflags.err)")
        let includes = cflags.out.split(whereSeparator: \.isWhitespace).map(String.init).filter { $0.hasPrefix("-I") }
        let compiled = try folder.run(
            arguments: ["clang"] + includes + ["-o", folder.path("abi"), source], executable: env)
        try #require(compiled.code == 0, "\(compiled.err)")
        let printed = try folder.run(arguments: [], executable: URL(fileURLWithPath: folder.path("abi")))
        try #require(printed.code == 0, "\(printed.err)")
        let real = printed.out.split(separator: "\n").map { $0.split(separator: " ").compactMap { Int($0) } }
        typealias State = SCARD_READERSTATE
        let shim = [
            [
                MemoryLayout<DWORD>.size, MemoryLayout<LONG>.size, MemoryLayout<SCARDCONTEXT>.size,
                MemoryLayout<SCARDHANDLE>.size, MemoryLayout<State>.size, MemoryLayout<State>.offset(of: \.pvUserData)!,
                MemoryLayout<State>.offset(of: \.dwCurrentState)!, MemoryLayout<State>.offset(of: \.dwEventState)!,
                MemoryLayout<State>.offset(of: \.cbAtr)!, MemoryLayout<State>.offset(of: \.rgbAtr)!,
                MemoryLayout<SCARD_IO_REQUEST>.size, Int(MAX_ATR_SIZE),
            ],
            [
                SCARD_SCOPE_SYSTEM, SCARD_PROTOCOL_T0, SCARD_PROTOCOL_T1, SCARD_SHARE_EXCLUSIVE, SCARD_SHARE_SHARED,
                SCARD_LEAVE_CARD, SCARD_PRESENT, SCARD_STATE_UNAWARE, SCARD_STATE_CHANGED, SCARD_STATE_PRESENT,
            ].map { Int($0) },
        ]
        #expect(real == shim)
        #expect(real.first?.first == 8, "DWORD is unsigned long on 64-bit Linux")
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
