// Shared fixtures for the store tests: scratch homes, a fixed clock, fast stores and
// keys with known secrets (published vectors, cited where they are used).
import Foundation
import Synchronization
import Testing
import WalletCore
import WalletCrypto

@testable import WalletStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh directory under the system temporary directory, removed by `cleanup()`.
struct ScratchDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    /// A path inside the directory (not created).
    func file(_ name: String) -> String { path + "/" + name }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// The permission bits of `path`, or nil when it does not exist.
func permissions(_ path: String) -> mode_t? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return st.st_mode & 0o7777
}

/// A clock the test moves by hand. Starts at 2024-01-01T00:00:00Z.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_704_067_200))

    var now: Date { current.withLock { $0 } }

    func advance(seconds: TimeInterval) { current.withLock { $0 += seconds } }

    func advance(days: Double) { advance(seconds: days * 86_400) }
}

/// Cheap scrypt for tests; `VaultTests` checks the standard parameters once.
let testScrypt = ScryptParameters.insecureForTesting(n: 16, r: 1, p: 1)

/// Store options with a seeded RNG and a test clock (and optionally a fault injector).
func testOptions(
    clock: TestClock = TestClock(), seed: UInt64 = 1,
    fault: (@Sendable (String) throws -> Void)? = nil
) -> WalletStore.Options {
    var options = WalletStore.Options(random: SeededRandom(seed: seed), clock: { clock.now })
    options.faultInjector = fault
    return options
}

/// An in-memory store with an unlocked vault (passphrase `vault-pass`).
func makeStore(clock: TestClock = TestClock(), fault: (@Sendable (String) throws -> Void)? = nil) throws -> WalletStore
{
    let store = try WalletStore.inMemory(options: testOptions(clock: clock, fault: fault))
    try store.createVault(passphrase: Secret(utf8: "vault-pass"), scrypt: testScrypt)
    return store
}

/// Hex → bytes for literals (a typo is a test bug, so it traps).
func h(_ hex: String) -> [UInt8] { try! Hex.decode(hex.replacingOccurrences(of: " ", with: "")) }

/// A software ECDSA key from a known private key, with its public key and EIP-55 address.
struct KnownKey {
    let privateKey: [UInt8]
    let publicKey: PublicKey
    let address: String

    init(_ hex: String) {
        privateKey = h(hex)
        publicKey = try! PrivateKey(bytes: privateKey).publicKey
        address = EthereumAddress(publicKey: publicKey).checksummed
    }

    func newKey(name: String? = nil, source: KeySource = .privkey) -> NewKey {
        NewKey(name: name, kind: .ecdsa, source: source, publicKey: publicKey, address: address)
    }

    var secret: KeySecret { .privateKey(Secret(bytes: privateKey)) }
}

/// keyA is the web3.js documentation's example private key; keyB and keyC are arbitrary valid scalars.
let keyA = KnownKey("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
let keyB = KnownKey("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
let keyC = KnownKey("8da4ef21b864d2cc526dbdb2a120bd2874c36c9d0a1fb7f8c63d7f7a8b41de8f")

/// Adds `count` ECDSA keys named k1…kN (secrets derived from the index) and returns their names.
@discardableResult
func addNumberedKeys(_ store: WalletStore, count: Int, prefix: String = "k") throws -> [String] {
    try store.write { tx in
        try (1...count).map { i in
            var bytes = [UInt8](repeating: 0, count: 32)
            bytes[30] = UInt8(i >> 8)
            bytes[31] = UInt8(i & 0xFF)
            let pub = try PrivateKey(bytes: bytes).publicKey
            let key = NewKey(
                name: "\(prefix)\(i)", kind: .ecdsa, source: .generated, publicKey: pub,
                address: EthereumAddress(publicKey: pub).checksummed)
            return try tx.addKey(key, secret: .privateKey(Secret(bytes: bytes))).name
        }
    }
}

/// The names in position order; also checks that positions are exactly 1…n.
func orderedNames(_ store: WalletStore, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
    let keys = try store.keys()
    #expect(
        keys.map(\.position) == Array(1...max(keys.count, 1)).prefix(keys.count).map { $0 },
        "positions are not 1…n", sourceLocation: sourceLocation)
    return keys.map(\.name)
}

/// The `StoreError` thrown by `body`, or nil.
func storeError<T>(_ body: () throws -> T) -> StoreError? {
    do {
        _ = try body()
        return nil
    } catch let error as StoreError {
        return error
    } catch {
        Issue.record("expected a StoreError, got \(error)")
        return nil
    }
}

/// An error a fault injector throws: what SQLite would report for a failed write.
let injectedIOError = StoreError.database(code: 10, message: "disk I/O error (injected)")
