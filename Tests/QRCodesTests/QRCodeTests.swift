// QR codes made by kcs (libqrencode) are read by zbarimg and by a decoder that is not zbar
// (zxing-cpp), from PNG files and from the terminal drawing turned back into pixels; codes made by an independent
// encoder (segno) are read by kcs (zbar) byte for byte, binary ones included (docs/qr.md).
import Foundation
import KCSTestSupport
import QRCodes
import Testing

@Suite("QR codes against independent code")
struct QRCodeTests {
    /// A UR as QR codes carry it (upper case: every character in the alphanumeric set).
    static let ur = "UR:CRYPTO-SEED/OEADGDSTASLPLABGHYDRPFMKBGGUFGLUDPRFGMAOSECFFLTNSOAAWKBD"
    /// Binary data as a CompactSeedQR holds it: zero bytes, and bytes a text conversion would mangle.
    static let binary: [UInt8] = [0x00, 0xC7, 0x09, 0x80, 0xFF, 0x00, 0x41, 0x10, 0x00]

    func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }

    @Test func upperCaseUR_isAlphanumeric_andSmallerThanLowerCase() throws {
        let long = String(repeating: "LPADASCFADAXCYWENBPLJKHDCAHKADAEMEJTSWHHYLKEPMYKHHTSYTSNOYOYAXAEDS", count: 5)
        let upper = try QRCode(data: Array(("UR:BYTES/" + long).utf8), text: true, boost: false)
        let lower = try QRCode(data: Array(("ur:bytes/" + long.lowercased()).utf8), text: true, boost: false)
        #expect(upper.version < lower.version, "\(upper.version) vs \(lower.version)")
        #expect(upper.size == 17 + 4 * upper.version)
    }

    @Test func boost_raisesErrorCorrection_withinTheSameVersion() throws {
        let plain = try QRCode(data: Array("HELLO".utf8), text: true, level: .low, boost: false)
        let boosted = try QRCode(data: Array("HELLO".utf8), text: true, level: .low, boost: true)
        #expect(plain.version == 1 && boosted.version == 1)
        #expect(plain.errorCorrection == .low && boosted.errorCorrection == .high)
        #expect(throws: QRError.self) { try QRCode(data: [UInt8](repeating: 7, count: 3000), text: false) }
    }

    @Test func kcsPNG_isReadByZXing_andByKcs() throws {
        for (payload, text) in [
            (Array(Self.ur.utf8), true), (Self.binary, false),
            (Array("0x9858EfFD232B4033E47d90003D41EC34EcaEda94".utf8), true),
        ] {
            let code = try QRCode(data: payload, text: text, level: .medium)
            let png = try code.image(scale: 6, margin: 4).png()
            let file = QROracle.temporaryFile(".png")
            defer { try? FileManager.default.removeItem(atPath: file) }
            FileManager.default.createFile(atPath: file, contents: Data(png))
            #expect(try QROracle.run(["read", file]) == hex(payload) + "\n")
            let version = try QROracle.run(["version", file]).split(separator: " ")
            #expect(
                Int(version[0]) == code.version && String(version[1]).hasPrefix(code.errorCorrection.description),
                "\(version)")
            #expect(try GrayImage(png: png).qrCodes() == [payload])
            // zbarimg (zbar-tools, which reads files through ImageMagick) gives the same bytes.
            #expect(try zbarimg(file) == payload)
        }
    }

    /// The bytes `zbarimg --raw -Sbinary` reads from a file (it ends them with a line break).
    func zbarimg(_ file: String) throws -> [UInt8] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        p.arguments = ["--raw", "-q", "-Sbinary", "--nodbus", file]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice  // its D-Bus complaints on a machine without one
        try p.runWithSignalsUnblocked()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return Array(data.dropLast(data.last == 0x0A ? 1 : 0))
    }

    @Test func segnoPNG_isReadByKcs_byteForByte() throws {
        for (payload, mode) in [
            (Array(Self.ur.utf8), "TEXT"), (Self.binary, "BYTES"), (Array("abandon ability able".utf8), "TEXT"),
        ] {
            let file = QROracle.temporaryFile(".png")
            defer { try? FileManager.default.removeItem(atPath: file) }
            _ = try QROracle.run(["make", hex(payload), mode, file, "M"])
            let image = try GrayImage(png: Array(try Data(contentsOf: URL(fileURLWithPath: file))))
            #expect(try image.qrCodes() == [payload], "\(mode)")
        }
    }

    @Test func segnoPNG_reencodedAsJPEGByPillow_isReadByKcs() throws {
        let png = QROracle.temporaryFile(".png"), jpg = QROracle.temporaryFile(".jpg")
        defer { for f in [png, jpg] { try? FileManager.default.removeItem(atPath: f) } }
        _ = try QROracle.run(["make", hex(Array(Self.ur.utf8)), "TEXT", png, "M"])
        _ = try QROracle.run(["jpeg", png, jpg])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: jpg)))
        #expect(try GrayImage(jpeg: bytes).qrCodes() == [Array(Self.ur.utf8)])
        #expect(try GrayImage.images(file: bytes)?.first?.qrCodes() == [Array(Self.ur.utf8)])
        #expect(throws: QRError.self) { try GrayImage(jpeg: Array(bytes.prefix(200))) }
        #expect(throws: QRError.self) { try GrayImage.images(file: Array("GIF89a".utf8)) }
        #expect(try GrayImage.images(file: Array("BM".utf8)) == nil)
    }

    /// kcs's animated GIF (giflib) of three codes of different sizes: pillow opens every frame and
    /// zxing-cpp reads them in order; the header says 200 ms a frame, looping; kcs reads it back.
    @Test func animatedGIF_isReadFrameByFrameByPillowAndZXing() throws {
        let payloads = [
            "UR:BYTES/1-3/AAAA", "UR:BYTES/2-3/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB",
            "UR:BYTES/3-3/CC",
        ]
        let codes = try payloads.map { try QRCode(data: Array($0.utf8), text: true, level: .low) }
        let side = codes.map(\.size).max()! + 8
        let gif = try GrayImage.animatedGIF(codes.map { $0.image(scale: 4, margin: 4, side: side) }, delay: 20)
        let file = QROracle.temporaryFile(".gif")
        defer { try? FileManager.default.removeItem(atPath: file) }
        FileManager.default.createFile(atPath: file, contents: Data(gif))
        let read = try QROracle.run(["read-gif", file])
        #expect(read == payloads.map { hex(Array($0.utf8)) + "\n" }.joined() + "delay 200 loop 0\n", "\(read)")
        #expect(try GrayImage.frames(gif: gif).map { try $0.qrCodes() } == payloads.map { [Array($0.utf8)] })
    }

    @Test func terminalDrawing_isReadByZXing_inBothPolarities() throws {
        let code = try QRCode(data: Array(Self.ur.utf8), text: true)
        for (lightDrawn, name) in [(true, "LIGHT"), (false, "DARK")] {
            let text = code.terminalText(margin: 2, color: false, lightDrawn: lightDrawn)
            let lines = text.split(separator: "\n")
            #expect(lines.count == code.terminalSize(margin: 2).rows && lines.allSatisfy { $0.count == code.size + 4 })
            let file = QROracle.temporaryFile(".txt")
            defer { try? FileManager.default.removeItem(atPath: file) }
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try QROracle.run(["read-blocks", file, name]) == hex(Array(Self.ur.utf8)) + "\n", "\(name)")
            // Read with the wrong polarity, it is no code: the default matters.
            #expect(try QROracle.run(["read-blocks", file, lightDrawn ? "DARK" : "LIGHT"]) == "")
        }
        // With colour every cell is painted black on bright white, whatever the theme: the glyphs
        // are the dark-drawn ones.
        let colored = code.terminalText(margin: 2, color: true)
        #expect(
            colored.split(separator: "\n").allSatisfy { $0.hasPrefix("\u{1B}[30;107m") && $0.hasSuffix("\u{1B}[0m") })
        #expect(
            colored.replacingOccurrences(of: "\u{1B}[30;107m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
                == code.terminalText(margin: 2, color: false, lightDrawn: false))
    }

    /// A screenshot of a light-on-dark terminal is an inverted code: zbar's test-inverted mode reads it.
    @Test func invertedCode_isRead() throws {
        let image = try QRCode(data: Array(Self.ur.utf8), text: true).image(scale: 4, margin: 4)
        let inverted = GrayImage(width: image.width, height: image.height, pixels: image.pixels.map { 255 - $0 })
        #expect(try inverted.qrCodes() == [Array(Self.ur.utf8)])
        // The same through a file, as qr.read reads it.
        #expect(try GrayImage(png: inverted.png()).qrCodes() == [Array(Self.ur.utf8)])
    }

    @Test func svg_drawsEveryDarkModule() throws {
        let code = try QRCode(data: Array("KCS".utf8), text: true)
        let svg = code.svg(scale: 4, margin: 4)
        #expect(svg.hasPrefix("<?xml") && svg.contains("viewBox=\"0 0 \((code.size + 8) * 4) \((code.size + 8) * 4)\""))
        #expect(svg.components(separatedBy: "h4v4h-4z").count - 1 == code.modules.filter { $0 }.count)
    }

    @Test func cameras_areListedFromV4L2_byName() throws {
        let root = QROracle.temporaryFile("-v4l")
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(QRCamera.devices(root: root).isEmpty)
        for (entry, name) in [("video2", "USB camera\n"), ("video0", "Integrated Camera\n")] {
            try FileManager.default.createDirectory(atPath: root + "/" + entry, withIntermediateDirectories: true)
            try name.write(toFile: root + "/" + entry + "/name", atomically: true, encoding: .utf8)
        }
        let found = QRCamera.devices(root: root)
        #expect(
            found.map(\.device) == ["/dev/video0", "/dev/video2"]
                && found.map(\.name) == ["Integrated Camera", "USB camera"])
    }

    @Test func badImages_areClearErrors() throws {
        #expect(throws: QRError.self) { try GrayImage(png: Array("not a png".utf8)) }
        let blank = GrayImage(width: 64, height: 64, pixels: [UInt8](repeating: 255, count: 64 * 64))
        #expect(try blank.qrCodes() == [])
        let png = try blank.png()
        #expect(try GrayImage(png: png) == blank)
        // A damaged code: half of it painted over.
        let code = try QRCode(data: Array(Self.ur.utf8), text: true, level: .low, boost: false).image(
            scale: 4, margin: 4)
        var pixels = code.pixels
        for i in 0..<(pixels.count / 2) { pixels[i] = 255 }
        #expect(try GrayImage(width: code.width, height: code.height, pixels: pixels).qrCodes() == [])
    }
}
