// kcs finds its standard library from anywhere (docs/language.md §6, `use`): from the executable's
// real location, so a `kcs` reached through PATH or a symbolic link, run in another folder,
// still finds `stdlib/`; when the library cannot be found, the error names where it looked.
import Foundation
import KCSTestSupport
import Testing

/// Runs `kcs` found through `PATH` (a folder holding a symbolic link to the built binary), in
/// `directory`, with only `environment` (plus PATH and HOME).
private func kcsThroughPath(
    _ arguments: [String], in directory: URL, environment: [String: String] = [:]
) throws
    -> (code: Int32, out: String, err: String)
{
    let bin = directory.appendingPathComponent("bin")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    let link = bin.appendingPathComponent("kcs")
    if !FileManager.default.fileExists(atPath: link.path) {
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: TestPaths.kcsBinary)
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", "kcs \"$@\"", "sh"] + arguments
    p.currentDirectoryURL = directory
    p.environment = ["PATH": bin.path + ":/usr/bin:/bin", "HOME": directory.path].merging(environment) { $1 }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.runWithSignalsUnblocked()
    let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

@Suite("The standard library from anywhere")
struct StdlibLookupTests {
    @Test func kcsThroughPATH_inAnotherFolder_findsTheStdlib() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-path-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try kcsThroughPath(["-e", "use \"bip44\"\nprint \"loaded\""], in: dir)
        #expect(r.code == 0 && r.out == "loaded\n", "\(r.code) \(r.out) \(r.err)")
    }

    @Test func aMissingStdlib_isNamedWithTheFoldersSearched() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-path-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try kcsThroughPath(
            ["-e", "use \"nosuchmodule\""], in: dir, environment: ["KCS_STDLIB": dir.path + "/none"])
        #expect(r.code == 70)
        #expect(
            r.err.contains(
                "cannot load module \"nosuchmodule\": module \"nosuchmodule\" not found; looked in "
                    + dir.path + "/none/nosuchmodule.kcs, nosuchmodule.kcs"), "\(r.err)")
    }
}
