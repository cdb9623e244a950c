import Foundation
import WalletCore
import WalletCrypto
import WalletSession

/// Issue 30: a 100-input P2WPKH PSBT (every input with its previous transaction) signed by a
/// software HD key through the session — the plan's checks, 100 signatures each verified — per
/// second; bench/run signs the same PSBT with embit in the same run (the ratio). And the time per
/// input of a 10-input PSBT signed by the simulated 4.0 card in process (the console's psbt.sign).
enum BitcoinBench {
    static func psbt(inputs n: Int, master: ExtendedKey) throws -> PSBT {
        var ring = BitcoinKeyRing(fingerprint: master.fingerprint) { try master.derive($0).publicKey }
        let specs = try (0..<n).map { i -> PSBTInputSpec in
            let path = try DerivationPath("m/84'/1'/0'/0/\(i)")
            let script = BitcoinScript.p2wpkh(Hash.hash160(try master.derive(path).publicKey.compressed))
            let prev = BitcoinTransaction(
                inputs: [TxInput(previous: OutPoint(hash: Hash.sha256(Array("prev \(i)".utf8)), index: 0))],
                outputs: [TxOutput(amount: 10_000, script: script)])
            return PSBTInputSpec(
                outpoint: OutPoint(hash: prev.txidHash, index: 0), previousTransaction: prev, path: path)
        }
        return try PSBT.create(
            inputs: specs,
            outputs: [
                PSBTOutputSpec(
                    amount: UInt64(n) * 10_000 - 2_000, script: BitcoinScript.p2wpkh([UInt8](repeating: 7, count: 20)))
            ],
            keys: &ring)
    }

    static func run() throws {
        let seed = try Mnemonic(
            phrase: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
        ).seed()
        let master = try ExtendedKey.master(seed: seed)
        let p = try psbt(inputs: 100, master: master)
        try FileManager.default.createDirectory(atPath: "bench/out", withIntermediateDirectories: true)
        try (p.base64 + "\n").write(toFile: "bench/out/psbt100.txt", atomically: true, encoding: .utf8)
        let session = Session(home: nil)
        var check = 0
        let softwareRate = try rate(20) { _ in
            let signed = try session.signPSBT(p, keys: .givenHD(master), policy: PSBTPolicy(chain: .test), yes: true)
            check &+= signed.signed.count
        }
        report("btc_psbt100", softwareRate)

        let console = CardBench.Console()
        _ = try console.compile(
            """
            card.connect --sim btc-bench --profile 4.0
            card.init --pin "123456" --puk "987654321098" --duress "654321"
            card.login "123456"
            card.load mnemonic "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about" --name kc
            use card
            let p = "\(try psbt(inputs: 10, master: master).base64)"
            """)()
        let sign = try console.compile("psbt.sign $p --chain test --yes")
        _ = try sign()
        let cardRate = try rate(20) { _ in _ = try sign() }
        report("btc_card_input_ms", 1000 / cardRate / 10)
        precondition(check == 2000)
    }
}
