import Foundation
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityServer
import UbiquityTesting

/// Replays every ```session block of docs/protocol.md against a real daemon, so the normative
/// reference cannot drift from the wire. `>` lines are sent, `<` lines must come back (`"…"`
/// matches any value; a reply may arrive before or after events of the same moment), `#!`
/// lines run in bash with `$DOCUMENTS` set; `$QUERY`, `$LOCK`, `$WATCH` and `$CLOCK` in a sent line
/// stand for the first query, lock and watch numbers and clock token the session received.
@Suite("docs/protocol.md sessions replay against the real daemon", .ownThreads)
struct ProtocolDocumentationTests {
    static let docRoot = "/home/alice/.local/share/ubiquity/containers"

    struct DocumentedSession: CustomStringConvertible {
        var line: Int
        var steps: [(kind: Character, text: String)]
        var description: String { "session at docs/protocol.md:\(line)" }
    }

    static let sessions: [DocumentedSession] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/protocol.md")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        var sessions: [DocumentedSession] = []
        var current: DocumentedSession?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line == "```session" { current = DocumentedSession(line: number + 1, steps: []); continue }
            guard var session = current else { continue }
            if line == "```" { sessions.append(session); current = nil; continue }
            if line.hasPrefix("> ") { session.steps.append((">", String(line.dropFirst(2)))) }
            else if line.hasPrefix("< ") { session.steps.append(("<", String(line.dropFirst(2)))) }
            else if line.hasPrefix("#! ") { session.steps.append(("!", String(line.dropFirst(3)))) }
            current = session
        }
        return sessions
    }()

    @Test("The doc has sessions for every operation")
    func everyOperationHasASession() {
        let sent = Self.sessions.flatMap { $0.steps.filter { $0.kind == ">" }.map(\.text) }.joined(separator: "\n")
        for op in Operations.names { #expect(sent.contains(#""op":"\#(op)""#), "no session sends \(op)") }
    }

    @Test("Every error code the server can send has a row in the error table, and every row is such a code")
    func errorCodesAreDocumented() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/protocol.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        for code in ClientErrorCodes.all { #expect(text.contains("| `\(code)` |"), "\(code) not in the error table") }
        let errors = text.components(separatedBy: "## Errors")[1].components(separatedBy: "\n## ")[0]
        let rows = errors.split(separator: "\n").filter { $0.hasPrefix("| `") }
            .map { String($0.dropFirst(3).prefix { $0 != "`" }) }
        #expect(!rows.isEmpty)
        #expect(Set(rows) == Set(ClientErrorCodes.all), "error table rows and ClientErrorCodes.all differ")
        #expect(rows.count == ClientErrorCodes.all.count, "a code is declared or documented twice")
    }

    @Test("Each session replays", arguments: sessions)
    func replay(_ session: DocumentedSession) async throws {
        // The files are there before the daemon starts: its first crawl has them, so a session's
        // first answer (status counts items without waiting for the watcher) never races them.
        try await withDaemon(prepare: { root in
            for (name, content) in [("Item_1", "Milk"), ("Item_2", "Eggs"), ("notes.txt", "hello")] {
                try Data(content.utf8).write(to: URL(fileURLWithPath: root + "/com.example.grocery/Documents/" + name))
            }
        }) { daemon in
            let documents = daemon.root + "/com.example.grocery/Documents"
            let client = try RawClient(socket: daemon.socket)
            var pool: [JSONValue] = []
            var firstQuery: Int?
            var handles: [String: String] = [:]
            for step in session.steps {
                switch step.kind {
                case ">":
                    var line = step.text.replacingOccurrences(of: "$QUERY", with: firstQuery.map(String.init) ?? "0")
                        .replacingOccurrences(of: Self.docRoot, with: daemon.root)
                    for (name, value) in handles { line = line.replacingOccurrences(of: "$" + name, with: value) }
                    try client.send(line)
                case "!":
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/bin/bash")
                    process.arguments = ["-c", step.text]
                    process.environment = ["DOCUMENTS": documents, "PATH": "/usr/bin:/bin"]
                    try process.run()
                    process.waitUntilExit()
                    #expect(process.terminationStatus == 0, "\(step.text)")
                default:
                    let expected = try JSONLine.decode(Array(step.text.replacingOccurrences(of: Self.docRoot, with: daemon.root).utf8))
                    let deadline = Date().addingTimeInterval(10)
                    var found: Int? = pool.firstIndex { Self.matches($0, expected) }
                    while found == nil && Date() < deadline {
                        guard let next = try? client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow)) else { break }
                        pool.append(next)
                        found = pool.firstIndex { Self.matches($0, expected) }
                    }
                    guard let found else {
                        Issue.record("\(session): expected \(step.text)\nreceived: \(pool.map(JSONLine.encode).joined(separator: "\n"))")
                        return
                    }
                    let actual = pool.remove(at: found)
                    if firstQuery == nil, let query = actual["result"]?["query"]?.intValue { firstQuery = query }
                    for name in ["lock", "watch", "store"] {
                        if let value = actual["result"]?[name]?.intValue { handles[name.uppercased()] = String(value) }
                    }
                    if handles["CLOCK"] == nil, let clock = actual["clock"]?.stringValue { handles["CLOCK"] = clock }
                    // This device's id in the stores, from the first answer naming it (store.open's).
                    if handles["DEVICE"] == nil, let device = actual["result"]?["device"]?.stringValue { handles["DEVICE"] = device }
                }
            }
            #expect(pool.isEmpty, "\(session): unexpected lines \(pool.map(JSONLine.encode))")
        }
    }

    /// Structural equality where an expected `"…"` matches any value.
    static func matches(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
        if case .string("…") = expected { return true }
        switch (actual, expected) {
        case (.object(let a), .object(let e)):
            return a.keys.sorted() == e.keys.sorted() && e.allSatisfy { key, value in matches(a[key]!, value) }
        case (.array(let a), .array(let e)):
            return a.count == e.count && zip(a, e).allSatisfy { matches($0, $1) }
        case (.double(let a), .integer(let e)): return a == Double(e)
        case (.integer(let a), .double(let e)): return Double(a) == e
        default: return actual == expected
        }
    }
}
