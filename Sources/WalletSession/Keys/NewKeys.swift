import WalletCore
import WalletCrypto

// A new key's first minutes: the address a preset shows for it, and a new mnemonic shown once
// and two of its words asked back (key.generate, key.rotate).

extension Session {
    /// The address shown for a key under a preset's address kind.
    public static func address(of key: PublicKey, kind: PathPreset.AddressKind) throws -> String {
        switch kind {
        case .ethereum, .none: return EthereumAddress(publicKey: key).checksummed
        default:
            let bitcoin = BitcoinAddressKind(rawValue: kind.rawValue) ?? .p2pkh
            return try CoinAddress.make(coin: SLIP44.coin(index: 0), publicKey: key, bitcoinKind: bitcoin)
        }
    }

    /// A new mnemonic as shown once: the instruction, then the words numbered `  1. word`.
    public static func backupLines(_ words: [String]) -> [String] {
        ["Write these \(words.count) words down, in order; they are shown only now:"]
            + words.enumerated().map { i, w in String(format: "%3d. %@", i + 1, w) }
    }

    /// Asks two words of a new mnemonic back (positions from the session's RNG).
    public func confirmBackup(_ mnemonic: Mnemonic) throws {
        guard let host = prompts, host.isInteractive else { throw KeyCommandError.backupNeedsTerminal }
        try mnemonic.withWords { (words: [String]) throws in
            var picks: [Int] = []
            while picks.count < 2 {
                let i = Int(self.random.bytes(1)[0]) % words.count
                if !picks.contains(i) { picks.append(i) }
            }
            for i in picks.sorted() {
                let answer = try host.ask(prompt: "word #\(i + 1): ")?.trimmingCharacters(in: .whitespaces).lowercased()
                guard answer == words[i] else { throw KeyCommandError.backupWordWrong(position: i + 1) }
            }
        }
    }
}
