import CUbiquitySystem
import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// A container root swapped for a symlink (to a directory its owner may not read) is never
/// followed: the container becomes unavailable with the reason in `status`, live and after a
/// restart, and nothing from the link's target ever reaches a client. Real daemon process.
@Suite(.ownThreads) struct ContainerRootSymlinkTests {
    static let query = #"{"id":1,"op":"query.start","container":"com.example.grocery","predicate":"name LIKE 'Item_*'","batchingInterval":0}"#

    /// Reads lines until one satisfies `done`; every line read is checked for the secret.
    static func read(_ client: RawClient, until done: (JSONValue) -> Bool, seen: inout [String]) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            guard let line = try client.readLine(within: max(0.01, deadline.timeIntervalSinceNow)) else { break }
            seen.append(line)
            let message = try JSONLine.decode(Array(line.utf8))
            if done(message) { return message }
        }
        throw TestDaemonError("the awaited message did not come; read:\n\(seen.joined(separator: "\n"))")
    }

    /// A request's response; the events read before it are kept in `seen`.
    static func request(_ client: RawClient, _ line: String, seen: inout [String]) throws -> JSONValue {
        let (response, events) = try client.request(line)
        seen += events.map { "\($0)" }
        return response
    }

    static func degraded(_ client: RawClient, id: Int, seen: inout [String]) throws -> [String] {
        let status = try request(client, #"{"id":\#(id),"op":"status"}"#, seen: &seen)
        return status["result"]?["degraded"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    @Test func aRootSwappedForASymlinkIsUnavailableAndNeverFollowedLiveAndOnRestart() async throws {
        var template = Array("/tmp/ubqr-XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: base) }
        let root = base + "/root", container = root + "/com.example.grocery"
        // Shaped like a container so that, followed, its item would match the query.
        let privateDirectory = base + "/private"
        for directory in [root, container, container + "/Documents", privateDirectory, privateDirectory + "/Documents"] {
            #expect(mkdir(directory, 0o755) == 0)
        }
        #expect(chmod(privateDirectory, 0o700) == 0)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: container + "/Documents/Item_mine"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: privateDirectory + "/Documents/Item_secret"))
        let arguments = ["--root", root, "--socket", "{socket}"]
        var seen: [String] = []

        try await withDaemon(containers: [], arguments: arguments) { daemon in
            let client = try RawClient(socket: daemon.socket)
            _ = try Self.request(client, #"{"id":0,"op":"hello","version":1}"#, seen: &seen)
            let started = try Self.request(client, Self.query, seen: &seen)
            #expect(started["result"] != nil, "\(started)")
            let gathered = try Self.read(client, until: { $0["event"]?.stringValue == "query.gatheringFinished" }, seen: &seen)
            #expect(gathered["results"]?.arrayValue?.count == 1)

            // Swapped in one step (RENAME_EXCHANGE), so the link is there when the loss is seen.
            #expect(symlink(privateDirectory, base + "/link") == 0)
            #expect(ubq_rename_exchange(base + "/link", container) == 0, "renameat2: errno \(errno)")
            _ = try Self.read(client, until: { $0["event"]?.stringValue == "container.unavailable" }, seen: &seen)
            let results = try Self.request(client, #"{"id":2,"op":"query.results","query":1}"#, seen: &seen)
            #expect(results["result"]?["results"]?.arrayValue?.isEmpty == true, "\(results)")
            let live = try Self.degraded(client, id: 3, seen: &seen)
            #expect(live.contains { $0.contains("com.example.grocery") && $0.contains("symbolic link") }, "\(live)")
        }

        // Started again with the link in place, the container declared in the configuration:
        // unavailable from the first moment, for the same reason.
        let config = base + "/ubiquityd.toml"
        try """
        [[containers]]
        id = "com.example.grocery"
        path = "\(container)"
        owner = 0
        """.write(toFile: config, atomically: true, encoding: .utf8)
        try await withDaemon(containers: [], arguments: ["--config", config, "--socket", "{socket}"]) { daemon in
            let client = try RawClient(socket: daemon.socket)
            _ = try Self.request(client, #"{"id":0,"op":"hello","version":1}"#, seen: &seen)
            let started = try Self.request(client, Self.query, seen: &seen)
            #expect(started["result"] != nil, "\(started)")
            let gathered = try Self.read(client, until: { $0["event"]?.stringValue == "query.gatheringFinished" }, seen: &seen)
            #expect(gathered["results"]?.arrayValue?.isEmpty == true, "\(gathered)")
            let degraded = try Self.degraded(client, id: 2, seen: &seen)
            #expect(degraded.contains { $0.contains("com.example.grocery") && $0.contains("symbolic link") }, "\(degraded)")
        }

        // Started again on the root, where containers are found by listing it: a link is no
        // container at all, and the journal says why.
        try await withDaemon(containers: [], arguments: arguments) { daemon in
            let client = try RawClient(socket: daemon.socket)
            _ = try Self.request(client, #"{"id":0,"op":"hello","version":1}"#, seen: &seen)
            let started = try Self.request(client, Self.query, seen: &seen)
            #expect(started["error"]?["code"]?.stringValue == "container.unknown", "\(started)")
            #expect(daemon.log.contains("symbolic link"), "\(daemon.log)")
        }
        #expect(!seen.contains { $0.contains("Item_secret") }, "the link's target reached a client:\n\(seen.joined(separator: "\n"))")
    }
}
