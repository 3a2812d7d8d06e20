import Foundation
import Testing
import UbiquityJSON
import UbiquityKit
import UbiquityProtocol
import UbiquityTesting

/// Dropbox's `X (Case Conflict).ext` is another file (its name differed from `X.ext` only by case
/// on a case-insensitive system), not a version of `X.ext`: the real daemon lists it as no version,
/// resolving with keep=current leaves it (and a directory of that form) alone, and queries
/// report it as an item.
@Suite(.ownThreads) struct CaseConflictDaemonTests {
    static let caseConflict = "Notes (Case Conflict).txt"
    static let caseConflictDirectory = "Notes (Case Conflict 1).txt"
    static let conflictedCopy = "Notes (conflicted copy 2026-11-22).txt"

    static func request(_ client: RawClient, _ fields: [String: JSONValue]) throws -> JSONValue {
        var object = fields
        object["id"] = .integer(9)
        return try client.request(JSONLine.encode(.object(object))).response
    }

    @Test func versionsOfAnItemNeverListNorRemoveItsCaseConflictFile() async throws {
        try await withDaemon { daemon in
            let documents = daemon.documents()
            let item = try daemon.place("Notes.txt", contents: "Milk")
            try daemon.place(Self.caseConflict, contents: "MILK, another file")
            try FileManager.default.createDirectory(atPath: documents + "/" + Self.caseConflictDirectory, withIntermediateDirectories: false)
            try daemon.place(Self.caseConflictDirectory + "/inside", contents: "kept")
            // A real conflict version beside them: the listing finds versions, just not these.
            try daemon.place(Self.conflictedCopy, contents: "Oat milk")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)

            let listed = try Self.request(client, ["op": .string("versions.list"), "path": .string(item)])
            let others = (listed["result"]?["others"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            #expect(others == [Self.conflictedCopy], "\(listed)")

            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            try await FileVersion.removeOtherVersionsOfItem(at: item, connection: connection)
            await connection.close()
            #expect(!FileManager.default.fileExists(atPath: documents + "/" + Self.conflictedCopy))
            #expect(try String(contentsOfFile: documents + "/" + Self.caseConflict, encoding: .utf8) == "MILK, another file")
            #expect(try String(contentsOfFile: documents + "/" + Self.caseConflictDirectory + "/inside", encoding: .utf8) == "kept")

            // The file is an item: its own versions can be listed, and a query reports it.
            let own = try Self.request(client, ["op": .string("versions.list"), "path": .string(documents + "/" + Self.caseConflict)])
            #expect(own["result"]?["current"]?["id"]?.stringValue == "current", "\(own)")
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Notes*'","attributes":["name"],"live":false}"#)
            let deadline = Date().addingTimeInterval(15)
            var gathered: JSONValue?
            while gathered == nil {
                let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
                if message["event"]?.stringValue == "query.gatheringFinished" { gathered = message }
            }
            let names = (gathered?["results"]?.arrayValue ?? []).compactMap { $0["attributes"]?["kMDItemFSName"]?.stringValue }
            #expect(Set(names) == ["Notes.txt", Self.caseConflict, Self.caseConflictDirectory], "\(names)")
        }
    }
}
