import Foundation

/// Loads published test vectors copied into a test target's `Vectors/` folder.
/// Files are found relative to the calling test file (`#filePath`), not through
/// resource bundles (STYLE §2), so tests run the same under any build system.
public enum Vectors {
    /// The parsed JSON object in `Vectors/<name>` beside `file`.
    public static func json(_ name: String, file: StaticString = #filePath) -> [String: Any] {
        let url = folder(file).appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            fatalError("test vector file missing: \(url.path)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            fatalError("test vector file is not a JSON object: \(url.path)")
        }
        return object
    }

    /// The text of `Vectors/<name>` beside `file`.
    public static func text(_ name: String, file: StaticString = #filePath) -> String {
        let url = folder(file).appendingPathComponent(name)
        guard let s = try? String(contentsOf: url, encoding: .utf8) else {
            fatalError("test vector file missing: \(url.path)")
        }
        return s
    }

    /// The `Vectors` folder next to `file`.
    public static func folder(_ file: StaticString) -> URL {
        URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("Vectors")
    }
}

extension Dictionary where Key == String, Value == Any {
    /// A string field, failing loudly when absent (a broken vector file must not pass silently).
    public func string(_ key: String) -> String {
        guard let v = self[key] as? String else { fatalError("vector field \(key) missing or not a string") }
        return v
    }

    /// An array-of-objects field.
    public func objects(_ key: String) -> [[String: Any]] {
        guard let v = self[key] as? [[String: Any]] else { fatalError("vector field \(key) missing or not a list") }
        return v
    }

    /// A nested object field.
    public func object(_ key: String) -> [String: Any] {
        guard let v = self[key] as? [String: Any] else { fatalError("vector field \(key) missing or not an object") }
        return v
    }
}

/// Strips an optional 0x and lower-cases, for comparing hex written in any style.
public func normHex(_ s: String) -> String {
    (s.hasPrefix("0x") || s.hasPrefix("0X") ? String(s.dropFirst(2)) : s).lowercased()
}
