import Foundation
import Testing

/// docs/architecture.md shows how to add an operation by quoting one whole operation's two files.
/// The quotes must stay the real code: every line of a quoted block (but elisions, `{ … }`) stands
/// in the file its first line names, in order.
@Suite("Adding an operation: the documented example is the code")
struct AddingAnOperationDocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    @Test("Each quoted file of the example is the file in Sources/, line by line")
    func quotesAreTheCode() throws {
        let guide = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let section = try #require(guide.components(separatedBy: "## How to add a protocol operation").dropFirst().first?
            .components(separatedBy: "\n## ").first)
        let blocks = section.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
        #expect(blocks.count == 2, "the declaration and the handler")
        for block in blocks {
            var lines = block.split(separator: "\n", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
            let header = try #require(lines.first)
            #expect(header.hasPrefix("// Sources/"), "a quoted block starts with the file it quotes: \(header)")
            lines.removeFirst()
            let file = try String(contentsOf: Self.root.appendingPathComponent(String(header.dropFirst(3))), encoding: .utf8)
            var remaining = file.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }[...]
            for line in lines {
                // An elided body (`init(…) { … }`) stands for the declaration's first line.
                let expected = line.hasSuffix("{ … }") ? String(line.dropLast("{ … }".count)) + "{" : line
                guard let found = remaining.firstIndex(of: expected) else {
                    Issue.record("\(header): '\(line)' is not in the file (after the lines quoted before it)")
                    break
                }
                remaining = remaining[(found + 1)...]
            }
        }
    }
}
