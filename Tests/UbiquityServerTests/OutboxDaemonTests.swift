import Foundation
import Glibc
import Testing
import UbiquityPredicate
import UbiquityProtocol
import UbiquityTesting

/// The per-connection outbox through the real daemon on a real socket: a subscriber that stops
/// reading loses nothing and costs bounded memory (docs/architecture.md, the data flow, step 6).
@Suite("One outbox per connection, against the real daemon", .serialized, .ownThreads)
struct OutboxDaemonTests {
    /// A key that fills the subscriber's socket and the daemon's write buffer, 64 bytes (the
    /// longest key) so that every event a per-event buffer kept would cost the most.
    static let filler = String(repeating: "f", count: 64)

    /// Sets every key of `keys` (in order) from `client`, a thousand requests in flight at a time.
    func set(_ keys: [String], from client: RawClient) throws {
        for chunk in stride(from: 0, to: keys.count, by: 1_000).map({ keys[$0..<min($0 + 1_000, keys.count)] }) {
            var bytes: [UInt8] = []
            for (i, key) in chunk.enumerated() {
                bytes += Array(#"{"id":\#(i),"op":"kv.set","key":"\#(key)","value":\#(i)}"#.utf8) + [0x0A]
            }
            try client.sendBytes(bytes)
            for _ in chunk {
                let response = try client.readJSON(within: 30)
                guard response["result"]?["stored"] == .bool(true) else { throw TestDaemonError("kv.set failed: \(JSONLine.encode(response))") }
            }
        }
    }

    @Test("A subscriber that stops reading while 100,000 kv.set and 1,001 lock changes happen then gets every changed key and the latest lock state; the daemon's memory stays bounded")
    func aSilentSubscriberGetsTheUnionOfEveryChangedKeyInBoundedMemory() async throws {
        try await withTestDaemon { daemon in
            let item = daemon.root + "/com.example.grocery/Documents/Item_1"
            touch(item, nil)
            let subscriber = try RawClient.greeted(socket: daemon.socket)
            let store = try #require(try subscriber.result(#"{"id":1,"op":"kv.subscribe"}"#)["store"]?.intValue)
            let watch = try #require(try subscriber.result(#"{"id":2,"op":"document.watch","path":"\#(item)"}"#)["watch"]?.intValue)
            let writer = try RawClient.greeted(socket: daemon.socket)
            let locker = try RawClient.greeted(socket: daemon.socket)
            let distinct = (0..<1_000).map { "k\($0)" }
            let residentBefore = try residentKiB(daemon.pid)
            let started = Date()

            // The subscriber reads nothing from here on. 45,000 sets of one key fill its socket
            // and the daemon's 1 MiB of pending writes many times over (about 150 bytes each)…
            try set(Array(repeating: Self.filler, count: 45_000), from: writer)
            // …then every other key changes once, while nothing can be written to it…
            try set(distinct, from: writer)
            for _ in 0..<500 {
                let lock = try #require(try locker.result(#"{"id":1,"op":"document.lock","path":"\#(item)"}"#)["lock"]?.intValue)
                _ = try locker.result(#"{"id":2,"op":"document.unlock","lock":\#(lock)}"#)
            }
            _ = try locker.result(#"{"id":3,"op":"document.lock","path":"\#(item)"}"#)
            // …and is buried under 54,000 more: a buffer of the newest events would hold only these.
            try set(Array(repeating: Self.filler, count: 54_000), from: writer)
            let residentAfter = try residentKiB(daemon.pid)
            let writing = Date().timeIntervalSince(started)

            // Now it reads: every key that changed, none missing, and the lock as it is now.
            var keys: Set<String> = []
            var events = 0
            var lockedNow: Bool?
            let expected = Set(distinct + [Self.filler])
            let deadline = Date().addingTimeInterval(60)
            while (keys != expected || lockedNow != true) && Date() < deadline {
                let message = try subscriber.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
                switch message["event"]?.stringValue {
                case "kv.changed":
                    #expect(message["store"]?.intValue == store)
                    keys.formUnion((message["keys"]?.arrayValue ?? []).compactMap(\.stringValue))
                    events += 1
                case "document.lockChanged":
                    #expect(message["watch"]?.intValue == watch)
                    #expect(message["yours"] == .bool(false))
                    lockedNow = message["locked"]?.boolValue
                default:
                    Issue.record("unexpected line \(JSONLine.encode(message))")
                }
            }
            #expect(expected.subtracting(keys).isEmpty, "missing keys: \(expected.subtracting(keys).sorted().prefix(10))")
            #expect(keys.subtracting(expected).isEmpty)
            #expect(lockedNow == true)
            // Coalesced: far fewer events than changes (the ones the buffers took before it
            // stopped, then one per wake-up).
            #expect(events < 50_000, "\(events) kv.changed events for 100,000 changes")
            // One event kept per change from the moment the subscriber stopped reading — 98,000
            // or more of about 150 bytes each, 14 MiB as lines and more as values — would pass this.
            let grown = residentAfter - residentBefore
            #expect(grown < 8 << 10, "the daemon grew by \(grown) KiB while the subscriber did not read")
            print("outbox: 100,000 kv.set and 1,001 lock changes in \(String(format: "%.1f", writing)) s; "
                  + "the daemon grew by \(grown) KiB (RSS \(residentBefore) → \(residentAfter) KiB); the subscriber read \(events) kv.changed")
        }
    }
}
