import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityTesting

/// A name that is not UTF-8 cannot be an item (every name the protocol carries is a JSON
/// string), but it is never silently invisible: `status` lists it under `skipped` (with a
/// degraded sentence) and the journal says "not indexed" — found by the crawl or by an event.
@Suite(.ownThreads) struct UndecodableNameTests {
    /// Creates `Documents/Item_<0xFF>` with raw bytes: Swift's file APIs only take valid strings.
    static func createUndecodable(in documents: String, suffix: UInt8) -> Bool {
        var path = Array(documents.utf8) + Array("/Item_".utf8) + [0xFF, suffix, 0]
        let fd = path.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_CREAT | O_WRONLY, 0o644) }
        }
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    static func skipped(_ daemon: InProcessDaemon) throws -> [JSONValue] {
        let client = try RawClient(socket: daemon.socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        return try client.request(#"{"id":1,"op":"status"}"#).response["result"]?["skipped"]?.arrayValue ?? []
    }

    @Test func undecodableNamesAreReportedInStatusAndTheJournal() async throws {
        var template = Array("/tmp/ubqu-XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: base) }
        let documents = base + "/com.example.grocery/Documents"
        try FileManager.default.createDirectory(atPath: documents, withIntermediateDirectories: true)
        #expect(Self.createUndecodable(in: documents, suffix: UInt8(ascii: "a")))   // seen by the crawl

        try await withDaemon(containers: [], arguments: ["--root", base, "--socket", "{socket}"]) { daemon in
            #expect(Self.createUndecodable(in: documents, suffix: UInt8(ascii: "b")))   // seen as an event
            // A query synchronises with the watcher, so the event has been handled after it.
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"TRUEPREDICATE","live":false}"#)
            let skipped = try Self.skipped(daemon)
            #expect(skipped.count == 2, "\(skipped)")
            #expect(skipped.allSatisfy { $0["reason"]?.stringValue?.contains("not valid UTF-8") == true })
            #expect(skipped.contains { $0["path"]?.stringValue == "Documents/Item_\u{FFFD}a" })
            #expect(skipped.contains { $0["path"]?.stringValue == "Documents/Item_\u{FFFD}b" })
            // The journal: the status loop writes it within its period (5 s).
            try await daemon.waitForLog("Item_\u{FFFD}a", within: 20)
            try await daemon.waitForLog("Item_\u{FFFD}b", within: 20)
            #expect(daemon.log.contains("Item_\u{FFFD}a") && daemon.log.contains("Item_\u{FFFD}b"), "\(daemon.log)")
        }
    }
}
