// Inline-expectation cases (STYLE §2): every `Cases/<feature>/*.kcs` file runs with a
// BufferHost and the toy builtins. Comments in the file say what must happen:
//   `# expect: TEXT`                 the next line of output is TEXT
//   `# expect runtime error: X`      the run stops with a runtime error whose ID or message is X
//   `# expect error: ID`             the file does not parse; the first diagnostic has ID
// Files under a `modules/` directory are modules for `use`, not cases.
import Foundation
import KCSRuntime
import KCSSyntax
import Testing

private let casesRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Cases")

/// Case files, relative to `Cases/`, sorted.
private func caseFiles() -> [String] {
    guard let e = FileManager.default.enumerator(atPath: casesRoot.path) else { return [] }
    var out: [String] = []
    while let path = e.nextObject() as? String {
        if path.hasSuffix(".kcs"), !path.split(separator: "/").contains("modules") { out.append(path) }
    }
    return out.sorted()
}

@Suite("Interpreter cases")
struct InterpreterCaseTests {
    @Test func casesAreFound() {
        #expect(caseFiles().count >= 20)
    }

    @Test(arguments: caseFiles())
    func runCase(_ path: String) throws {
        let text = try String(contentsOf: casesRoot.appendingPathComponent(path), encoding: .utf8)
        var expectedLines: [String] = []
        var expectedRuntimeError: String?
        var expectedParseError: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let r = line.range(of: "# expect: ") {
                expectedLines.append(String(line[r.upperBound...]))
            } else if line.hasSuffix("# expect:") {
                expectedLines.append("")
            } else if let r = line.range(of: "# expect runtime error: ") {
                expectedRuntimeError = String(line[r.upperBound...])
            } else if let r = line.range(of: "# expect error: ") {
                expectedParseError = String(line[r.upperBound...])
            }
        }
        let host = BufferHost()
        host.root = casesRoot
        let interpreter = Interpreter(registry: toyRegistry, host: host, nativeStackBudget: 256 << 20)
        let source = Source(name: path, text: text)
        let (program, diagnostics) = interpreter.parse(source)
        if let expectedParseError {
            #expect(
                diagnostics.first?.id == expectedParseError, "\(DiagnosticRenderer.render(diagnostics, source: source))"
            )
            return
        }
        guard diagnostics.isEmpty else {
            Issue.record("\(path) does not parse:\n\(DiagnosticRenderer.render(diagnostics, source: source))")
            return
        }
        let caught: RuntimeError? = onLargeStack {
            do throws(RuntimeError) { try interpreter.run(program, source: source) } catch { return error }
            return nil
        }
        var output = host.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if output.last == "" { output.removeLast() }
        #expect(output == expectedLines, "\(path): output differs")
        if let expectedRuntimeError {
            if let caught {
                #expect(
                    caught.id == expectedRuntimeError || caught.message == expectedRuntimeError,
                    "\(path): expected \(expectedRuntimeError), got:\n\(caught.rendered)")
            } else {
                Issue.record("\(path): expected runtime error \(expectedRuntimeError), but the run succeeded")
            }
        } else if let caught {
            Issue.record("\(path): unexpected runtime error:\n\(caught.rendered)")
        }
    }
}
