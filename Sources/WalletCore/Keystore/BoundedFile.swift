// Reading a file a person names (a trace, an image, a descriptor, a list): untrusted input, so its
// size is checked before a byte is read, and only a regular file is read (a FIFO would block, a
// device never end). The reading counterpart of `AtomicFile`; each caller names its own error.
import Foundation

public enum BoundedFile {
    /// What reading a file gave.
    public enum Outcome: Equatable {
        case bytes([UInt8])
        /// The file holds more than the bound.
        case tooLarge(size: Int)
        /// No such file, not a regular file (after symbolic links), or not readable.
        case unreadable
    }

    /// The bytes of `path` when it is a regular file of at most `maximumBytes`.
    public static func read(_ path: String, maximumBytes: Int) -> Outcome {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let a = try? FileManager.default.attributesOfItem(atPath: resolved),
            a[.type] as? FileAttributeType == .typeRegular, let size = a[.size] as? Int
        else { return .unreadable }
        guard size <= maximumBytes else { return .tooLarge(size: size) }
        // The file may grow between the two calls: the bound holds for what is read too.
        guard let data = FileManager.default.contents(atPath: resolved) else { return .unreadable }
        guard data.count <= maximumBytes else { return .tooLarge(size: data.count) }
        return .bytes(Array(data))
    }
}
