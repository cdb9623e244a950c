import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the store writes times: whole milliseconds since the Unix epoch, UTC, in an
/// INTEGER column. Integers sort and compare exactly (the history indexes rely on it),
/// and the text rendering is ISO 8601 UTC, the same on every machine.
enum Timestamp {
    /// Milliseconds since 1970-01-01T00:00:00Z, rounded to the nearest millisecond.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The date `ms` milliseconds after the epoch.
    static func date(_ ms: Int64) -> Date {
        Date(timeIntervalSince1970: Double(ms) / 1000)
    }

    /// `2024-05-01T12:34:56.789Z`, independent of locale and time zone.
    static func iso8601(_ date: Date) -> String {
        let ms = milliseconds(date)
        var seconds = time_t(ms >= 0 ? ms / 1000 : (ms - 999) / 1000)
        let fraction = Int(ms - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
            + "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(fraction), 3))Z"
    }
}
