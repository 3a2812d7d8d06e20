import Foundation
import Glibc
import Testing
import UbiquityPredicate
import UbiquityProtocol
import UbiquityTesting

/// A container's owner controls everything in it, `.ubiquity-kv/` included, and the device id is
/// public (it names this device's file). These attacks come from a real second uid (54321, via
/// `setpriv … socat`, as ``AuthorizationTests``) against a daemon running as root (docs/kv-store.md).
@Suite("Key-value store against hostile containers and state directories", .serialized, .ownThreads)
struct KeyValueHostileTests {
    static let attacker = AuthorizationTests.otherUID
    static let hello = #"{"id":0,"op":"hello","version":1}"#

    func connect(_ socket: String) throws -> RawClient {
        let client = try RawClient(socket: socket)
        _ = try client.request(Self.hello)
        return client
    }

    func result(_ client: RawClient, _ line: String) throws -> JSONValue {
        let response = try client.request(line).response
        guard let result = response["result"] else { throw TestDaemonError("no result for \(line): \(JSONLine.encode(response))") }
        return result
    }

    func degraded(_ client: RawClient) throws -> [String] {
        try result(client, #"{"id":90,"op":"status"}"#)["degraded"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The next `kv.changed` naming `key` on `client`, within a deadline.
    func change(_ client: RawClient, naming key: String, within seconds: Double = 10) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
            if message["event"]?.stringValue == "kv.changed", message["keys"]?.arrayValue?.contains(.string(key)) == true {
                return message
            }
        }
        throw TestDaemonError("no kv.changed for \(key) within \(seconds) s")
    }

    /// Gives `container` (under the daemon's root) to the attacker and waits until the daemon,
    /// after SIGHUP, reports the new owner.
    func handOver(_ container: String, of daemon: TestDaemon) throws {
        chmod(daemon.directory, 0o755)
        let path = daemon.root + "/" + container
        for inner in ["", "/Documents"] { chown(path + inner, Self.attacker, Self.attacker) }
        daemon.signal(SIGHUP)
        let root = try connect(daemon.socket)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let list = try result(root, #"{"id":1,"op":"containers.list"}"#)
            let owner = list["containers"]?.arrayValue?.first { $0["id"]?.stringValue == container }?["owner"]?.intValue
            if owner == Int(Self.attacker) { return }
            usleep(20_000)  // polling a condition (the reload's result), not standing in for one
        }
        throw TestDaemonError("the daemon did not see \(container) change owner")
    }

    /// The attacker's `kv.set` of `key` in `container`: its answer, or nil when none came while
    /// socat waited (2 s after sending).
    func attackerSet(_ key: String, _ value: String, in container: String, socket: String) throws -> JSONValue? {
        let replies = try AuthorizationTests.exchange(as: Self.attacker, socket: socket, [
            Self.hello, #"{"id":1,"op":"kv.set","container":"\#(container)","key":"\#(key)","value":\#(value)}"#,
        ])
        return replies.first { $0["id"]?.intValue == 1 }
    }

    static func replica(device: String, _ entries: String) -> String {
        #"{"format":"ubiquity.kv","version":1,"device":"\#(device)","entries":{\#(entries)}}"# + "\n"
    }

    @Test("A state directory that others may write, or that another user owns, is refused with what to do; kv.* then fails saying so")
    func unsafeStateDirectory() async throws {
        for (mode, owner) in [(mode_t(0o777), UInt32(0)), (mode_t(0o700), Self.attacker)] {
            var template = Array("/tmp/ubqkv-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp failed") }
            let directory = String(cString: made)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let state = directory + "/state"
            try FS.mkdir(state)
            #expect(chmod(state, mode) == 0 && chown(state, owner, owner) == 0)
            try await withTestDaemon(environment: ["STATE_DIRECTORY": state]) { daemon in
                let client = try connect(daemon.socket)
                let error = try client.request(#"{"id":1,"op":"kv.set","key":"k","value":1}"#).response["error"]
                #expect(error?["code"] == .string("kv.storageFailed"))
                let message = error?["message"]?.stringValue ?? ""
                #expect(message.contains(state) && message.contains("uid \(owner)") && message.contains(String(mode, radix: 8)), "\(message)")
                #expect(message.contains("chmod 700"), "\(message)")
                let lines = try degraded(client)
                #expect(lines.contains { $0.contains("key-value") && $0.contains(state) }, "\(lines)")
                #expect(!FileManager.default.fileExists(atPath: state + "/device-id"))
            }
        }
    }

    @Test("A state directory the daemon makes is 0700")
    func madeStateDirectory() async throws {
        try await withTestDaemon { daemon in
            var info = stat()
            #expect(stat(daemon.directory + "/state", &info) == 0 && info.st_mode & 0o777 == 0o700)
        }
    }
}
