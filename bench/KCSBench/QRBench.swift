import Foundation
import QRCodes
import WalletCore

/// QR codes and URs (issue 15 §6): encode + draw one xpub QR; read a 10-part UR from PNG frames
/// (frames/s, the frames written to bench/out/qr-frames for zxing-cpp's run in bench/run);
/// fountain-decode a 50-part UR from a random 60 % of its parts plus mixed parts and repeats.
enum QRBench {
    static func run() throws {
        let xpub =
            "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt"
        var check = 0
        report(
            "qr_xpub_draw",
            try rate(300) { _ in
                let code = try QRCode(data: Array(xpub.utf8), text: true, level: .medium)
                check &+= code.terminalText(margin: 2, color: false).utf8.count
            })

        // A 10-part UR as PNG frames (what an animated QR gives a reader), decoded frame by frame.
        var message = Xoshiro256(string: "bench-qr")
        let resource = try UniformResource(type: "bytes", cbor: CBOR.bytes(message.nextData(count: 1800)).encoded)
        var encoder = UREncoder(resource, maxFragmentLength: 200)
        precondition(encoder.sequenceLength == 10)
        let folder = "bench/out/qr-frames"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var frames: [[UInt8]] = []
        for i in 0..<10 {
            let png = try QRCode(data: Array(encoder.nextPart().uppercased().utf8), text: true, level: .low).image(
                scale: 4
            ).png()
            frames.append(png)
            FileManager.default.createFile(atPath: folder + String(format: "/%02d.png", i), contents: Data(png))
        }
        report(
            "qr_frames_read",
            try rate(50) { i in
                let codes = try GrayImage(png: frames[i % 10]).qrCodes()
                check &+= codes.count
            })

        // 50 fragments; a random 60 % of the first 50 parts, then mixed parts, each possibly twice.
        let big = try UniformResource(type: "bytes", cbor: CBOR.bytes(message.nextData(count: 10_000)).encoded)
        var fountain = UREncoder(big, maxFragmentLength: 201)
        let parts = (0..<120).map { _ in fountain.nextPart() }
        precondition(fountain.sequenceLength == 50)
        var pick = Xoshiro256(string: "bench-pick")
        let chosen = FountainCode.shuffled(Array(0..<50), random: &pick, count: 30) + Array(50..<120)
        let feed = chosen.flatMap { i in pick.nextInt(in: 0...3) == 0 ? [parts[i], parts[i]] : [parts[i]] }
        report(
            "ur_fountain50",
            try rate(20) { _ in
                var decoder = URDecoder()
                for p in feed where decoder.result == nil { try decoder.receive(p) }
                precondition(decoder.result == big)
            })
        precondition(check != 0)
    }
}
