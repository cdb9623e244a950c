#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The environment variables kcs reads (`KCS_HOME`, `NO_COLOR`, …): the process's own, read one
/// variable at a time with getenv(3), or a fixed set a test gives. One place for the lookups
/// every layer makes, and cheap at start-up: Foundation's `ProcessInfo.environment` copies the
/// whole environment into a new dictionary on every read, and its home folder asks the password
/// database (nsswitch, `/etc/passwd`, nscd) even when `HOME` is set (docs/architecture.md,
/// "Start-up").
public struct ProcessEnvironment: Sendable, ExpressibleByDictionaryLiteral {
    private let fixed: [String: String]?

    /// The running process's environment, read when asked.
    public static var current: ProcessEnvironment { ProcessEnvironment(fixed: nil) }

    private init(fixed: [String: String]?) { self.fixed = fixed }

    /// A fixed environment holding exactly `values`.
    public init(_ values: [String: String]) { fixed = values }

    public init(dictionaryLiteral elements: (String, String)...) {
        fixed = Dictionary(elements, uniquingKeysWith: { $1 })
    }

    /// The variable's value, nil when unset.
    public subscript(name: String) -> String? {
        if let fixed { return fixed[name] }
        return getenv(name).map { String(cString: $0) }
    }

    /// The variable's value when it is set and not empty.
    public func nonEmpty(_ name: String) -> String? {
        self[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The user's home folder: `$HOME`, else the password database's entry for this user, else `/`.
    public var homeDirectory: String {
        if let home = nonEmpty("HOME") { return home }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        if getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) == 0, let result,
            let dir = result.pointee.pw_dir
        {
            let home = String(cString: dir)
            if !home.isEmpty { return home }
        }
        return "/"
    }
}
