// PC/SC end to end: a real pcscd (started here, stopped by PID), vsmartcard's vpcd driver,
// the VPCDBridge feeding a virtual card, and PCSCTransport over libpcsclite — no mocks.
import CardPCSC
import CardProtocol
import Foundation
import KCSTestSupport
import Synchronization
import Testing

/// A minimal virtual card for the transport tests: answers `00 CA 00 00 Le` with Le bytes
/// 0…Le-1 and 9000, and anything else with its own header bytes reversed ‖ 6A86; counts
/// power events so tests can see vpcd's controls arrive.
final class EchoCard: VirtualCard, @unchecked Sendable {
    let events = Mutex<[String]>([])
    var atr: [UInt8] { [0x3B, 0x80, 0x80, 0x01, 0x01] }
    func powerOn() { events.withLock { $0.append("on") } }
    func powerOff() { events.withLock { $0.append("off") } }
    func reset() { events.withLock { $0.append("reset") } }
    func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        if command.count >= 5, command[0] == 0x00, command[1] == 0xCA {
            return (0..<Int(command[4])).map { UInt8($0) } + [0x90, 0x00]
        }
        return Array(command.prefix(4).reversed()) + [0x6A, 0x86]
    }
}

/// A card that answers its first APDU as `EchoCard` and every later one with no bytes at all, as
/// vpcd hands on the answer of a card that went away mid-exchange.
final class VanishingCard: VirtualCard, @unchecked Sendable {
    let count = Mutex(0)
    var atr: [UInt8] { [0x3B, 0x80, 0x80, 0x01, 0x01] }
    func powerOn() {}
    func powerOff() {}
    func reset() {}
    func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        let n = count.withLock { (n: inout Int) -> Int in
            n += 1
            return n
        }
        return n == 1 ? try EchoCard().transmit(command) : []
    }
}

/// A bridge serving `card` on its own thread; `stop()` ends it and waits for the thread.
struct RunningBridge {
    let bridge: VPCDBridge
    let done = DispatchSemaphore(value: 0)

    init(_ card: VirtualCard) {
        let bridge = VPCDBridge(card: card, port: PCSCDaemon.vpcdPort)
        self.bridge = bridge
        let done = self.done
        Thread.detachNewThread {
            bridge.run(retryInterval: 0.1)
            done.signal()
        }
    }

    func stop() {
        bridge.stop()
        _ = done.wait(timeout: .now() + 5)
    }
}

extension PCSCContext {
    /// The reader matching `name` once pcscd lists it. pcscd creates its socket before its
    /// drivers have made their readers (vpcd's among them), so on a busy machine the first
    /// listing may not have it yet.
    func reader(matching name: String, within seconds: Double) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            do {
                return try reader(matching: name)
            } catch {
                guard case .noReader = error, Date() < deadline else { throw error }
                usleep(50_000)
            }
        }
    }
}

/// Starts pcscd and a bridge for `card`, waits for the card in "Virtual PCD 00 00", runs `body`.
func withVirtualReader<R>(_ card: VirtualCard, _ body: (PCSCContext, String) throws -> R) throws -> R {
    let daemon = PCSCDaemon()
    try daemon.start()
    defer { daemon.stop() }
    let bridge = RunningBridge(card)
    defer { bridge.stop() }
    let context = try PCSCContext()
    let reader = try context.reader(matching: "Virtual PCD 00 00", within: 10)
    try context.waitForCard(in: reader, timeout: 10)
    return try body(context, reader)
}

/// Every test that starts pcscd lives under this one serialized suite: two daemons (or two
/// bridges on vpcd's port) at once would fight over the tests' socket and vpcd's port. It runs
/// whether or not the machine has a pcscd of its own (`PCSCDaemon`), and is skipped, saying
/// why, only where that pcscd runs and no private mount namespace can be made.
@Suite(
    "Real pcscd", .serialized,
    .enabled(if: PCSCDaemon.unavailableReason == nil, Comment(rawValue: PCSCDaemon.unavailableReason ?? "")))
struct RealPCSCD {}

extension RealPCSCD {
    @Suite("PC/SC through pcscd and vpcd")
    struct PCSCBridgeTests {
        @Test func transmit_throughPcscdAndVpcd_reachesTheVirtualCard() throws {
            let card = EchoCard()
            try withVirtualReader(card) { context, reader in
                #expect(reader == "Virtual PCD 00 00")
                #expect(try context.readers().contains("Virtual PCD 00 00"))
                let t = try context.connect(reader: reader)
                #expect(try t.transmit([0x00, 0xCA, 0x00, 0x00, 0x04]) == [0, 1, 2, 3, 0x90, 0x00])
                #expect(try t.transmit([0x80, 0x12, 0x34, 0x56]) == [0x56, 0x34, 0x12, 0x80, 0x6A, 0x86])
                // A full 255-byte data field goes through unchanged.
                let long: [UInt8] = [0x80, 0xE2, 0x00, 0x00, 0xFF] + [UInt8](repeating: 0x5A, count: 255)
                #expect(try t.transmit(long) == [0x00, 0x00, 0xE2, 0x80, 0x6A, 0x86])
                t.disconnect()
                #expect(throws: TransportError.connectionLost(detail: "the connection to Virtual PCD 00 00 is closed"))
                {
                    try t.transmit([0x00, 0xCA, 0x00, 0x00, 0x01])
                }
            }
            #expect(card.events.withLock { $0.contains("on") })
        }

        @Test func exclusiveConnection_givesOthersASharingViolation() throws {
            try withVirtualReader(EchoCard()) { context, reader in
                let holder = try context.connect(reader: reader, exclusive: true)
                defer { holder.disconnect() }
                #expect(throws: TransportError.sharingViolation(reader: reader)) {
                    try PCSCContext().connect(reader: reader)
                }
                #expect(
                    TransportError.sharingViolation(reader: reader).description
                        == "another program is using the card in \"Virtual PCD 00 00\"; close it and try again")
            }
        }

        @Test func cardGone_midSession_isCardRemovedNotACardError() throws {
            let daemon = PCSCDaemon()
            try daemon.start()
            defer { daemon.stop() }
            let bridge = RunningBridge(EchoCard())
            let context = try PCSCContext()
            let reader = try context.reader(matching: "Virtual PCD 00 00", within: 10)
            try context.waitForCard(in: reader, timeout: 10)
            let t = try context.connect(reader: reader)
            #expect(try t.transmit([0x00, 0xCA, 0x00, 0x00, 0x01]) == [0x00, 0x90, 0x00])
            bridge.stop()
            // vpcd notices the virtual card is gone; the next exchange fails as a transport error.
            var failure: TransportError?
            for _ in 0..<50 where failure == nil {
                do {
                    _ = try t.transmit([0x00, 0xCA, 0x00, 0x00, 0x01])
                    usleep(100_000)
                } catch {
                    failure = error
                }
            }
            let error = failure
            #expect(
                error == .cardRemoved(reader: reader),
                "got \(String(describing: error))")
        }

        /// A reader that lost its card can answer an exchange with 0 bytes and success: a transport
        /// error (exit 69), never "not a valid APDU response" (a card error, exit 76).
        @Test func emptyAnswer_isATransportErrorNotAMalformedResponse() throws {
            try withVirtualReader(VanishingCard()) { context, reader in
                let t = try context.connect(reader: reader)
                #expect(try t.transmit([0x00, 0xCA, 0x00, 0x00, 0x01]) == [0x00, 0x90, 0x00])
                var failure: TransportError?
                do throws(TransportError) { _ = try t.transmit([0x00, 0xCA, 0x00, 0x00, 0x01]) } catch {
                    failure = error
                }
                guard let error = failure else {
                    Issue.record("an empty answer must fail")
                    return
                }
                #expect(error == .cardRemoved(reader: reader) || error.id == "transport.connectionLost", "got \(error)")
                #expect(error.id != "transport.malformedResponse")
            }
        }

        @Test func bridge_reconnectsWhenPcscdRestarts() throws {
            var daemon = PCSCDaemon()
            try daemon.start()
            let bridge = RunningBridge(EchoCard())
            defer {
                bridge.stop()
                daemon.stop()
            }
            for round in 0..<2 {
                let context = try PCSCContext()
                let reader = try context.reader(matching: "Virtual PCD 00 00", within: 10)
                try context.waitForCard(in: reader, timeout: 10)
                let t = try context.connect(reader: reader)
                #expect(try t.transmit([0x00, 0xCA, 0x00, 0x00, 0x02]) == [0, 1, 0x90, 0x00], "round \(round)")
                t.disconnect()
                if round == 0 {
                    daemon.stop()
                    daemon = PCSCDaemon()
                    try daemon.start()
                }
            }
        }

        @Test func reader_unknownName_isNamedInTheError() throws {
            try withVirtualReader(EchoCard()) { context, _ in
                #expect(throws: TransportError.noReader(requested: "No Such Reader")) {
                    try context.reader(matching: "No Such Reader")
                }
                #expect(
                    TransportError.noReader(requested: "No Such Reader").description
                        == "no reader matches \"No Such Reader\"")
            }
        }

        /// A pcscd the tests did not start (here one started by hand on the default socket, as a
        /// desktop's service would be) is neither used nor stopped: the tests' own daemon serves the
        /// virtual reader beside it (in its private namespace), and the other keeps running. Where
        /// no namespace can be made, `start` refuses, naming the other's pid.
        @Test func aPcscdOfTheMachine_isNeitherUsedNorStopped() throws {
            // The machine's own, when one runs; else one started here as a service would be.
            var started: Process?
            if PCSCDaemon.runningPID() == nil {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/sbin/pcscd")
                p.arguments = ["--foreground", "--error"]
                p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
                p.standardError = FileHandle(forWritingAtPath: "/dev/null")
                try p.runWithSignalsUnblocked()
                started = p
                for _ in 0..<200 where PCSCDaemon.runningPID() == nil { usleep(50_000) }
            }
            defer { if let started { terminate(started) } }
            let otherPID = try #require(PCSCDaemon.runningPID())
            #expect(started == nil || otherPID == started?.processIdentifier)
            if PCSCDaemon.isolated {
                #expect(PCSCDaemon.socketPath != PCSCDaemon.systemSocketPath)
                try withVirtualReader(EchoCard()) { context, reader in
                    let t = try context.connect(reader: reader)
                    #expect(try t.transmit([0x00, 0xCA, 0x00, 0x00, 0x02]) == [0, 1, 0x90, 0x00])
                }
            } else {
                let daemon = PCSCDaemon()
                #expect(throws: PCSCDaemon.DaemonError.foreign(pid: otherPID)) { try daemon.start() }
                #expect(daemon.pid == nil)
            }
            #expect(kill(otherPID, 0) == 0 && PCSCDaemon.runningPID() == otherPID)
            #expect(FileManager.default.fileExists(atPath: PCSCDaemon.systemSocketPath))
            #expect(
                PCSCDaemon.DaemonError.foreign(pid: 42).description
                    == "a pcscd the tests did not start is running (pid 42); the PC/SC tests start and restart their own. "
                    + "Stop it first (`systemctl stop pcscd.socket pcscd` or `/etc/init.d/pcscd stop`)")
        }

        @Test func noService_whenPcscdIsNotRunning() throws {
            // Run a daemon and stop it: its socket is gone with it.
            let daemon = PCSCDaemon()
            try daemon.start()
            #expect(daemon.pid != nil)
            daemon.stop()
            #expect(throws: TransportError.noService) { try PCSCContext().readers() }
        }
    }
}
