internal import CQR
import Foundation
import KCSErrors

// QR codes: made with libqrencode, drawn in the terminal with half blocks or written as PNG/SVG,
// and read from grey images with libzbar (docs/qr.md). The C libraries are loaded on first use.

/// Every way making, drawing or reading a QR code fails.
public enum QRError: IdentifiableError, Equatable {
    /// A library could not be loaded.
    case library(String)
    /// The data does not fit in a QR code at this error-correction level.
    case tooLarge(bytes: Int, level: QRCode.ErrorCorrection)
    /// An image could not be read or written.
    case image(String)
    /// No QR code was found in the image.
    case noCode
    /// The code does not fit the terminal.
    case terminalTooSmall(needs: (columns: Int, rows: Int), has: (columns: Int, rows: Int))

    public static func == (a: QRError, b: QRError) -> Bool { a.id == b.id && a.description == b.description }

    public var id: String {
        switch self {
        case .library: "qr.library"
        case .tooLarge: "qr.tooLarge"
        case .image: "qr.image"
        case .noCode: "qr.noCode"
        case .terminalTooSmall: "qr.terminalTooSmall"
        }
    }

    public var description: String {
        switch self {
        case .library(let why): why
        case .tooLarge(let bytes, let level):
            "\(bytes) bytes do not fit in one QR code at error correction \(level) (a version-40 code holds at most 2,953 bytes at L)"
        case .image(let why): why
        case .noCode: "no QR code was found in the image"
        case .terminalTooSmall(let needs, let has):
            "the code needs \(needs.columns)×\(needs.rows) characters and the terminal is \(has.columns)×\(has.rows): enlarge it, lower the error correction, or save it as an image"
        }
    }
}

/// A QR code's modules.
public struct QRCode: Sendable, Equatable {
    /// Error-correction level: L 7 %, M 15 %, Q 25 %, H 30 % of the code can be lost.
    public enum ErrorCorrection: Int, Sendable, CaseIterable, CustomStringConvertible {
        case low = 0, medium, quartile, high
        public var description: String { ["L", "M", "Q", "H"][rawValue] }
        /// `L`, `M`, `Q` or `H` (any case).
        public init?(letter: String) {
            guard let i = ["L", "M", "Q", "H"].firstIndex(of: letter.uppercased()) else { return nil }
            self.init(rawValue: i)
        }
    }

    /// 1…40.
    public let version: Int
    /// Modules per side (17 + 4·version).
    public let size: Int
    public let errorCorrection: ErrorCorrection
    /// Row by row, true for a dark module.
    public let modules: [Bool]

    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// The smallest code for `data` at `level`; with `boost`, the level is then raised as far as
    /// the same version allows. `text` lets libqrencode pick numeric and alphanumeric segments
    /// (an upper-case UR, an address); binary data (which may hold zero bytes) is one byte segment.
    public init(data: [UInt8], text: Bool, level: ErrorCorrection = .low, boost: Bool = true) throws(QRError) {
        var best = try Self.encode(data, text: text && !data.contains(0), level: level, version: 0)
        if boost {
            for higher in ErrorCorrection.allCases where higher.rawValue > level.rawValue {
                guard
                    let raised = try? Self.encode(
                        data, text: text && !data.contains(0), level: higher, version: best.version),
                    raised.version == best.version
                else { break }
                best = raised
            }
        }
        self = best
    }

    private init(version: Int, size: Int, errorCorrection: ErrorCorrection, modules: [Bool]) {
        self.version = version
        self.size = size
        self.errorCorrection = errorCorrection
        self.modules = modules
    }

    private static func encode(
        _ data: [UInt8], text: Bool, level: ErrorCorrection, version: Int
    ) throws(QRError) -> QRCode {
        if let why = kcs_qrencode_load() { throw .library(String(cString: why)) }
        var width: Int32 = 0
        var raw: UnsafeMutablePointer<UInt8>?
        let v = data.withUnsafeBufferPointer {
            kcs_qr_encode(
                $0.baseAddress, Int32($0.count), Int32(level.rawValue), Int32(version), text ? 1 : 0, &width, &raw)
        }
        guard v > 0, let raw else { throw .tooLarge(bytes: data.count, level: level) }
        defer { kcs_free(raw) }
        let n = Int(width)
        return QRCode(
            version: Int(v), size: n, errorCorrection: level,
            modules: UnsafeBufferPointer(start: raw, count: n * n).map { $0 != 0 })
    }

    // MARK: drawing

    /// Characters and lines the terminal drawing takes with `margin` quiet modules.
    public func terminalSize(margin: Int) -> (columns: Int, rows: Int) {
        let side = size + 2 * margin
        return (side, (side + 1) / 2)
    }

    /// Half blocks, two module rows per line, the quiet zone included. `color`: explicit black
    /// on bright white on every cell (any terminal theme). Without colour, `lightDrawn` draws the
    /// light modules as blocks (for dark terminals, qrencode's habit), else the dark ones.
    public func terminalText(margin: Int = 2, color: Bool, lightDrawn: Bool = true) -> String {
        let side = size + 2 * margin
        func dark(_ x: Int, _ y: Int) -> Bool {
            let mx = x - margin, my = y - margin
            return mx >= 0 && my >= 0 && mx < size && my < size && isDark(x: mx, y: my)
        }
        var lines: [String] = []
        for y in stride(from: 0, to: side, by: 2) {
            var line = color ? "\u{1B}[30;107m" : ""
            for x in 0..<side {
                let top = dark(x, y), bottom = y + 1 < side ? dark(x, y + 1) : false
                // Drawn halves: with colour the foreground is black (dark modules); without, as asked.
                let drawTop = color || !lightDrawn ? top : !top
                let drawBottom = color || !lightDrawn ? bottom : (y + 1 < side ? !bottom : false)
                line += drawTop ? (drawBottom ? "█" : "▀") : (drawBottom ? "▄" : " ")
            }
            lines.append(line + (color ? "\u{1B}[0m" : ""))
        }
        return lines.joined(separator: "\n")
    }

    /// An 8-bit grey image: `scale` pixels per module, `margin` quiet modules, black on white;
    /// with `side`, centred on a larger square of that many modules (frames of one size).
    public func image(scale: Int = 8, margin: Int = 4, side modules: Int? = nil) -> GrayImage {
        let margin = margin + max(0, ((modules ?? 0) - size - 2 * margin) / 2)
        let side = max((size + 2 * margin) * scale, (modules ?? 0) * scale)
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) {
                for dy in 0..<scale {
                    let row = ((y + margin) * scale + dy) * side + (x + margin) * scale
                    for dx in 0..<scale { pixels[row + dx] = 0 }
                }
            }
        }
        return GrayImage(width: side, height: side, pixels: pixels)
    }

    /// An SVG drawing: one path of module squares, `scale` units per module, `margin` quiet modules.
    public func svg(scale: Int = 8, margin: Int = 4) -> String {
        let side = (size + 2 * margin) * scale
        var path = ""
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) {
                path += "M\((x + margin) * scale),\((y + margin) * scale)h\(scale)v\(scale)h-\(scale)z"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(side)" height="\(side)" viewBox="0 0 \(side) \(side)">
            <rect width="\(side)" height="\(side)" fill="#fff"/>
            <path fill="#000" d="\(path)"/>
            </svg>

            """
    }
}

/// An 8-bit grey image, row by row.
public struct GrayImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A C string in a buffer.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The largest image read: 40 megapixels.
    public static let maximumPixels = 40_000_000
    /// The most pixels one reading decodes in all (a GIF's frames, a folder of images): two
    /// of the largest images. Past it the reading stops with an error (docs/qr.md, "Bounds").
    public static let maximumPixelsPerReading = 80_000_000
    /// The most scans a JPEG may have, and the most pixels × scans a progressive one may cost:
    /// each scan of a progressive JPEG is another pass over the whole image, and a small
    /// crafted file of thousands of scans cost minutes of CPU.
    public static let maximumJPEGScans = 64
    public static let maximumJPEGScanPixels = 800_000_000

    /// A PNG image held in memory, converted to grey.
    public init(png bytes: [UInt8]) throws(QRError) { try self.init(bytes, decoder: kcs_png_read_gray) }

    /// A JPEG image held in memory, converted to grey (libturbojpeg), once its scans are counted
    /// (`JPEGMarkers`): more than `maximumJPEGScans`, or a progressive image whose scans × pixels
    /// exceed `maximumJPEGScanPixels`, is refused before any is decoded.
    public init(jpeg bytes: [UInt8]) throws(QRError) {
        let markers = JPEGMarkers(bytes)
        if markers.scans > Self.maximumJPEGScans {
            throw .image("the JPEG has \(markers.scans) scans, more than the \(Self.maximumJPEGScans) kcs decodes")
        }
        if markers.progressive, markers.pixels * markers.scans > Self.maximumJPEGScanPixels {
            throw .image(
                "the progressive JPEG has \(markers.scans) scans of \(markers.pixels) pixels, more work than kcs does for one image"
            )
        }
        try self.init(bytes, decoder: kcs_jpeg_read_gray)
    }

    /// An image decoded to grey by one of the shim's readers (bytes, length, pixel limit → grey
    /// buffer, width, height, or the reason).
    private init(
        _ bytes: [UInt8],
        decoder: (
            UnsafePointer<UInt8>?, Int, Int, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
            UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<CChar>, Int
        ) -> Int32
    )
        throws(QRError)
    {
        var gray: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0
        var error = [CChar](repeating: 0, count: 256)
        let rc = bytes.withUnsafeBufferPointer { b in
            decoder(b.baseAddress, b.count, Self.maximumPixels, &gray, &w, &h, &error, error.count)
        }
        guard rc == 0, let gray else { throw .image(Self.text(error)) }
        defer { kcs_free(gray) }
        self.init(
            width: Int(w), height: Int(h), pixels: Array(UnsafeBufferPointer(start: gray, count: Int(w) * Int(h))))
    }

    /// Every frame of a (possibly animated) GIF held in memory, composed and converted to grey.
    public static func frames(gif bytes: [UInt8]) throws(QRError) -> [GrayImage] {
        var out: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0, n: Int32 = 0
        var error = [CChar](repeating: 0, count: 256)
        let rc = bytes.withUnsafeBufferPointer { b in
            kcs_gif_read_gray(
                b.baseAddress, b.count, maximumPixels, maximumPixelsPerReading, &out, &w, &h, &n, &error, error.count)
        }
        guard rc == 0, let out else { throw .image(text(error)) }
        defer { kcs_free(out) }
        let size = Int(w) * Int(h)
        return (0..<Int(n)).map { i in
            GrayImage(
                width: Int(w), height: Int(h), pixels: Array(UnsafeBufferPointer(start: out + i * size, count: size)))
        }
    }

    /// The pixels the image holds.
    public var pixelCount: Int { width * height }

    /// The images of a PNG, JPEG or GIF file held in memory (a GIF's every frame), by its first
    /// bytes; nil for another kind of file.
    public static func images(file bytes: [UInt8]) throws(QRError) -> [GrayImage]? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return [try GrayImage(png: bytes)] }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return [try GrayImage(jpeg: bytes)] }
        if bytes.starts(with: Array("GIF8".utf8)) { return try frames(gif: bytes) }
        return nil
    }

    /// The image as PNG bytes.
    public func png() throws(QRError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        var error = [CChar](repeating: 0, count: 256)
        let rc = pixels.withUnsafeBufferPointer { p in
            kcs_png_write_gray(p.baseAddress, Int32(width), Int32(height), &out, &length, &error, error.count)
        }
        guard rc == 0, let out else { throw .image(Self.text(error)) }
        defer { kcs_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    /// An animated GIF of black-and-white frames of one size (`delay` hundredths of a second each, looping).
    public static func animatedGIF(_ frames: [GrayImage], delay: Int) throws(QRError) -> [UInt8] {
        guard let first = frames.first, frames.allSatisfy({ $0.width == first.width && $0.height == first.height })
        else {
            throw .image("an animated GIF needs frames of one size")
        }
        let pixels = frames.flatMap(\.pixels)
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        var error = [CChar](repeating: 0, count: 256)
        let rc = pixels.withUnsafeBufferPointer { p in
            kcs_gif_write_frames(
                p.baseAddress, Int32(first.width), Int32(first.height), Int32(frames.count), Int32(delay),
                &out, &length, &error, error.count)
        }
        guard rc == 0, let out else { throw .image(text(error)) }
        defer { kcs_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    /// The QR codes in the image, each as the bytes it holds (zbar's binary mode: no text
    /// conversion, zero bytes kept); light-on-dark codes are tried too.
    public func qrCodes() throws(QRError) -> [[UInt8]] {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        let count = pixels.withUnsafeBufferPointer { p in
            kcs_zbar_scan(p.baseAddress, Int32(width), Int32(height), 1, &out, &length)
        }
        if count < 0 { throw .library(String(cString: kcs_zbar_load())) }
        defer { kcs_free(out) }
        guard let out else { return [] }
        return Self.unpack(Array(UnsafeBufferPointer(start: out, count: length)))
    }

    /// Codes packed by the shim: each a 4-byte big-endian length, then its bytes.
    static func unpack(_ buffer: [UInt8]) -> [[UInt8]] {
        var codes: [[UInt8]] = [], i = 0
        while i + 4 <= buffer.count {
            let n = buffer[i..<i + 4].reduce(0) { $0 << 8 | Int($1) }
            guard i + 4 + n <= buffer.count else { break }
            codes.append(Array(buffer[(i + 4)..<(i + 4 + n)]))
            i += 4 + n
        }
        return codes
    }
}

/// A V4L2 camera read for QR codes by zbar (no window); closed when released.
public final class QRCamera {
    private let handle: UnsafeMutableRawPointer

    /// The cameras V4L2 lists (`/sys/class/video4linux`): device path and name, in name order.
    public static func devices(root: String = "/sys/class/video4linux") -> [(device: String, name: String)] {
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter {
            $0.hasPrefix("video")
        }.sorted()
        return entries.map { entry in
            let name =
                (try? String(contentsOfFile: root + "/" + entry + "/name", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? entry
            return ("/dev/" + entry, name)
        }
    }

    public init(device: String) throws(QRError) {
        var error = [CChar](repeating: 0, count: 256)
        guard let h = kcs_zbar_camera_open(device, &error, error.count) else { throw .image(GrayImage.text(error)) }
        handle = h
    }

    deinit { kcs_zbar_camera_close(handle) }

    /// The QR codes of the next frame that has some, waiting at most `milliseconds`; empty on a
    /// timeout (so the caller can check for Ctrl-C and go on).
    public func nextCodes(waiting milliseconds: Int) throws(QRError) -> [[UInt8]] {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        let count = kcs_zbar_camera_next(handle, Int32(milliseconds), &out, &length)
        defer { kcs_free(out) }
        if count < 0 { throw .image("the camera stopped delivering frames") }
        guard let out, count > 0 else { return [] }
        return GrayImage.unpack(Array(UnsafeBufferPointer(start: out, count: length)))
    }
}

/// What a JPEG's markers say before it is decoded: how many scans (SOS markers) it has, whether
/// it is progressive (SOF2, SOF6, SOF10, SOF14), and its size. Segments are walked by their
/// lengths; entropy-coded data after each SOS is skipped up to the next marker (a 0xFF not
/// followed by 0x00, a restart marker or a fill byte). Damaged data ends the walk: the
/// decoder reports it.
public struct JPEGMarkers: Sendable, Equatable {
    public var scans = 0
    public var progressive = false
    public var pixels = 0

    public init(_ bytes: [UInt8]) {
        var i = 2
        while i + 4 <= bytes.count {
            guard bytes[i] == 0xFF else { return }
            let marker = bytes[i + 1]
            if marker == 0xFF {
                i += 1
                continue
            }
            if marker == 0xD9 { return }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                i += 2
                continue
            }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2 else { return }
            if [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF].contains(marker),
                i + 9 <= bytes.count
            {
                progressive = progressive || [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
                pixels = (Int(bytes[i + 5]) << 8 | Int(bytes[i + 6])) * (Int(bytes[i + 7]) << 8 | Int(bytes[i + 8]))
            }
            i += 2 + length
            guard marker == 0xDA else { continue }
            scans += 1
            // Entropy-coded data: up to the next marker that is not a stuffed 0xFF00 or a restart.
            while i + 1 < bytes.count {
                if bytes[i] == 0xFF, bytes[i + 1] != 0x00, !(0xD0...0xD7).contains(bytes[i + 1]), bytes[i + 1] != 0xFF {
                    break
                }
                i += 1
            }
        }
    }
}
