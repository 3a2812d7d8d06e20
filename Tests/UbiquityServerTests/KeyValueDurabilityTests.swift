import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// `kill -9` of the real daemon at random moments during a sequence of 1,000 writes: each round
/// sends every write still to come at once and is killed after a random number of them were
/// acknowledged, while the next ones are being written; after each restart every acknowledged
/// write is there and the store loads undamaged. `make test` runs 20 kill points;
/// `UBIQUITY_KV_KILL_POINTS=200` runs more over the same 1,000 writes.
@Suite("Key-value durability: kill -9 during writes", .ownThreads)
struct KeyValueDurabilityTests {
    static let writes = 1_000
    static let killPoints = Int(ProcessInfo.processInfo.environment["UBIQUITY_KV_KILL_POINTS"] ?? "") ?? 20

    @Test("Every acknowledged write survives kill -9 at any point, and the store loads")
    func killDuringWrites() async throws {
        var template = Array("/tmp/ubqkv-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp failed") }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let root = directory + "/root", state = directory + "/state"
        try FileManager.default.createDirectory(atPath: root + "/com.example.grocery/Documents", withIntermediateDirectories: true)
        var generator = SplitMix64(seed: 0x6b76)
        /// Every write acknowledged so far, across rounds: key → value.
        var acknowledged: [String: Int] = [:]
        // Where the kill comes: after that many acknowledged writes of the sequence, distinct, ascending.
        var points = Set<Int>()
        while points.count < min(Self.killPoints, Self.writes - 1) { points.insert(Int(generator.next() % UInt64(Self.writes - 1)) + 1) }
        var next = 0
        for (round, killAt) in points.sorted().enumerated() {
            let daemon = try TestDaemon(containers: [], arguments: ["--root", root, "--socket", "{socket}"],
                                        environment: ["STATE_DIRECTORY": state])
            defer { _ = daemon.stop(); daemon.cleanUp() }
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            // What the previous rounds acknowledged is all there, and nothing is reported damaged.
            let all = try client.request(#"{"id":1,"op":"kv.all"}"#).response["result"]
            let values = all?["values"]
            for (key, value) in acknowledged {
                #expect(Self.holds(values?[key], acknowledged: value), "round \(round): \(key) should be \(value) or a later write of it, is \(values?[key].map(JSONLine.encode) ?? "missing")")
            }
            let status = try client.request(#"{"id":2,"op":"status"}"#).response["result"]
            let damaged = (status?["degraded"]?.arrayValue ?? []).compactMap(\.stringValue).filter { $0.contains("key-value") }
            #expect(damaged.isEmpty, "round \(round): \(damaged)")
            // Pipelined writes; the daemon is killed after a random number of acknowledgements.
            // Write i sets key k(i % 200) to i; pipelined, so the daemon is busy writing when killed.
            var lines = ""
            for i in next..<Self.writes { lines += #"{"id":\#(i + 10),"op":"kv.set","key":"k\#(i % 200)","value":\#(i)}"# + "\n" }
            try client.sendBytes(Array(lines.utf8))
            while next < killAt {
                let response = try client.readJSON(within: 30)
                guard let id = response["id"]?.intValue, id >= 10 else { continue }
                #expect(response["result"]?["stored"] == .bool(true), "\(JSONLine.encode(response))")
                #expect(id - 10 == next, "responses come in order")
                acknowledged["k\(next % 200)"] = next
                next += 1
            }
            daemon.signal(SIGKILL)
            #expect(daemon.waitForExit(within: 20) != nil)
        }
        #expect(next == points.max())
        // The last round's writes, after one more restart.
        let daemon = try TestDaemon(containers: [], arguments: ["--root", root, "--socket", "{socket}"],
                                    environment: ["STATE_DIRECTORY": state])
        defer { _ = daemon.stop(); daemon.cleanUp() }
        let client = try RawClient(socket: daemon.socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        let values = try client.request(#"{"id":1,"op":"kv.all"}"#).response["result"]?["values"]
        for (key, value) in acknowledged { #expect(Self.holds(values?[key], acknowledged: value), "\(key)") }
    }

    /// A key holds its last acknowledged write, or a later write of the same key that was sent but
    /// not yet acknowledged when the daemon died (written, not answered: allowed).
    static func holds(_ value: JSONValue?, acknowledged: Int) -> Bool {
        guard let found = value?.intValue else { return false }
        return found >= acknowledged && found % 200 == acknowledged % 200
    }
}
