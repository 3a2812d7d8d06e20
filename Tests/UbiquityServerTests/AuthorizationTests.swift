import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// SO_PEERCRED authorisation with a real second uid: the test runs as root and talks to the
/// daemon through `setpriv --reuid=54321 socat` (no user account needed).
@Suite("Authorisation by SO_PEERCRED with two uids", .ownThreads)
struct AuthorizationTests {
    static let otherUID: UInt32 = 54321

    /// Sends `lines` as uid 54321 and returns every line the daemon answered.
    static func exchange(as uid: UInt32, groups: [UInt32] = [], socket: String, _ lines: [String]) throws -> [JSONValue] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        let groupArguments = groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.map(String.init).joined(separator: ",")]
        process.arguments = ["--reuid=\(uid)", "--regid=\(uid)"] + groupArguments
            + ["socat", "-t", "2", "-", "UNIX-CONNECT:" + socket]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(lines.map { $0 + "\n" }.joined().utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0 else { throw TestDaemonError("socat as uid \(uid) failed: \(problems)") }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map { try JSONLine.decode(Array($0.utf8)) }
    }

    @Test("A forbidden container is refused and its items never appear (needs root to switch uid)")
    func forbiddenContainerNeverLeaks() async throws {
        try await withTestDaemon(containers: ["com.example.grocery", "com.example.mine"]) { daemon in
            // The other uid must reach the socket: open the path, keep the containers' modes.
            chmod(daemon.directory, 0o755)
            let mine = daemon.root + "/com.example.mine"
            chown(mine, Self.otherUID, Self.otherUID)
            chown(mine + "/Documents", Self.otherUID, Self.otherUID)
            #expect(FileManager.default.createFile(atPath: mine + "/Documents/Item_mine", contents: nil))
            #expect(FileManager.default.createFile(atPath: daemon.root + "/com.example.grocery/Documents/Item_secret", contents: nil))
            // Restart-free: SIGHUP re-reads owners.
            try daemon.reload(within: 10)
            let root = try RawClient(socket: daemon.socket)
            _ = try root.request(#"{"id":0,"op":"hello","version":1}"#)
            let list = try root.request(#"{"id":1,"op":"containers.list"}"#).response
            let owner = list["result"]?["containers"]?.arrayValue?.first { $0["id"]?.stringValue == "com.example.mine" }?["owner"]?.intValue
            #expect(owner == Int(Self.otherUID))

            let replies = try Self.exchange(as: Self.otherUID, socket: daemon.socket, [
                #"{"id":0,"op":"hello","version":1}"#,
                #"{"id":1,"op":"containers.list"}"#,
                #"{"id":2,"op":"query.start","container":"com.example.grocery","predicate":"TRUEPREDICATE","live":false}"#,
                #"{"id":3,"op":"container.url","container":"com.example.grocery"}"#,
                #"{"id":4,"op":"container.url"}"#,
                #"{"id":5,"op":"query.start","predicate":"TRUEPREDICATE","attributes":["path"],"live":false}"#,
                #"{"id":6,"op":"query.start","containers":["com.example.mine","com.example.grocery"],"predicate":"TRUEPREDICATE","live":false}"#,
            ])
            func response(_ id: Int) -> JSONValue? { replies.first { $0["id"]?.intValue == id } }
            #expect(response(0)?["result"]?["peer"]?["uid"]?.intValue == Int(Self.otherUID))
            let listed = (response(1)?["result"]?["containers"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            #expect(listed == ["com.example.mine"])
            #expect(response(2)?["error"]?["code"]?.stringValue == "container.forbidden")
            #expect(response(3)?["error"]?["code"]?.stringValue == "container.forbidden")
            #expect(response(4)?["result"]?["container"]?.stringValue == "com.example.mine")
            #expect(response(6)?["error"]?["code"]?.stringValue == "container.forbidden")
            // The query over "everything I may read" sees only its own container.
            let finished = replies.first { $0["event"]?.stringValue == "query.gatheringFinished" }
            let paths = (finished?["results"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
            #expect(paths.contains(mine + "/Documents/Item_mine"))
            #expect(!paths.isEmpty && paths.allSatisfy { $0.hasPrefix(mine + "/") })
            // No line the other uid received mentions the forbidden item.
            #expect(!replies.contains { JSONLine.encode($0).contains("Item_secret") })
        }
    }
}
