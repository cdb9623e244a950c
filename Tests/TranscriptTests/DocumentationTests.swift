// Documentation generated from real runs stays true: every fenced block that a page marks
// `<!-- from PATH -->` must appear, line for line and in one piece, in the golden transcript PATH,
// which TranscriptTests keeps equal to what kcs prints (docs/card-explained.md).
import Foundation
import KCSTestSupport
import Testing

@Suite("Documentation blocks from golden transcripts")
struct DocumentationTests {
    @Test(arguments: ["docs/card-explained.md"])
    func everyMarkedBlock_isInItsGolden(page: String) throws {
        let text = try String(contentsOf: TestPaths.root.appendingPathComponent(page), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        var checked = 0
        for (i, line) in lines.enumerated() where line.hasPrefix("<!-- from ") && line.hasSuffix(" -->") {
            let path = String(line.dropFirst("<!-- from ".count).dropLast(" -->".count))
            let golden = try String(contentsOf: TestPaths.root.appendingPathComponent(path), encoding: .utf8)
            #expect(
                lines.indices.contains(i + 1) && lines[i + 1] == "```text", "\(page):\(i + 2): a fenced block follows")
            guard let end = lines[(i + 2)...].firstIndex(of: "```") else {
                Issue.record("\(page):\(i + 1): the block is not closed")
                continue
            }
            let block = lines[(i + 2)..<end].joined(separator: "\n")
            #expect(!block.isEmpty && golden.contains(block + "\n"), "\(page):\(i + 3): not in \(path)")
            checked += 1
        }
        #expect(checked >= 8, "\(page) marks \(checked) blocks")
    }
}
