import Foundation

/// Where the tests find the checkout and the kcs binary they run.
public enum TestPaths {
    /// The repository root (this file is Sources/KCSTestSupport/TestPaths.swift).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The kcs binary: `$KCS_BINARY` when set and not empty (a build in another scratch
    /// path), else the checkout's debug build (`make test` builds it first).
    public static var kcsBinary: URL {
        if let path = ProcessInfo.processInfo.environment["KCS_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return root.appendingPathComponent(".build/debug/kcs")
    }
}
