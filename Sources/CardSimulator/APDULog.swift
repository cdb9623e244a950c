import WalletCrypto

/// A record of what crossed the simulated card's contacts: the raw command and response bytes, plus
/// power and reset events (docs/habits.md §7: the simulator is a transport that logs its APDUs).
///
/// Only wire bytes are recorded, never the decrypted content of secure-channel traffic nor anything from
/// the card's memory, so the log holds none of the card's secrets in plaintext: the applet never sends a
/// secret unprotected (INIT's payload is encrypted, EXPORT KEY answers only inside the channel). What a
/// client sends unprotected by mistake (say, a PIN without a channel) is recorded as sent.
public final class APDULog {
    /// One logged event.
    public enum Entry: Equatable, Sendable {
        /// A command and the card's answer (data ‖ SW1 SW2).
        case exchange(command: [UInt8], response: [UInt8])
        /// Power-on (cold reset) with the ATR.
        case powerOn(atr: [UInt8])
        case powerOff
        /// Warm reset with the ATR.
        case reset(atr: [UInt8])
    }

    /// Everything recorded so far, oldest first.
    public private(set) var entries: [Entry] = []

    /// An empty log.
    public init() {}

    func record(_ entry: Entry) { entries.append(entry) }

    /// Forgets the entries.
    public func clear() { entries.removeAll() }

    /// Only the exchanges, in order.
    public var exchanges: [(command: [UInt8], response: [UInt8])] {
        entries.compactMap { if case .exchange(let c, let r) = $0 { (c, r) } else { nil } }
    }

    /// One line per entry: `> <command hex>` / `< <response hex>`, `# power on, ATR <hex>`, … in upper-case hex.
    public var text: String {
        entries.map { entry -> String in
            switch entry {
            case .exchange(let command, let response):
                "> " + Hex.encode(command).uppercased() + "\n< " + Hex.encode(response).uppercased()
            case .powerOn(let atr): "# power on, ATR " + Hex.encode(atr).uppercased()
            case .powerOff: "# power off"
            case .reset(let atr): "# reset, ATR " + Hex.encode(atr).uppercased()
            }
        }.joined(separator: "\n")
    }
}
