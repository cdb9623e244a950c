import CardPCSC
import CardProtocol
import CardSimulator
import Foundation
import WalletCore
import WalletCrypto

/// Card figures: secure-channel SIGN round trips (in process, and through pcscd + vpcd when
/// a "Virtual PCD" reader with a card is there — bench/run attaches `kcs sim attach`), and
/// LOAD KEY + DERIVE KEY + EXPORT xpub in process.
enum CardBench {
    static let pin = Secret(utf8: "123456")

    /// A session with PIN verified and the §16.2 mnemonic's seed loaded.
    static func openSession(_ transport: CardTransport, seed: UInt64) throws -> KeycardCommandSet {
        let session = CardSession(transport: transport, random: SeededRandom(seed: seed))
        _ = try session.open(SessionOptions(
            pin: pin,
            initialization: try InitParameters(pin: pin, puk: Secret(utf8: "987654321098"),
                                               pairingSecret: PairingSecret(password: PairingSecret.defaultPassword))))
        return session.commands
    }

    static func seed() throws -> Secret {
        try Mnemonic(phrase: "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal will").seed()
    }

    static func signRate(_ commands: KeycardCommandSet, count: Int) throws -> Double {
        _ = try commands.loadKey(seed: try seed())
        try commands.deriveKey(try CardKeyPath("m/44'/60'/0'/0/0"))
        var digest = Hash.sha256(Array("bench".utf8))
        return try rate(count) { i in
            digest[0] = UInt8(truncatingIfNeeded: i)
            _ = try commands.sign(digest: digest, option: .current)
        }
    }

    static func run(inProcess: Bool, pcsc: Bool) throws {
        if inProcess {
            let commands = try openSession(SimulatedCard(random: SeededRandom(seed: 5)), seed: 6)
            report("card_sign_inprocess", try signRate(commands, count: 300))
            let path = try CardKeyPath("m/44'/60'/0'")
            let s = try seed()
            report("card_load_derive_xpub", try rate(30) { _ in
                _ = try commands.loadKey(seed: s)
                try commands.deriveKey(path)
                _ = try commands.exportKey(.current, kind: .extendedPublicKey)
            })
        }
        if pcsc {
            // pcscd may still be loading its drivers right after it started: retry for a while.
            var found: (PCSCContext, String)?
            for _ in 0..<100 where found == nil {
                if let c = try? PCSCContext(), let r = try? c.reader(matching: "Virtual PCD 00 00") { found = (c, r) }
                else { usleep(100_000) }
            }
            guard let (context, reader) = found else { throw TransportError.noReader(requested: "Virtual PCD 00 00") }
            try context.waitForCard(in: reader, timeout: 15)
            let transport = try context.connect(reader: reader)
            defer { transport.disconnect() }
            report("card_sign_pcsc", try signRate(try openSession(transport, seed: 7), count: 100))
        }
    }
}
