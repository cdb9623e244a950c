// BIP-44 account discovery (bips/bip-0044.mediawiki, "Account discovery") on its own, with an
// offline history: which addresses are found for a gap, how many are asked about and in which
// windows, what the progress reports say, and that a failing source stops the scan.
import Foundation
import Testing
import WalletCore
import WalletCrypto

private let root = try! ExtendedKey.master(
    seed: Mnemonic(
        phrase: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
    ).seed())

private func chain(_ account: UInt32) throws -> ExtendedKey { try root.derive("m/44'/60'/\(account)'/0") }

private func address(_ account: UInt32, _ index: UInt32) throws -> EthereumAddress {
    EthereumAddress(publicKey: try root.derive("m/44'/60'/\(account)'/0/\(index)").publicKey)
}

/// An offline history that records the windows it was asked about.
private final class Recording: AddressHistory, @unchecked Sendable {
    let inner: AddressListHistory
    var windows: [Int] = []
    var failAfter: Int?
    init(_ used: [EthereumAddress]) { inner = AddressListHistory(used) }
    func used(_ addresses: [EthereumAddress]) throws -> [Bool] {
        if let failAfter, windows.count >= failAfter { throw HDError.pathEmpty }
        windows.append(addresses.count)
        return try inner.used(addresses)
    }
}

@Suite("BIP-44 account discovery")
struct AccountDiscoveryTests {
    static let used: [(UInt32, UInt32)] = [(0, 0), (0, 1), (0, 5), (0, 27), (1, 0)]

    fileprivate func history() throws -> Recording { Recording(try Self.used.map { try address($0.0, $0.1) }) }

    @Test func gap20_findsZeroOneFive_thenAccount1_andStopsAtTheEmptyAccount2() throws {
        let h = try history()
        var reports: [DiscoveryProgress] = []
        let found = try AccountDiscovery.run(externalChain: chain, history: h, gap: 20) { reports.append($0) }
        try #require(found.map(\.account) == [0, 1])
        try #require(found[0].used.map(\.index) == [0, 1, 5])
        #expect(found[1].used.map(\.index) == [0])
        #expect(found[0].used[2].address == (try address(0, 5)))
        // Account 0: 0…19, then 20…25 (20 unused after 5); account 1: 0…19, then 20; account 2: 0…19.
        #expect(h.windows == [20, 6, 20, 1, 20])
        #expect(found.map(\.checked) == [26, 21])
        // (account, checked, accounts, used, checked in the account, how far it reaches)
        let seen = reports.map {
            [Int($0.account), $0.checked, $0.accounts, $0.used, $0.accountChecked, $0.accountLimit]
        }
        #expect(
            seen == [
                [0, 20, 1, 3, 20, 26], [0, 26, 1, 3, 26, 26], [1, 46, 2, 4, 20, 21], [1, 47, 2, 4, 21, 21],
                [2, 67, 2, 4, 20, 20],
            ])
    }

    @Test func gap25_alsoFinds27() throws {
        let found = try AccountDiscovery.run(externalChain: chain, history: try history(), gap: 25)
        #expect(found.map { $0.used.map(\.index) } == [[0, 1, 5, 27], [0]])
        #expect(found.map(\.checked) == [53, 26])
    }

    @Test func gapOf1_stopsAtTheFirstHole() throws {
        let found = try AccountDiscovery.run(externalChain: chain, history: try history(), gap: 1)
        #expect(found.map { $0.used.map(\.index) } == [[0, 1], [0]])
    }

    @Test func maxAccounts_endsTheScanEvenWithHistoryLeft() throws {
        let h = try history()
        let found = try AccountDiscovery.run(externalChain: chain, history: h, gap: 20, maxAccounts: 1)
        #expect(found.map(\.account) == [0])
        #expect(h.windows == [20, 6])
    }

    @Test func noHistory_findsNothingAfterOneWindow() throws {
        let h = Recording([])
        #expect(try AccountDiscovery.run(externalChain: chain, history: h, gap: 20).isEmpty)
        #expect(h.windows == [20])
    }

    @Test func aFailingSource_stopsTheScanWithItsError() throws {
        let h = try history()
        h.failAfter = 2
        #expect(throws: HDError.pathEmpty) { try AccountDiscovery.run(externalChain: chain, history: h, gap: 20) }
        #expect(h.windows == [20, 6])
    }
}
