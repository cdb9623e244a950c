// BIP44 account discovery results: save per owner and coin, read back in order, replace,
// look up by address, cascade with the key, refuse bad input, roll back a failed save.
import Foundation
import GRDB
import Synchronization
import Testing
import WalletCore
import WalletCrypto

@testable import WalletStore

@Suite("Account discovery results")
struct DiscoveryTests {
    /// The BIP-39 test mnemonic "abandon ×11 about" (no passphrase) and its master key.
    static let phrase = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
    static let master: ExtendedKey = {
        let mnemonic = try! Mnemonic(phrase: phrase)
        return try! ExtendedKey.master(seed: mnemonic.seed())
    }()

    /// A card instance UID (16 bytes, lower-case hex).
    let uid = "00112233445566778899aabbccddeeff"

    /// The used address at m/44'/coin'/account'/0/index of the test mnemonic, derived here.
    static func used(coin: UInt32 = 60, account: UInt32 = 0, index: UInt32) -> DiscoveredAddress {
        let path = try! DerivationPath("m/44'/\(coin)'/\(account)'/0/\(index)")
        let publicKey = try! master.derive(path).publicKey
        return DiscoveredAddress(
            coinType: coin, account: account, change: 0, index: index,
            address: EthereumAddress(publicKey: publicKey).checksummed,
            publicKey: publicKey.compressed)
    }

    /// An in-memory store holding the test mnemonic as the HD-MASTER key "wallet".
    private func storeWithWallet(
        clock: TestClock = TestClock(),
        fault: (@Sendable (String) throws -> Void)? = nil
    ) throws -> (WalletStore, KeyRecord) {
        let store = try makeStore(clock: clock, fault: fault)
        let wallet = try store.addKey(
            NewKey(name: "wallet", kind: .hdMaster, source: .mnemonic, preset: "bip44"),
            secret: .mnemonic(Secret(utf8: Self.phrase)))
        return (store, wallet)
    }

    @Test func fixture_isTheKnownAbandonAboutAccount() {
        // m/44'/60'/0'/0/0 and /1 of "abandon ×11 about", as every BIP-44 wallet shows them.
        #expect(Self.used(index: 0).address == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        #expect(Self.used(index: 1).address == "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0")
        #expect(Self.used(index: 0).publicKey.count == 33)
    }

    @Test func save_keyAndCard_readBackInOrder() throws {
        let clock = TestClock()
        let (store, wallet) = try storeWithWallet(clock: clock)
        let cardRows = try store.saveDiscovery(
            owner: .card(instanceUID: uid.uppercased()), ownerName: "card-0011",
            coinType: 60, addresses: [Self.used(index: 0)])
        #expect(cardRows.map(\.owner) == [.card(instanceUID: uid)])  // stored lower-case
        // Given out of order and in lower case: stored in (account, change, index) order, EIP-55.
        var lower = Self.used(index: 0)
        lower.address = lower.address.lowercased()
        let saved = try store.saveDiscovery(
            owner: .key(id: wallet.id), ownerName: "wallet", coinType: 60,
            addresses: [Self.used(account: 1, index: 0), Self.used(index: 1), lower])
        #expect(saved.map(\.path.description) == ["m/44'/60'/0'/0/0", "m/44'/60'/0'/0/1", "m/44'/60'/1'/0/0"])
        let first = try #require(saved.first)
        #expect(first.owner == .key(id: wallet.id) && first.ownerName == "wallet")
        #expect(first.coinType == 60 && first.account == 0 && first.change == 0 && first.index == 0)
        #expect(first.address == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        #expect(first.publicKey == Self.used(index: 0).publicKey)
        #expect(first.discoveredAt == clock.now)

        // Keys first (by position), then cards; within an owner by coin, account, change, index.
        let all = try store.discoveredAddresses()
        #expect(all == saved + cardRows)
        #expect(try store.discoveredAddresses(owner: .key(id: wallet.id)) == saved)
        #expect(try store.discoveredAddresses(owner: .card(instanceUID: uid)) == cardRows)
        #expect(try store.discoveredAddresses(owner: .key(id: wallet.id + 1)).isEmpty)
        #expect(try store.consistencyProblems() == [])
    }

    @Test func resave_replacesOnlyThatOwnerAndCoin() throws {
        let clock = TestClock()
        let (store, wallet) = try storeWithWallet(clock: clock)
        let key = DiscoveryOwner.key(id: wallet.id)
        try store.saveDiscovery(
            owner: key, ownerName: "wallet", coinType: 60,
            addresses: [Self.used(index: 0), Self.used(index: 1)])
        let classic = try store.saveDiscovery(
            owner: key, ownerName: "wallet", coinType: 61,
            addresses: [Self.used(coin: 61, index: 0)])
        let card = try store.saveDiscovery(
            owner: .card(instanceUID: uid), ownerName: "card-0011", coinType: 60,
            addresses: [Self.used(index: 0), Self.used(index: 1)])
        clock.advance(days: 1)
        let fresh = try store.saveDiscovery(
            owner: key, ownerName: "wallet", coinType: 60,
            addresses: [Self.used(index: 1), Self.used(account: 2, index: 4)])
        #expect(fresh.map(\.path.description) == ["m/44'/60'/0'/0/1", "m/44'/60'/2'/0/4"])
        #expect(fresh.allSatisfy { $0.discoveredAt == clock.now })
        #expect(try store.discoveredAddresses() == fresh + classic + card)
        // An empty discovery forgets that owner's coin and nothing else.
        #expect(try store.saveDiscovery(owner: key, ownerName: "wallet", coinType: 60, addresses: []).isEmpty)
        #expect(try store.discoveredAddresses() == classic + card)
    }

    @Test func lookupByAddress_ignoresCase_andFindsEveryOwner() throws {
        let (store, wallet) = try storeWithWallet()
        try store.saveDiscovery(
            owner: .card(instanceUID: uid), ownerName: "card-0011", coinType: 60,
            addresses: [Self.used(index: 0)])
        try store.saveDiscovery(
            owner: .key(id: wallet.id), ownerName: "wallet", coinType: 60,
            addresses: [Self.used(index: 0), Self.used(index: 1)])
        for text in [
            "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", "0x9858effd232b4033e47d90003d41ec34ecaeda94",
            "0x9858EFFD232B4033E47D90003D41EC34ECAEDA94",
        ] {
            let found = try store.discovered(address: text)
            #expect(found.map(\.owner) == [.key(id: wallet.id), .card(instanceUID: uid)], "\(text)")
            #expect(found.allSatisfy { $0.address == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94" })
        }
        #expect(try store.discovered(address: "0x6fac4d18c912343bf86fa7049364dd4e424ab9c0").map(\.index) == [1])
        #expect(try store.discovered(address: keyA.address).isEmpty)
        #expect(try store.discovered(address: "not an address").isEmpty)
    }

    @Test func keyOwner_followsRenames_andCascadesOnDelete() throws {
        let (store, wallet) = try storeWithWallet()
        try store.saveDiscovery(
            owner: .key(id: wallet.id), ownerName: "wallet", coinType: 60,
            addresses: [Self.used(index: 0), Self.used(index: 1)])
        let card = try store.saveDiscovery(
            owner: .card(instanceUID: uid), ownerName: "card-0011", coinType: 60,
            addresses: [Self.used(index: 0)])
        try store.renameKey(named: "wallet", to: "savings")
        #expect(try store.discoveredAddresses(owner: .key(id: wallet.id)).map(\.ownerName) == ["savings", "savings"])
        try store.deleteKey(named: "savings")
        #expect(try store.discoveredAddresses() == card)
        #expect(try store.discovered(address: "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0").isEmpty)
        #expect(try store.consistencyProblems() == [])
    }

    @Test func badInput_isRefused_andNothingIsWritten() throws {
        let (store, wallet) = try storeWithWallet()
        let key = DiscoveryOwner.key(id: wallet.id)
        let before = try store.saveDiscovery(
            owner: key, ownerName: "wallet", coinType: 60, addresses: [Self.used(index: 0)])
        let good = Self.used(index: 1)
        func refusal(
            _ bad: DiscoveredAddress, owner: DiscoveryOwner? = nil, name: String = "wallet",
            coin: UInt32 = 60
        ) -> StoreError? {
            // The bad entry comes after a good one: nothing of either may be written.
            storeError {
                try store.saveDiscovery(owner: owner ?? key, ownerName: name, coinType: coin, addresses: [good, bad])
            }
        }
        // The path is not given but follows from coin type, account, change and index.
        #expect(Self.used(account: 2, index: 7).path.description == "m/44'/60'/2'/0/7")
        var hugeIndex = Self.used(index: 2)
        hugeIndex.index = 1 << 31
        #expect(
            refusal(hugeIndex)
                == .invalidDiscovery(field: "addresses[1].index", reason: "must be below 2³¹, got 2147483648"))
        var hugeChange = Self.used(index: 2)
        hugeChange.change = 1 << 31
        #expect(
            refusal(hugeChange)
                == .invalidDiscovery(field: "addresses[1].change", reason: "must be below 2³¹, got 2147483648"))
        let otherCoin = Self.used(coin: 61, index: 0)
        #expect(
            refusal(otherCoin)
                == .invalidDiscovery(
                    field: "addresses[1].coinType",
                    reason: "must be the discovery's coin type 60, got 61"))
        var malformed = Self.used(index: 2)
        malformed.address = "0x9858EfFD232B4033E47d90003D41EC34EcaEda9"
        #expect(
            refusal(malformed)
                == .invalidDiscovery(
                    field: "addresses[1].address",
                    reason: "is not an Ethereum address: Ethereum address must be 0x followed by 40 hex digits, "
                        + "got \"0x9858EfFD232B4033E47d90003D41EC34EcaEda9\" (39 hex digits instead of 40)"))
        var badChecksum = Self.used(index: 0)
        badChecksum.address = "0x9858efFD232B4033E47d90003D41EC34EcaEda94"
        #expect(
            refusal(badChecksum)?.description.hasPrefix(
                "discovery field addresses[1].address is not an Ethereum address") == true)
        var wrongKey = Self.used(index: 2)
        wrongKey.address = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
        #expect(
            refusal(wrongKey)
                == .invalidDiscovery(
                    field: "addresses[1].address",
                    reason:
                        "is 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 but its public key's address is \(Self.used(index: 2).address)"
                ))
        var uncompressed = Self.used(index: 2)
        uncompressed.publicKey = try PublicKey(bytes: uncompressed.publicKey).uncompressed
        #expect(
            refusal(uncompressed)
                == .invalidDiscovery(
                    field: "addresses[1].publicKey",
                    reason: "must be a 33-byte compressed public key, got 65 bytes"))
        var offCurve = Self.used(index: 2)
        offCurve.publicKey = [0x02] + [UInt8](repeating: 0xFF, count: 32)
        #expect(
            refusal(offCurve)?.description.hasPrefix(
                "discovery field addresses[1].publicKey is not a secp256k1 public key") == true)
        #expect(
            refusal(good)
                == .invalidDiscovery(
                    field: "addresses[1]",
                    reason: "repeats account 0, change 0, index 1 of addresses[0]"))
        #expect(
            refusal(Self.used(index: 2), name: "")
                == .invalidDiscovery(field: "ownerName", reason: "must be 1 to 64 characters, got 0"))
        #expect(
            refusal(Self.used(index: 2), owner: .card(instanceUID: "0011"))
                == .invalidDiscovery(
                    field: "owner", reason: "must be a card instance UID of 32 hex digits, got \"0011\""))
        #expect(refusal(Self.used(index: 2), owner: .key(id: 999)) == .unknownKeyID(999))
        #expect(
            refusal(Self.used(index: 2), coin: 1 << 31)
                == .invalidDiscovery(field: "coinType", reason: "must be below 2³¹, got 2147483648"))

        #expect(try store.discoveredAddresses() == before)
    }

    @Test func failingSave_leavesThePreviousRows() throws {
        let failing = Switch()
        let (store, wallet) = try storeWithWallet(fault: { point in
            if point == "saveDiscovery.afterDelete", failing.isOn { throw injectedIOError }
        })
        let key = DiscoveryOwner.key(id: wallet.id)
        let before = try store.saveDiscovery(
            owner: key, ownerName: "wallet", coinType: 60,
            addresses: [Self.used(index: 0), Self.used(index: 1)])
        // Fails after the old rows were deleted, inside the transaction: the delete is rolled back.
        failing.isOn = true
        #expect(
            storeError {
                try store.saveDiscovery(
                    owner: key, ownerName: "wallet", coinType: 60,
                    addresses: [Self.used(index: 2)])
            } == injectedIOError)
        #expect(try store.discoveredAddresses() == before)
        // A command that saves and then fails commits nothing either.
        failing.isOn = false
        #expect(
            storeError {
                try store.write { tx in
                    try tx.saveDiscovery(
                        owner: key, ownerName: "wallet", coinType: 60, addresses: [Self.used(index: 2)])
                    throw injectedIOError
                }
            } == injectedIOError)
        #expect(try store.discoveredAddresses() == before)
    }

    @Test func schema_enforcesOneOwnerAndUniqueness_andLookupsUseTheIndexes() throws {
        let (store, wallet) = try storeWithWallet()
        try store.saveDiscovery(
            owner: .key(id: wallet.id), ownerName: "wallet", coinType: 60, addresses: [Self.used(index: 0)])
        let row = "'wallet', 60, 0, 0, 0, '\(Self.used(index: 0).address)', zeroblob(33), 0"
        let columns =
            "(key_id, card_uid, owner_name, coin_type, account, change, address_index, address, public_key, discovered_at)"
        for owners in ["\(wallet.id), NULL", "NULL, NULL", "\(wallet.id), '\(uid)'", "NULL, 'ABC'"] {
            #expect(throws: DatabaseError.self, "\(owners)") {
                try store.queue.write {
                    try $0.execute(sql: "INSERT INTO discovered_addresses \(columns) VALUES (\(owners), \(row))")
                }
            }
        }
        func plan(_ sql: String) throws -> String {
            try store.queue.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }.joined(
                    separator: "; ")
            }
        }
        #expect(try plan("SELECT * FROM discovered_addresses WHERE address = '0xab'").contains("discovered_by_address"))
        #expect(try plan("SELECT * FROM discovered_addresses WHERE key_id = 1").contains("discovered_by_key"))  // the cascade's
        #expect(
            try plan("SELECT * FROM discovered_addresses WHERE key_id = 1 AND coin_type = 60").contains(
                "discovered_by_key"))
        #expect(
            try plan("SELECT * FROM discovered_addresses WHERE card_uid = 'x' AND coin_type = 60").contains(
                "discovered_by_card"))
    }
}

/// A flag a fault injector reads and the test flips.
private final class Switch: Sendable {
    private let state = Mutex(false)
    var isOn: Bool {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
