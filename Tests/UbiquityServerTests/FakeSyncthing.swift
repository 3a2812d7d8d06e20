import Foundation
import Glibc
import Testing
@testable import UbiquityServer
import UbiquityTesting

/// A stand-in for Syncthing's REST API on a Unix socket, for what a real instance cannot be made
/// to do on cue: restart between two of the daemon's polls (another start time, event ids from 1
/// again) and drop more events than its 1,000-event buffer keeps. It answers what the daemon asks
/// (`/rest/system/status`, `/rest/config/folders` with one folder shared with one other device,
/// `/rest/system/connections`, `/rest/db/need`, `/rest/db/remoteneed`, `/rest/folder/errors`,
/// `/rest/db/file` (a file of the folder's directory as Syncthing 1.19 records a file it holds
/// in sync with the other device), `/rest/events`; `GET`/`POST /rest/db/ignores` (a read can be
/// held), `POST /rest/db/scan`, which can be made to fail or wait, and `POST /rest/db/prio` for
/// files on demand),
/// one connection per request, each on a thread of its own. A poll of
/// `/rest/events?since=N` answers at once the events past N, or waits for one (on a condition,
/// at most `quietSeconds`) and answers an empty list, as Syncthing does after its timeout.
final class FakeSyncthing: @unchecked Sendable {
    // @unchecked: `state` and `stopped` are only touched under `condition`'s lock; the rest is
    // set in `init`.

    /// What the engine says; changed with ``change(_:)``.
    struct State {
        /// Names the run (Syncthing's `startTime`).
        var startTime = "2026-11-25T10:00:00.000000001Z"
        /// The events it still holds, oldest first.
        var events: [(id: Int64, type: String)] = []
        /// The paths the other device needs (`/rest/db/remoteneed`).
        var remoteNeed: [String] = []
        /// The `data` of an event, by id (none: an empty object).
        var eventData: [Int64: [String: Any]] = [:]
        /// Each file's block count (`/rest/db/file`: `global.numBlocks`); a file not named: 1.
        var numBlocks: [String: Int] = [:]
        /// The folder's ignore lines (`/rest/db/ignores`).
        var ignoreLines: [String] = []
        /// When set, `POST /rest/db/scan` answers HTTP 500 with this text, as Syncthing does when a
        /// scan fails.
        var scanFailure: String?
        /// While set, `POST /rest/db/scan` waits (as Syncthing's does behind a pull in progress).
        var scanHeld = false
        /// How many of the next `GET /rest/db/ignores` get no answer until ``stop()`` (a Syncthing
        /// starved of CPU); each one held takes one.
        var ignoreReadsToHold = 0
        /// Every `POST`, as `path?query`, in the order they came.
        var posts: [String] = []
    }

    static let device = "AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA-AAAAAAA"
    static let other = "BBBBBBB-BBBBBBB-BBBBBBB-BBBBBBB-BBBBBBB-BBBBBBB-BBBBBBB-BBBBBBB"
    static let folder = "com.example.grocery"

    /// The socket's path, in a directory of its own.
    let path: String
    private let directory: String
    private let folderPath: String
    private let quietSeconds: Double
    private let listener: Int32
    private let condition = NSCondition()
    private var state = State()
    private var stopped = false

    /// Listens at once, sharing `folderPath` as folder ``folder``.
    init(folderPath: String, quietSeconds: Double = 0.5) throws {
        var template = Array("/tmp/ubqf-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp: \(String(cString: strerror(errno)))") }
        directory = String(cString: made)
        path = directory + "/rest.sock"
        self.folderPath = folderPath
        self.quietSeconds = quietSeconds
        listener = try UnixSocket.bound(to: path, listening: true)
        Thread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 {
                    if errno == EINTR { continue }
                    return
                }
                Thread { [self] in serve(connection) }.start()
            }
        }.start()
    }

    /// Runs `body` with a daemon following a stand-in that shares a temporary container
    /// `com.example.grocery` holding `items` in `Documents` (each file holds its name), configured
    /// with the `[sync]` lines `more` besides the stand-in's address and key; `prepare` sets what
    /// the stand-in says before the daemon starts. Everything is stopped and removed after.
    static func withFollower<T>(holding items: [String], sync more: String = "", prepare: (inout State) -> Void,
                                _ body: (_ container: String, FakeSyncthing, InProcessDaemon, SyncEngineMonitor) async throws -> T) async throws -> T {
        var template = Array("/tmp/ubqs-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp: \(String(cString: strerror(errno)))") }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let container = directory + "/com.example.grocery"
        try FileManager.default.createDirectory(atPath: container + "/Documents", withIntermediateDirectories: true)
        for name in items { try name.write(toFile: container + "/Documents/" + name, atomically: true, encoding: .utf8) }
        let engine = try FakeSyncthing(folderPath: container)
        defer { engine.stop() }
        engine.change(prepare)
        return try await SyncEngineConnectionTests.withFollower(container: container, alsoServing: [],
                                                                sync: "address = \"\(engine.path)\"\napi_key = \"k\"\n" + more) { daemon, monitor in
            try await body(container, engine, daemon, monitor)
        }
    }

    /// Once the daemon follows the stand-in up to event `lastEvent`: a live query of every
    /// `Item_*`'s name and `isUploaded`.
    static func liveItems(_ daemon: InProcessDaemon, _ monitor: SyncEngineMonitor,
                          afterEvent lastEvent: Int64) async throws -> SyncEngineConnectionTests.LiveItems {
        _ = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected && $0.lastEvent == lastEvent } } ?? nil,
                         "\(monitor.status)")
        let client = try RawClient.greeted(socket: daemon.socket)
        try client.send(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","batchingInterval":0,"attributes":["name","isUploaded"]}"#)
        return SyncEngineConnectionTests.LiveItems(client, gathered: try TwoDevicesTests.next(client, "query.gatheringFinished"))
    }

    /// Changes what the engine says, and wakes the polls waiting for an event.
    func change(_ body: (inout State) -> Void) {
        condition.lock()
        body(&state)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `condition` holds for what the engine says (it is checked at each change and
    /// each request that changes it), at most `seconds`; whether it holds.
    func wait(within seconds: Double, until condition: (State) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        self.condition.lock()
        defer { self.condition.unlock() }
        while !condition(state) {
            guard self.condition.wait(until: deadline) else { return condition(state) }
        }
        return true
    }

    /// Stops listening and answers every waiting poll; the socket's directory is removed.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        shutdown(listener, Int32(SHUT_RDWR))    // wakes the accept
        close(listener)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        /// Appends what comes next to `bytes`; false at the end of the connection.
        func readMore(into bytes: inout [UInt8]) -> Bool {
            while true {
                let n = read(connection, &chunk, chunk.count)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                bytes += chunk[..<n]
                return true
            }
        }
        while request.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            guard readMore(into: &request) else { return }
        }
        let end = request.firstRange(of: Array("\r\n\r\n".utf8))!.upperBound
        let head = String(decoding: request[..<end], as: UTF8.self)
        let line = head.prefix { $0 != "\r" }
        let words = line.split(separator: " ")
        let method = words.first.map(String.init) ?? "GET"
        let target = words.dropFirst().first.map(String.init) ?? "/"
        let length = head.split(separator: "\r\n").lazy
            .compactMap { field -> Int? in
                let pair = field.split(separator: ":", maxSplits: 1)
                guard pair.count == 2, pair[0].lowercased() == "content-length" else { return nil }
                return Int(pair[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        var body = Array(request[end...])
        while body.count < length {
            guard readMore(into: &body) else { return }
        }
        let (status, answer) = answer(method, target, body: body)
        // A string is answered as text, as Syncthing answers some errors.
        let bytes = (answer as? String).map { Array($0.utf8) } ?? Array((try? JSONSerialization.data(withJSONObject: answer)) ?? Data())
        let reason = [200: "OK", 404: "Not Found"][status] ?? "Internal Server Error"
        let type = answer is String ? "text/plain; charset=utf-8" : "application/json"
        let answerHead = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
        let whole = Array(answerHead.utf8) + bytes
        var offset = 0
        while offset < whole.count {
            let n = whole[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
        // As Go's server ends a `Connection: close` answer: the write side shut, then what the
        // client still sends is read until it closes (an immediate close would reset the
        // connection under a client still writing the end of its request).
        shutdown(connection, Int32(SHUT_WR))
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            let n = read(connection, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
        }
    }

    private func answer(_ method: String, _ target: String, body: [UInt8]) -> (Int, Any) {
        let parts = target.split(separator: "?", maxSplits: 1)
        let path = parts.first.map(String.init) ?? "/"
        var query: [String: String] = [:]
        for pair in (parts.count > 1 ? parts[1] : "").split(separator: "&") {
            let field = pair.split(separator: "=", maxSplits: 1)
            query[String(field[0])] = field.count > 1 ? String(field[1]) : ""
        }
        condition.lock()
        defer { condition.unlock() }
        if method == "POST" {
            state.posts.append(target)
            condition.broadcast()
        }
        switch (method, path) {
        case ("GET", "/rest/db/ignores"):
            if state.ignoreReadsToHold > 0 {
                state.ignoreReadsToHold -= 1
                condition.broadcast()
                while !stopped { condition.wait() }
            }
            return (200, ["ignore": state.ignoreLines])
        case ("POST", "/rest/db/ignores"):
            guard let sent = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
                  let lines = sent["ignore"] as? [String] else { return (500, ["error": "not an ignore list"]) }
            state.ignoreLines = lines
            condition.broadcast()
            return (200, ["ignore": lines])
        case ("POST", "/rest/db/scan"):
            while state.scanHeld && !stopped { condition.wait() }
            if let failure = state.scanFailure { return (500, ["error": failure]) }
            return (200, [String: Any]())
        case ("POST", "/rest/db/prio"):
            return (200, [String: Any]())
        default:
            break
        }
        switch path {
        case "/rest/system/status":
            return (200, ["myID": Self.device, "startTime": state.startTime])
        case "/rest/config/folders":
            return (200, [["id": Self.folder, "path": folderPath, "devices": [["deviceID": Self.device], ["deviceID": Self.other]]]])
        case "/rest/system/connections":
            return (200, ["connections": [Self.other: ["connected": true]]])
        case "/rest/db/need":
            return (200, ["progress": [Any](), "queued": [Any](), "rest": [Any]()])
        case "/rest/db/remoteneed":
            return (200, ["files": state.remoteNeed.map { ["name": $0] }])
        case "/rest/folder/errors":
            return (200, ["errors": [Any]()])
        case "/rest/db/file":
            // As Syncthing answers for a file in sync: this device's record is the current
            // version, which the other device holds; a file it does not hold: 404.
            var status = stat()
            guard let file = query["file"]?.removingPercentEncoding,
                  stat(folderPath + "/" + file, &status) == 0 || state.numBlocks[file] != nil else {
                return (404, "No such object in the index")
            }
            var seconds = status.st_mtim.tv_sec, parts = tm()
            gmtime_r(&seconds, &parts)
            let modified = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%09dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                                  parts.tm_hour, parts.tm_min, parts.tm_sec, status.st_mtim.tv_nsec)
            let record: [String: Any] = ["name": file, "numBlocks": state.numBlocks[file] ?? 1, "size": status.st_size, "modified": modified,
                                         "deleted": false, "ignored": false, "invalid": false, "version": ["AAAAAAA:1"]]
            return (200, ["availability": [["id": Self.other, "fromTemporary": false]], "global": record, "local": record])
        case "/rest/events":
            let since = Int64(query["since"] ?? "0") ?? 0
            var past = state.events.filter { $0.id > since }
            if let limit = query["limit"].flatMap(Int.init) {
                past = Array(past.suffix(limit))
            } else if past.isEmpty {
                // The long poll: until an event past `since` comes, or the quiet time passes.
                let deadline = Date().addingTimeInterval(quietSeconds)
                while past.isEmpty, !stopped, condition.wait(until: deadline) {
                    past = state.events.filter { $0.id > since }
                }
            }
            return (200, past.map { ["id": $0.id, "globalID": $0.id, "type": $0.type, "time": "2026-11-25T10:00:00Z",
                                      "data": state.eventData[$0.id] ?? [String: Any]()] })
        default:
            return (404, ["error": "no such endpoint in the stand-in"])
        }
    }
}
