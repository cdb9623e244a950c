// The kcs store: one SQLite database, `kcs.db`, in the kcs home (docs/store.md). GRDB.swift
// drives Debian's libsqlite3; this file opens the file safely and hands out transactions.
import Foundation
import GRDB
import KCSErrors
import Synchronization
import WalletCrypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The wallet store: keys and their metadata, secrets sealed under the vault
/// passphrase, card pairings, signing history, the rotation journal and settings.
///
/// - Opening (`open(home:)`) creates the home directory with mode 0700 and `kcs.db`
///   with mode 0600 (the `-wal` and `-shm` files SQLite creates beside it inherit 0600),
///   switches the file to WAL, turns foreign keys and `secure_delete` on, and runs the
///   named migrations of `Schema`.
/// - Every public mutating method is one `BEGIN IMMEDIATE … COMMIT` transaction: when it
///   throws, or the process dies half-way, the store is as it was before the call. To
///   group several changes into one command, use `write(_:)` and the methods of
///   `StoreTransaction`.
/// - Secrets are sealed with the vault's key-encryption key (see `Vault.swift`), which
///   exists only in memory, only as a `Secret`, between `unlock` and `lock`.
///
/// The class is `Sendable`: the GRDB queue serialises database access, and the vault
/// key sits behind a mutex.
public final class WalletStore: Sendable {
    /// The database file name inside the kcs home.
    public static let databaseFileName = "kcs.db"

    /// Where the store lives; nil for an in-memory store.
    public let databasePath: String?

    let queue: DatabaseQueue
    let options: Options
    /// The key-encryption key while the vault is unlocked.
    let vaultKey = Mutex<Secret?>(nil)
    /// Set by `close()`, inside the database queue, so no access can slip in after it.
    let isClosed = Mutex(false)

    // MARK: - Options

    /// What a store needs from its surroundings: randomness and a clock, both injectable
    /// so tests are reproducible (docs/habits.md §3).
    public struct Options: Sendable {
        /// Salts and nonces come from here.
        public var random: any RandomSource
        /// The time written into `created_at` and the other time columns.
        public var clock: @Sendable () -> Date
        /// How long a writer waits for another kcs process holding the write lock.
        public var busyTimeout: TimeInterval
        /// Test-only: called at named points inside multi-step operations; throwing from
        /// it simulates a failure half-way (the transaction must then roll back).
        var faultInjector: (@Sendable (String) throws -> Void)?

        /// Options with the system CSPRNG and clock by default.
        public init(
            random: any RandomSource = SystemRandom(), clock: @escaping @Sendable () -> Date = { Date() },
            busyTimeout: TimeInterval = 5
        ) {
            self.random = random
            self.clock = clock
            self.busyTimeout = busyTimeout
            self.faultInjector = nil
        }
    }

    // MARK: - Opening

    /// The kcs home from the environment: `$KCS_HOME`, else `$XDG_DATA_HOME/kcs`,
    /// else `$HOME/.local/share/kcs` (docs/habits.md "Files and environment").
    public static func defaultHome(environment: ProcessEnvironment = .current) -> String {
        if let home = environment.nonEmpty("KCS_HOME") { return home }
        if let data = environment.nonEmpty("XDG_DATA_HOME") { return data + "/kcs" }
        return environment.homeDirectory + "/.local/share/kcs"
    }

    /// Opens (creating if needed) the store `kcs.db` in `home`.
    ///
    /// Creates `home` (and missing parents) if it does not exist; `home` itself gets mode
    /// 0700. An existing `home` keeps its mode (it may be a directory the user chose).
    /// The database file is created 0600 before SQLite sees it, and tightened to 0600 on
    /// every open, together with its `-wal` and `-shm` files, before SQLite opens them.
    ///
    /// - Throws: `StoreError.homeUnusable`, `.fileUnusable`, `.database`, `.notWAL`, `.schemaTooNew`.
    public static func open(home: String, options: Options = Options()) throws(StoreError) -> WalletStore {
        try prepareHome(home)
        let path = (home.hasSuffix("/") ? home : home + "/") + databaseFileName
        // Checked before anything opens, creates or chmods them: none of the three may be a link.
        for suffix in ["", "-wal", "-shm"] { try refuseSymbolicLink(path + suffix) }
        try createPrivateFile(path)
        // Tightened before SQLite opens them, never after: closing any descriptor of these files
        // in this process would drop SQLite's POSIX locks on them (its "last connection" lock on
        // the -shm file among them), and another process closing the store could then delete the
        // WAL under this one, losing every write it makes afterwards. SQLite gives the -wal and
        // -shm files it creates the database file's mode (0600).
        for suffix in ["", "-wal", "-shm"] { try tighten(path + suffix) }
        var config = baseConfiguration(options)
        config.journalMode = .wal
        let queue = try storeErrors { try DatabaseQueue(path: path, configuration: config) }
        let store = WalletStore(queue: queue, path: path, options: options)
        try store.finishOpening()
        return store
    }

    /// A store in memory, gone when the object is released: for tests and throw-away sessions.
    public static func inMemory(options: Options = Options()) throws(StoreError) -> WalletStore {
        let queue = try storeErrors { try DatabaseQueue(configuration: baseConfiguration(options)) }
        let store = WalletStore(queue: queue, path: nil, options: options)
        try store.finishOpening()
        return store
    }

    init(queue: DatabaseQueue, path: String?, options: Options) {
        self.queue = queue
        self.databasePath = path
        self.options = options
    }

    private static func baseConfiguration(_ options: Options) -> Configuration {
        var config = Configuration()
        config.label = "kcs.db"
        config.foreignKeysEnabled = true
        // Statement arguments (sealed secrets, names) stay out of error messages.
        config.publicStatementArguments = false
        config.busyMode = .timeout(options.busyTimeout)
        config.prepareDatabase { db in
            // Deleted rows (wiped secrets) are overwritten with zeros, not just unlinked.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        return config
    }

    /// Pragmas that need the file opened, then the migrations.
    private func finishOpening() throws(StoreError) {
        try storeErrors {
            try queue.writeWithoutTransaction { db in
                // A committed transaction survives power loss, not just a crash of kcs.
                try db.execute(sql: "PRAGMA synchronous = FULL")
                try db.execute(sql: "PRAGMA foreign_keys = ON")
            }
        }
        if databasePath != nil {
            let mode = try journalMode()
            guard mode == "wal" else { throw .notWAL(mode: mode) }
        }
        try migrate()
    }

    private func migrate() throws(StoreError) {
        let migrator = Schema.migrator
        let unknown: [String] = try storeErrors {
            try queue.read { db in
                guard try migrator.hasBeenSuperseded(db) else { return [] }
                let known = Set(Schema.migrations.map(\.name))
                return try migrator.appliedIdentifiers(db).filter { !known.contains($0) }.sorted()
            }
        }
        guard unknown.isEmpty else { throw .schemaTooNew(unknownMigrations: unknown) }
        try storeErrors { try migrator.migrate(queue) }
    }

    /// Creates `home` with mode 0700 when it is missing; checks it is a directory.
    private static func prepareHome(_ home: String) throws(StoreError) {
        var st = stat()
        if stat(home, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFDIR else { throw .homeUnusable(path: home, errno: ENOTDIR) }
            return
        }
        let parent = (home as NSString).deletingLastPathComponent
        if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw .homeUnusable(path: home, errno: errnoOf(error))
            }
        }
        if mkdir(home, 0o700) != 0, errno != EEXIST { throw .homeUnusable(path: home, errno: errno) }
        // mkdir's mode is filtered by the umask; say exactly what we mean.
        if chmod(home, 0o700) != 0 { throw .homeUnusable(path: home, errno: errno) }
    }

    private static func errnoOf(_ error: any Error) -> Int32 {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        return EACCES
    }

    /// Throws `.symbolicLink` when `path` is a symbolic link (lstat: the link itself).
    private static func refuseSymbolicLink(_ path: String) throws(StoreError) {
        var st = stat()
        if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFLNK { throw .symbolicLink(path: path) }
    }

    /// Gives an existing file mode 0600 through a descriptor opened without following a link.
    private static func tighten(_ path: String) throws(StoreError) {
        let fd = posixOpen(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0)
        if fd < 0 {
            if errno == ENOENT { return }
            if errno == ELOOP { throw .symbolicLink(path: path) }
            throw .fileUnusable(path: path, errno: errno)
        }
        let result = fchmod(fd, 0o600)
        let code = errno
        posixClose(fd)
        if result != 0 { throw .fileUnusable(path: path, errno: code) }
    }

    /// Creates an empty database file with mode 0600 if none exists. SQLite gives the
    /// `-wal` and `-shm` files it creates later the mode of this file, so creating it
    /// ourselves sets all three without touching the process-wide umask.
    private static func createPrivateFile(_ path: String) throws(StoreError) {
        let fd = posixOpen(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            let chmodResult = fchmod(fd, 0o600)
            let code = errno
            posixClose(fd)
            if chmodResult != 0 { throw .fileUnusable(path: path, errno: code) }
            return
        }
        guard errno == EEXIST else { throw .fileUnusable(path: path, errno: errno) }
        try tighten(path)
    }

    // MARK: - Transactions

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), committed when it returns
    /// and rolled back when it throws. `body`'s own errors pass through unchanged; SQLite
    /// failures (including at commit) become `StoreError`. Do not let the transaction
    /// escape `body`, and do not call other `WalletStore` methods from inside it (the
    /// database queue is not re-entrant): use the transaction's methods.
    public func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        let now = options.clock()
        return try access { db in
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(StoreTransaction(db: db, store: self, now: now))
                return .commit
            }
            return result!
        }
    }

    /// Runs `body` with a read-only view of one consistent snapshot of the store.
    /// Mutating methods called on it fail with `StoreError.database` (read-only).
    public func read<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        let now = options.clock()
        return try access { db in
            try db.readOnly {
                var result: T?
                try db.inTransaction(.deferred) {
                    result = try body(StoreTransaction(db: db, store: self, now: now))
                    return .commit
                }
                return result!
            }
        }
    }

    /// Every database access goes through here: serialised on the GRDB queue, refused
    /// once the store is closed (GRDB must not touch a closed connection), and with
    /// SQLite errors mapped to `StoreError`.
    func access<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.writeWithoutTransaction { db in
                guard !isClosed.withLock({ $0 }) else { throw StoreError.closed }
                return try body(db)
            }
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    /// `write` for bodies that throw only store errors.
    func perform<T>(_ body: (StoreTransaction) throws -> T) throws(StoreError) -> T {
        do { return try write(body) } catch { throw StoreError(error) }
    }

    /// `read` for bodies that throw only store errors.
    func fetch<T>(_ body: (StoreTransaction) throws -> T) throws(StoreError) -> T {
        do { return try read(body) } catch { throw StoreError(error) }
    }

    /// Calls the test-only fault injector at `point`.
    func faultPoint(_ point: String) throws {
        try options.faultInjector?(point)
    }

    // MARK: - Maintenance

    /// The names of the migrations applied to this database, in order.
    public func appliedMigrations() throws(StoreError) -> [String] {
        try storeErrors { try access { try Schema.migrator.appliedMigrations($0) } }
    }

    /// Every migration this build knows, in order.
    public static var migrationNames: [String] { Schema.migrations.map(\.name) }

    /// SQLite's journal mode for the main database: `wal` for a file, `memory` in memory.
    public func journalMode() throws(StoreError) -> String {
        try storeErrors { try access { try String.fetchOne($0, sql: "PRAGMA journal_mode") ?? "" } }
    }

    /// Whether SQLite enforces foreign keys on this connection (always true for kcs).
    public func foreignKeysEnabled() throws(StoreError) -> Bool {
        try storeErrors { try access { try Bool.fetchOne($0, sql: "PRAGMA foreign_keys") ?? false } }
    }

    /// Copies every committed transaction from the WAL into the database file and
    /// truncates the WAL to zero bytes, so the pages of wiped secrets leave the WAL too.
    /// Best after deleting or retiring keys. Fails with `.database` (busy) while another
    /// process is reading.
    public func checkpointWAL() throws(StoreError) {
        guard databasePath != nil else { return }
        try storeErrors { try access { _ = try $0.checkpoint(.truncate) } }
    }

    /// Closes the database and locks the vault. Later calls fail with `StoreError.closed`;
    /// closing twice is harmless.
    public func close() throws(StoreError) {
        lock()
        let alreadyClosed = queue.writeWithoutTransaction { _ in
            isClosed.withLock { closed in
                defer { closed = true }
                return closed
            }
        }
        if alreadyClosed { return }
        try storeErrors { try queue.close() }
    }
}

// The C calls, qualified: inside `WalletStore`, `open` and `close` name its own methods.
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Glibc)
        Glibc.open(path, flags, mode)
    #else
        Darwin.open(path, flags, mode)
    #endif
}

private func posixClose(_ fd: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(fd)
    #else
        _ = Darwin.close(fd)
    #endif
}
