#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes that must never be shown: a private key, a seed, a mnemonic's text, a PIN.
///
/// - `description`, `debugDescription` and the reflection mirror print only
///   `<secret: N bytes>`, so string interpolation, `print`, `dump` and error
///   messages cannot leak the content.
/// - The storage is a private allocation, zeroed before it is released.
/// - `==` runs in time that depends only on the lengths.
/// - The bytes are reachable only inside `withUnsafeBytes` (docs/habits.md §4).
/// - Not `Codable`, on purpose: a secret is written to disk only after it is sealed.
public final class Secret: @unchecked Sendable {
    // Immutable after init, so sharing between threads is safe.
    private let storage: UnsafeMutableRawBufferPointer

    /// Number of bytes held.
    public let count: Int

    /// Copies `bytes` into a new secret. The caller remains responsible for its own copy.
    public init<C: Collection>(bytes: C) where C.Element == UInt8 {
        count = bytes.count
        storage = .allocate(byteCount: max(count, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        var i = 0
        for byte in bytes {
            storage[i] = byte
            i += 1
        }
    }

    /// Moves `bytes` into a new secret and zeroes the array it came from.
    public convenience init(consuming bytes: inout [UInt8]) {
        self.init(bytes: bytes)
        Secret.wipe(&bytes)
    }

    /// The UTF-8 bytes of `text` (a password, a PIN, a mnemonic phrase).
    public convenience init(utf8 text: String) {
        var bytes = Array(text.utf8)
        self.init(consuming: &bytes)
    }

    /// Builds a secret of `count` bytes by letting `body` write into it.
    public init<E: Error>(count: Int, _ body: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        // Fill a local buffer first: if `body` throws, `self` is not yet initialised,
        // so deinit does not run and the buffer is released exactly once, here.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try body(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
        } catch {
            Secret.zero(buffer)
            buffer.deallocate()
            throw error
        }
        self.count = count
        storage = buffer
    }

    deinit {
        Secret.zero(storage)
        storage.deallocate()
    }

    /// Gives `body` read access to the bytes. Do not let the pointer escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// A copy of the bytes, for the few places that must build wire data (an APDU, a CBOR
    /// export the user asked for) from a secret.
    public var bytesCopy: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Zeroes an array in place (best effort: Swift may have made copies elsewhere).
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { zero($0) }
        bytes.removeAll()
    }

    private static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        // A volatile-style write the optimiser cannot drop: explicit_bzero is in glibc ≥ 2.25.
        #if canImport(Glibc)
            explicit_bzero(base, buffer.count)
        #else
            memset_s(base, buffer.count, 0, buffer.count)
        #endif
    }
}

extension Secret: Equatable {
    /// Constant-time comparison (time depends only on the lengths).
    public static func == (lhs: Secret, rhs: Secret) -> Bool {
        lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in ConstantTime.equal(a, b) } }
    }
}

extension Secret: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "<secret: \(count) bytes>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Comparisons whose running time does not depend on where the inputs differ.
public enum ConstantTime {
    /// True when `a` and `b` have the same length and bytes. Runs through every byte.
    public static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<a.count { diff |= a[i] ^ b[i] }
        return diff == 0
    }

    /// True when the two byte sequences are equal, in constant time for equal lengths.
    public static func equal<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        let x = Array(a), y = Array(b)
        return x.withUnsafeBytes { p in y.withUnsafeBytes { q in equal(p, q) } }
    }
}
