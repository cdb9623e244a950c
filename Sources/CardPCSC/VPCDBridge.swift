import CardProtocol
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Puts a `VirtualCard` (the simulator) behind vsmartcard's virtual reader driver, so that
/// pcscd shows it in "Virtual PCD 00 00" and any PC/SC program can use it.
///
/// vpcd (loaded by pcscd) listens on TCP port 35963; the virtual card connects to it. Every
/// message either way is a 2-byte big-endian length and then the bytes. From vpcd, a 1-byte
/// message is a control: `00` power off, `01` power on, `02` reset, `04` "send the ATR" (the
/// only control that is answered); a longer one is a command APDU, answered with the
/// response APDU; a card that answers nothing (gone mid-command) drops the connection. When
/// the connection drops (pcscd restarted, or that) the bridge reconnects until `stop()` is called.
public final class VPCDBridge: @unchecked Sendable {
    // The card is touched only from the thread running `run()`; `stopped` and `socketFD`
    // are the only state shared with `stop()`, and they are atomic.
    private let card: VirtualCard
    private let host: String
    private let port: UInt16
    private let stopped = Atomic<Bool>(false)
    private let socketFD = Atomic<Int32>(-1)
    private let log: @Sendable (String) -> Void

    /// Events the bridge reports (connected, disconnected, power) through `log`.
    public init(
        card: VirtualCard, host: String = "127.0.0.1", port: UInt16 = 35963,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.card = card
        self.host = host
        self.port = port
        self.log = log
    }

    /// Serves vpcd until `stop()`. Reconnects after a dropped connection, waiting
    /// `retryInterval` seconds between attempts. Returns the number of APDUs served.
    @discardableResult
    public func run(retryInterval: Double = 0.5) -> Int {
        var served = 0
        var announcedWaiting = false
        while !stopped.load(ordering: .acquiring) {
            guard let fd = connectOnce() else {
                if !announcedWaiting {
                    log("waiting for vpcd on \(host):\(port) (is pcscd running with vsmartcard-vpcd?)")
                    announcedWaiting = true
                }
                sleepInterruptibly(retryInterval)
                continue
            }
            announcedWaiting = false
            socketFD.store(fd, ordering: .releasing)
            log("connected to vpcd on \(host):\(port)")
            served += serve(fd)
            socketFD.store(-1, ordering: .releasing)
            close(fd)
            card.powerOff()
            if !stopped.load(ordering: .acquiring) { log("vpcd connection closed; reconnecting") }
        }
        return served
    }

    /// Asks `run()` to return; safe from any thread or a signal-handling queue.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        let fd = socketFD.load(ordering: .acquiring)
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func sleepInterruptibly(_ seconds: Double) {
        var left = seconds
        while left > 0 && !stopped.load(ordering: .acquiring) {
            usleep(50_000)
            left -= 0.05
        }
    }

    private func connectOnce() -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &addr.sin_addr) == 1 else {
            close(fd)
            return nil
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            close(fd)
            return nil
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Handles messages until the connection closes; returns the APDUs served.
    private func serve(_ fd: Int32) -> Int {
        var served = 0
        while !stopped.load(ordering: .acquiring) {
            guard let header = readExactly(fd, 2) else { return served }
            let length = Int(header[0]) << 8 | Int(header[1])
            guard let message = readExactly(fd, length) else { return served }
            if message.isEmpty { continue }
            if message.count == 1 {
                switch message[0] {
                case 0x00: card.powerOff()
                case 0x01: card.powerOn()
                case 0x02: card.reset()
                case 0x04: guard send(fd, card.atr) else { return served }
                default: log("vpcd sent an unknown control byte \(message[0])")
                }
                continue
            }
            let response: [UInt8]
            do { response = try card.transmit(message) } catch {
                response = [0x6F, 0x00]  // the card "threw": what a Java Card runtime reports
            }
            served += 1
            // An empty answer is a card that went away mid-command: vpcd cannot take an empty
            // frame (it waits for at least one byte that never comes, and pcscd with it), so the
            // bridge drops the connection, as a card leaving the field does; vpcd then hands
            // pcscd 0 bytes and ejects the card, and `run()` reconnects.
            if response.isEmpty {
                log("the card gave no answer; dropping the vpcd connection")
                return served
            }
            guard send(fd, response) else { return served }
        }
        return served
    }

    private func readExactly(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            // vpcd writes the length and the APDU in two sends without TCP_NODELAY, so Nagle on its
            // side waits for our ACK of the first; acknowledge at once instead of after the 40 ms
            // delayed-ACK timer (Linux re-arms delayed ACKs, so this is set before every read).
            var quick: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &quick, socklen_t(MemoryLayout<Int32>.size))
            let n = out.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            got += n
        }
        return out
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        let framed = [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xff)] + bytes
        var sent = 0
        while sent < framed.count {
            let n = framed.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, framed.count - sent, Int32(MSG_NOSIGNAL))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }
}
