import CardProtocol
import CardSimulator
import EthRPC
import Foundation
import WalletCore
import WalletCrypto

/// Issue 8 §1: gap-20 discovery of two accounts (history at indexes 0, 1 and 5 of account 0 and
/// 0 of account 1) on the simulated card, in process, against the local py-evm node that
/// bench/run starts (KCS_BENCH_RPC). kcs exports one extended public key per account and
/// derives the addresses on the host; the baseline, measured in the same run against the same
/// node, is the mobile app's way: DERIVE KEY + EXPORT KEY on the card for every address.
/// Figures are discoveries per second (the goal is one discovery in under a second).
enum DiscoveryBench {
    static func run() throws {
        guard let url = ProcessInfo.processInfo.environment["KCS_BENCH_RPC"], !url.isEmpty else {
            FileHandle.standardError.write(Data("discovery: KCS_BENCH_RPC not set (bench/run starts the node)\n".utf8))
            return
        }
        let node = try EthereumNode(url: url)
        let commands = try CardBench.openSession(SimulatedCard(random: SeededRandom(seed: 11)), seed: 12)
        _ = try commands.loadKey(seed: try CardBench.seed())

        // Fund the used addresses (once per run; balances make them "used").
        let funder = try node.client.call("eth_accounts") as! [String]
        let root = try ExtendedKey.master(seed: try CardBench.seed())
        for (a, i) in [(0, 0), (0, 1), (0, 5), (1, 0)] {
            let address = EthereumAddress(publicKey: try root.derive("m/44'/60'/\(a)'/0/\(i)").publicKey).checksummed
            _ = try node.client.call(
                "eth_sendTransaction", [["from": funder[0], "to": address, "value": "0x3b9aca00", "gas": "0x5208"]])
        }
        let history = NodeHistory(node: node)

        var kcsCommands = 0, appCommands = 0
        func accountChain(_ a: UInt32) throws -> ExtendedKey {
            kcsCommands += 1
            let path = try CardKeyPath(
                source: .master,
                components: [
                    ChildIndex(44, hardened: true), ChildIndex(60, hardened: true), ChildIndex(a, hardened: true),
                ])
            return try commands.exportKey(.derive(path), kind: .extendedPublicKey).extendedPublicKey(depth: 3).derive(
                ChildIndex(0))
        }
        // One discovery first, so the node's state caches are warm for both measurements.
        _ = try AccountDiscovery.run(externalChain: accountChain, history: history, gap: 20)
        kcsCommands = 0
        var found = 0
        let kcsRate = try rate(5) { _ in
            let accounts = try AccountDiscovery.run(externalChain: accountChain, history: history, gap: 20)
            found = accounts.flatMap(\.used).count
        }
        precondition(found == 4, "discovery found \(found) used addresses, expected 4")

        // The app's way: every address derived and exported by the card, one at a time, then
        // the same node queries per window.
        let appRate = try rate(2) { _ in
            var total = 0
            for a in UInt32(0)... {
                var lastUsed = -1, next = 0
                while next <= lastUsed + 20 {
                    var window: [EthereumAddress] = []
                    for i in next...(lastUsed + 20) {
                        let path = try CardKeyPath(
                            source: .master,
                            components: [
                                ChildIndex(44, hardened: true), ChildIndex(60, hardened: true),
                                ChildIndex(a, hardened: true),
                                ChildIndex(0), ChildIndex(UInt32(i)),
                            ])
                        try commands.deriveKey(path)
                        appCommands += 2
                        window.append(
                            EthereumAddress(publicKey: try commands.exportKey(.current, kind: .publicKey).publicKey))
                    }
                    for (k, used) in try history.used(window).enumerated() where used {
                        lastUsed = next + k
                        total += 1
                    }
                    next += window.count
                }
                if lastUsed < 0 { break }
            }
            precondition(total == 4)
        }
        report("discovery_gap20", kcsRate)
        report("discovery_gap20_raw", appRate)
        // Card commands per discovery: what costs seconds each over NFC on a real card.
        report("discovery_card_commands", Double(kcsCommands) / 5)
        report("discovery_card_commands_raw", Double(appCommands) / 2)
    }
}
