// Image bombs through the binary (docs/qr.md, "Bounds"): small crafted files (tools/qr-oracle/
// bombs.py, with Pillow and segno) that cost a careless reader gigabytes or minutes are refused
// with what they are, under a CPU-time and address-space limit (prlimit), and a good image beside
// them still reads. A device file is no image.
import Foundation
import KCSTestSupport
import Testing

@Suite("Reading bounds")
struct ReadingBoundsTests {
    @Test func imageBombs_areRefusedCheaply_underACPUAndMemoryLimit() throws {
        let home = try BatchHome()
        defer { home.remove() }
        _ = try QROracle.run([home.folder.path], script: "bombs.py")
        // 30 s of CPU and 1.5 GB of address space: the old reader needed minutes or gigabytes.
        func read(_ file: String) throws -> (code: Int32, out: String, err: String) {
            try home.run(
                arguments: [
                    "--cpu=30", "--as=1500000000", TestPaths.kcsBinary.path, "-e", "print (qr.read \"\(file)\").text",
                ],
                executable: URL(fileURLWithPath: "/usr/bin/prlimit"))
        }
        let frame = try read("gif-frame.gif")
        #expect(
            frame.code == 70 && frame.err.contains("GIF frame 1 is 30000x30000 pixels, larger than its 64x64 canvas"),
            "\(frame.err)")
        let frames = try read("gif-frames.gif")
        #expect(frames.code == 70 && frames.err.contains("more than the 80000000 pixels kcs reads"), "\(frames.err)")
        let scans = try read("jpeg-scans.jpg")
        #expect(
            scans.code == 70 && scans.err.contains("the JPEG has 200 scans, more than the 64 kcs decodes"),
            "\(scans.err)")
        let device = try read("/dev/zero")
        #expect(device.code != 0 && device.err.contains("/dev/zero: no such file or not readable"), "\(device.err)")
        let good = try read("good.png")
        #expect(good.code == 0 && good.out == "kcs\n", "\(good.err)")
    }
}
