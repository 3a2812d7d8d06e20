import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
@testable import UbiquityServer
import UbiquityTesting

/// The per-connection outbox through the real daemon on a real socket: a subscriber that stops
/// reading loses nothing and costs bounded memory (docs/architecture.md, the data flow, step 6).
@Suite("One outbox per connection, against the real daemon", .serialized, .ownThreads)
struct OutboxDaemonTests {
    /// A key that fills the subscriber's socket and the daemon's write buffer, 64 bytes (the
    /// longest key) so that every event a per-event buffer kept would cost the most.
    static let filler = String(repeating: "f", count: 64)

    /// A daemon serving a root on tmpfs (`/dev/shm`) with containers `com.example.a` and
    /// `com.example.b`: each `kv.set` is a durable replace of this device's file, and on a disk
    /// 100,000 of them would wait minutes for `fsync` alone. It remembers one change for `since`
    /// queries and saves no index: every set changes the store's file, and the 50,000 changes
    /// it would remember by default (28 MB) would hide what the outbox costs.
    func withShmDaemon(_ body: (TestDaemon, _ root: String) async throws -> Void) async throws {
        var template = Array("/dev/shm/ubqoutbox-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp failed") }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let root = directory + "/root"
        for container in ["com.example.a", "com.example.b"] {
            try FileManager.default.createDirectory(atPath: root + "/" + container + "/Documents", withIntermediateDirectories: true)
        }
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
        let config = directory + "/state/ubiquityd.toml"
        try "history_max_changes = 1\nsave_index = false\n[[roots]]\npath = \"\(root)\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try TestDaemon(containers: [], arguments: ["--config", config, "--socket", "{socket}"],
                                    environment: ["STATE_DIRECTORY": directory + "/state"])
        defer { _ = daemon.stop() }
        try await body(daemon, root)
    }

    /// Sets every key of `keys` (in order) in `container` from `client`, a thousand requests in
    /// flight at a time.
    func set(_ keys: [String], in container: String, from client: RawClient) throws {
        for chunk in stride(from: 0, to: keys.count, by: 1_000).map({ keys[$0..<min($0 + 1_000, keys.count)] }) {
            var bytes: [UInt8] = []
            for (i, key) in chunk.enumerated() {
                bytes += Array(#"{"id":\#(i),"op":"kv.set","container":"\#(container)","key":"\#(key)","value":\#(i)}"#.utf8) + [0x0A]
            }
            try client.sendBytes(bytes)
            for _ in chunk {
                let response = try client.readJSON(within: 30)
                guard response["result"]?["stored"] == .bool(true) else { throw TestDaemonError("kv.set failed: \(JSONLine.encode(response))") }
            }
        }
    }

    /// Sixteen keys at most per store (`[key_value] max_keys`): 40 changing keys pass it.
    static let keyQuota = 16

    /// How many bytes of a connection's lines the kernel takes before the daemon's writes wait:
    /// a socket's send buffer as the daemon asks for it (``SocketServer/sendBufferBytes``, which
    /// the kernel doubles and caps by `net.core.wmem_max`), measured on a socket pair of our own.
    static func kernelTakes() throws -> Int {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { throw TestDaemonError("socketpair failed") }
        defer { close(pair[0]); close(pair[1]) }
        var asked = Int32(SocketServer.sendBufferBytes)
        guard setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &asked, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw TestDaemonError("setsockopt SO_SNDBUF failed")
        }
        let chunk = [UInt8](repeating: 0x78, count: 1 << 20)
        var taken = 0
        while case let sent = chunk.withUnsafeBytes({ send(pair[0], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }), sent > 0 {
            taken += sent
        }
        return taken
    }

    @Test("A subscriber that does not read while more distinct keys than the store may hold are set and removed gets one kv.changed saying all, not the keys")
    func distinctKeysPastTheQuotaCollapseIntoAll() async throws {
        // What fills the subscriber's connection: two kv.all answers of container com.example.big,
        // `answer` bytes each. The kernel and the daemon's 1 MiB of pending writes hold one of
        // them (the connection stays writable, so the second is handed over too), not both (then
        // it is not writable: nothing more is written to it until the subscriber reads).
        let kernel = try Self.kernelTakes(), pending = SocketServer.pendingWrites.high
        let answer = kernel * 3 / 4 + pending / 2
        #expect(answer <= kernel + pending && 2 * answer > kernel + pending)
        let big = String(repeating: "x", count: answer / 14)
        try await withDaemon(containers: ["com.example.grocery", "com.example.big"],
                             arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"], prepare: { root in
            try "save_index = false\n[key_value]\nmax_keys = \(Self.keyQuota)\nmax_bytes = 8388608\n[[roots]]\npath = \"\(root)\"\n"
                .write(toFile: root + "/../ubiquityd.toml", atomically: true, encoding: .utf8)
            // The big store is another device's file, there before the daemon starts.
            let folder = root + "/com.example.big/.ubiquity-kv"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let entries = (0..<14).map { #""v\#($0)":{"modified":1,"value":"\#(big)"}"# }.joined(separator: ",")
            try #"{"format":"ubiquity.kv","version":1,"device":"phone","entries":{\#(entries)}}"#
                .write(toFile: folder + "/phone.json", atomically: true, encoding: .utf8)
        }) { daemon in
            let subscriber = try RawClient.greeted(socket: daemon.socket)
            let store = try #require(try subscriber.result(#"{"id":1,"op":"kv.subscribe","container":"com.example.grocery"}"#)["store"]?.intValue)
            let writer = try RawClient.greeted(socket: daemon.socket)
            _ = try writer.result(#"{"id":1,"op":"kv.subscribe","container":"com.example.grocery"}"#)

            // The subscriber stops reading, and asks for the two answers and a kv.set after them.
            // The set is carried out once the second answer is handed over (its own answer then
            // waits behind them): once the writer hears of it, nothing more reaches the subscriber.
            try subscriber.send(#"{"id":2,"op":"kv.all","container":"com.example.big"}"#)
            try subscriber.send(#"{"id":3,"op":"kv.all","container":"com.example.big"}"#)
            try subscriber.send(#"{"id":4,"op":"kv.set","container":"com.example.grocery","key":"jammed","value":true}"#)
            var heard = false
            while !heard { heard = try writer.readJSON(within: 30)["keys"] == .array([.string("jammed")]) }
            // 40 distinct keys come and go: more than the 16 the store may hold.
            for key in (0..<40).map({ "k\($0)" }) {
                _ = try writer.result(#"{"id":5,"op":"kv.set","container":"com.example.grocery","key":"\#(key)","value":1}"#)
                _ = try writer.result(#"{"id":6,"op":"kv.remove","container":"com.example.grocery","key":"\#(key)"}"#)
            }

            // Now it reads: the three answers (the long ones not parsed), then what its
            // subscription was owed.
            var answered: [String] = []
            var changes: [JSONValue] = []
            while answered.count < 3 || changes.last?["all"] != .bool(true) {
                guard let line = try subscriber.readLine(within: 30) else { throw TestDaemonError("the connection closed") }
                if line.hasPrefix(#"{"id":"#) {
                    answered.append(String(line.prefix(7)))
                    continue
                }
                let message = try JSONLine.decode(Array(line.utf8))
                #expect(message["event"] == .string("kv.changed") && message["store"]?.intValue == store, "\(line)")
                changes.append(message)
            }
            #expect(answered == [#"{"id":2"#, #"{"id":3"#, #"{"id":4"#])
            // What was taken before the subscription passed the quota names a key or two (the
            // first change, taken as the writer found the connection full); one event stands for
            // the rest, with the latest reason and no keys.
            #expect(changes.count <= 2, "\(changes.map(JSONLine.encode))")
            for change in changes.dropLast() { #expect((change["keys"]?.arrayValue?.count ?? 0) <= Self.keyQuota) }
            #expect(changes.last == .object(["event": .string("kv.changed"), "store": .integer(Int64(store)), "container": .string("com.example.grocery"),
                                             "reason": .string("serverChange"), "all": .bool(true)]))
            // Read again, the store is what it is: none of the churned keys.
            #expect(try subscriber.result(#"{"id":7,"op":"kv.all","container":"com.example.grocery"}"#)["values"] == .object(["jammed": .bool(true)]))
        }
    }

    @Test("A subscriber that stops reading while 100,000 kv.set and 1,001 lock changes happen then gets every changed key and the latest lock state; the daemon's memory stays bounded")
    func aSilentSubscriberGetsTheUnionOfEveryChangedKeyInBoundedMemory() async throws {
        try await withShmDaemon { daemon, root in
            let item = root + "/com.example.a/Documents/Item_1"
            touch(item, nil)
            let subscriber = try RawClient.greeted(socket: daemon.socket)
            let storeA = try #require(try subscriber.result(#"{"id":1,"op":"kv.subscribe","container":"com.example.a"}"#)["store"]?.intValue)
            let storeB = try #require(try subscriber.result(#"{"id":2,"op":"kv.subscribe","container":"com.example.b"}"#)["store"]?.intValue)
            let watch = try #require(try subscriber.result(#"{"id":3,"op":"document.watch","path":"\#(item)"}"#)["watch"]?.intValue)
            let writer = try RawClient.greeted(socket: daemon.socket)
            let locker = try RawClient.greeted(socket: daemon.socket)
            let distinct = (0..<1_000).map { "k\($0)" }
            let residentBefore = try residentKiB(daemon.pid)
            let started = Date()

            // The subscriber reads nothing from here on. 45,000 sets of one key of store b fill
            // its socket and the daemon's 1 MiB of pending writes many times over (about 150
            // bytes an event)…
            try set(Array(repeating: Self.filler, count: 45_000), in: "com.example.b", from: writer)
            // …then 1,000 keys of store a change once each, and the watched item's lock 1,001
            // times, while nothing can be written to it…
            try set(distinct, in: "com.example.a", from: writer)
            for _ in 0..<500 {
                let lock = try #require(try locker.result(#"{"id":1,"op":"document.lock","path":"\#(item)"}"#)["lock"]?.intValue)
                _ = try locker.result(#"{"id":2,"op":"document.unlock","lock":\#(lock)}"#)
            }
            _ = try locker.result(#"{"id":3,"op":"document.lock","path":"\#(item)"}"#)
            // …and all of it is buried under 54,000 more of store b: a buffer of the newest
            // events of the connection would hold only these. (Store b's file keeps one key, so
            // these sets stay fast; store a's thousand keys make each of its sets slower.)
            try set(Array(repeating: Self.filler, count: 54_000), in: "com.example.b", from: writer)
            let residentAfter = try residentKiB(daemon.pid)
            let writing = Date().timeIntervalSince(started)

            // Now it reads: every key that changed, none missing, and the lock as it is now.
            var keys: [Int: Set<String>] = [:]
            var events = 0
            var lockedNow: Bool?
            let expected = [storeA: Set(distinct), storeB: [Self.filler]]
            let deadline = Date().addingTimeInterval(60)
            while (keys != expected || lockedNow != true) && Date() < deadline {
                let message = try subscriber.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
                switch message["event"]?.stringValue {
                case "kv.changed":
                    let store = try #require(message["store"]?.intValue)
                    keys[store, default: []].formUnion((message["keys"]?.arrayValue ?? []).compactMap(\.stringValue))
                    events += 1
                case "document.lockChanged":
                    #expect(message["watch"]?.intValue == watch)
                    #expect(message["yours"] == .bool(false))
                    lockedNow = message["locked"]?.boolValue
                default:
                    Issue.record("unexpected line \(JSONLine.encode(message))")
                }
            }
            let missing = Set(distinct).subtracting(keys[storeA] ?? [])
            #expect(missing.isEmpty, "\(missing.count) keys of store a missing, e.g. \(missing.sorted().prefix(5))")
            #expect(keys == expected)
            #expect(lockedNow == true)
            // Coalesced: far fewer events than changes (those the buffers took before it stopped
            // reading, then one per subscription and wake-up).
            #expect(events < 50_000, "\(events) kv.changed events for 100,000 changes")
            // An event kept per change from the moment the subscriber stopped reading — some
            // 90,000 of about 150 bytes each, 13 MiB as lines and more as values — would pass this.
            let grown = residentAfter - residentBefore
            #expect(grown < 8 << 10, "the daemon grew by \(grown) KiB while the subscriber did not read")
            print("outbox: 100,000 kv.set and 1,001 lock changes in \(String(format: "%.1f", writing)) s; "
                  + "the daemon grew by \(grown) KiB (RSS \(residentBefore) → \(residentAfter) KiB); the subscriber read \(events) kv.changed")
        }
    }
}
