import Foundation
import Testing
import UbiquityJSON
import UbiquityTesting

/// A third device that joins a store late, over real Syncthing (TwoDevices with a device joining
/// later: three daemons, three Syncthing instances): it starts from the other devices' snapshots
/// and the segments after them, holds what they hold, and from then on holds their compaction
/// back until it has acknowledged (docs/stores.md, "Snapshots and compaction"). Needs root (unshare).
@Suite(.serialized, .ownThreads) struct StoreThreeDevicesTests {
    static let carrots = StoreTwoDevicesTests.carrots, mall = StoreTwoDevicesTests.mall

    static func logs(_ device: TwoDevices.Device, of writer: StorePeer) -> String {
        device.container + "/.ubiquity-stores/grocery/logs/" + writer.device
    }

    static func snapshots(_ device: TwoDevices.Device, of writer: StorePeer) -> String {
        device.container + "/.ubiquity-stores/grocery/snapshots/" + writer.device
    }

    /// The segments (or snapshots) in `folder`, by number; a file being written is none.
    static func numbers(_ folder: String) throws -> Set<Int> { Set(try FS.names(folder).compactMap { Int($0) }) }

    /// Waits until `folder` holds exactly the segments `expected`.
    static func waitForSegments(_ folder: String, _ expected: ClosedRange<Int>?, within seconds: Double = 60) throws {
        let wanted = expected.map { Set($0) } ?? []
        try FS.waitForNames(in: folder, within: seconds) { Set($0.compactMap { Int($0) }) == wanted }
    }

    /// Waits until `device`'s copy of `reader`'s acknowledgement file says it imported `writer`'s
    /// log up to `sequence` or more.
    static func waitForAcknowledgement(on device: TwoDevices.Device, by reader: StorePeer, of writer: StorePeer, atLeast sequence: Int64) throws {
        try FS.waitForContents(of: reader.device, in: device.container + "/.ubiquity-stores/grocery/acks", within: 60) { text in
            guard let text, let json = try? JSONLine.decode(Array(text.utf8)), case .integer(let mark)? = json[writer.device] else { return false }
            return mark >= sequence
        }
    }

    /// With `late`'s Syncthing paused towards A and B, A saves the items `a N` for N in `aNames` and
    /// B `b N` for `bNames` (then `afterSaves` runs); once each has acknowledged the other's last,
    /// one more each (`a M`, `b M`, M one past the range), awaited on the other device: the import
    /// pass that brings it ran compaction with that acknowledgement in the folder, and is over once
    /// its store.changed arrives. Returns the ids of those last two items.
    static func writeApart(from late: TwoDevices.Device, _ devices: TwoDevices, _ a: StorePeer, _ b: StorePeer,
                           a aNames: ClosedRange<Int>, b bNames: ClosedRange<Int>,
                           afterSaves: () throws -> Void = {}) throws -> (a: String, b: String) {
        for peer in [devices.a, devices.b] { try late.syncthing.call("POST", "/rest/system/pause?device=\(peer.deviceID)") }
        for n in aNames { try a.save("grocery", #"{"insert":"items","values":{"name":"a \#(n)"}}"#) }
        for n in bNames { try b.save("grocery", #"{"insert":"items","values":{"name":"b \#(n)"}}"#) }
        try afterSaves()
        try waitForAcknowledgement(on: devices.a, by: b, of: a, atLeast: Int64(aNames.upperBound))
        try waitForAcknowledgement(on: devices.b, by: a, of: b, atLeast: Int64(bNames.upperBound))
        let url = { (id: String) in StoreTwoDevicesTests.url("grocery", "items", id) }
        let aLast = try #require(a.save("grocery", #"{"insert":"items","values":{"name":"a \#(aNames.upperBound + 1)"}}"#)["inserted"]?.arrayValue?.first?.stringValue)
        let bLast = try #require(b.save("grocery", #"{"insert":"items","values":{"name":"b \#(bNames.upperBound + 1)"}}"#)["inserted"]?.arrayValue?.first?.stringValue)
        _ = try a.changes(of: "grocery", from: b.device) { StoreTwoDevicesTests.all("inserted", of: $0).contains(url(bLast)) }
        _ = try b.changes(of: "grocery", from: a.device) { StoreTwoDevicesTests.all("inserted", of: $0).contains(url(aLast)) }
        return (aLast, bLast)
    }

    /// What `device`'s folder holds of every device's acknowledgement, for a failure's message.
    static func acknowledgements(on device: TwoDevices.Device) -> String {
        let folder = device.container + "/.ubiquity-stores/grocery/acks"
        let names = (try? FS.names(folder)) ?? []
        return names.sorted().map { name in
            let text = (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? "(unreadable)"
            return "\(name): \(text.trimmingCharacters(in: .whitespacesAndNewlines))"
        }.joined(separator: "; ")
    }

    /// Every item with its name, quantity and tags, as one device's daemon fetches them.
    static func items(_ peer: StorePeer) throws -> [String: JSONValue] {
        try peer.rows("grocery", "items", related: ["tags"])
    }

    @Test("A third device joins late over Syncthing: it starts from A's and B's snapshots plus the segments after them and converges; its acknowledgement then lets A and B compact further, and its own writes reach both")
    func aThirdDeviceJoiningLateStartsFromTheSnapshotsAndConverges() async throws {
        let devices = try await TwoDevices.start(joiningLater: ["c"])
        defer { devices.stop() }
        let schema = StoreTwoDevicesTests.schema()
        let a = try StorePeer(devices.a), b = try StorePeer(devices.b)
        try a.open("grocery", schema: schema)
        try b.open("grocery", schema: schema)

        // A and B each write 50 segments — carrots and the tag mall among them, tagged on both —
        // so each writes its snapshot 50, then a few more.
        try a.save("grocery", #"{"insert":"items","id":"\#(Self.carrots)","values":{"name":"carrots","quantity":1}}"#,
                   #"{"insert":"tags","values":{"name":"mall"}}"#, #"{"relate":"tags","from":"\#(Self.carrots)","to":"\#(Self.mall)"}"#)
        var bread = ""
        for n in 1...50 {
            let saved = try b.save("grocery", #"{"insert":"items","values":{"name":"b \#(n)","quantity":\#(n)}}"#)
            #expect(saved["segment"] == .integer(Int64(n)))
            if n == 1 { bread = saved["inserted"]?.arrayValue?.first?.stringValue ?? "" }
        }
        for n in 2...50 { try a.save("grocery", #"{"insert":"items","values":{"name":"a \#(n)"}}"#) }
        // Each changes a row the other made, once it has it.
        let url = { (id: String) in StoreTwoDevicesTests.url("grocery", "items", id) }
        _ = try a.changes(of: "grocery", from: b.device) { StoreTwoDevicesTests.all("inserted", of: $0).contains(url(bread)) }
        _ = try b.changes(of: "grocery", from: a.device) { StoreTwoDevicesTests.all("inserted", of: $0).contains(url(Self.carrots)) }
        try a.save("grocery", #"{"update":"items","id":"\#(Self.carrots)","values":{"quantity":3}}"#)                 // A's 51
        try a.save("grocery", #"{"relate":"tags","from":"\#(bread)","to":"\#(Self.mall)"}"#)                              // A's 52
        try b.save("grocery", #"{"update":"items","id":"\#(Self.carrots)","values":{"note":"from the market"}}"#)          // B's 51
        #expect(try FS.names(Self.snapshots(devices.a, of: a)) == ["50"] && FS.names(Self.snapshots(devices.b, of: b)) == ["50"])

        // Each imports the other's segments and acknowledges them; each then removes its own 1–50.
        try Self.waitForSegments(Self.logs(devices.a, of: a), 51...52)
        try Self.waitForSegments(Self.logs(devices.b, of: b), 51...51)
        try devices.waitUntilInSync()
        let before = try Self.items(a), onB = try Self.items(b)
        #expect(before.count == 100 && onB == before, "A and B agree before C comes")

        // C joins with an empty container and no cache: what sync brings it is the snapshots and
        // the segments after them, never A's or B's first 50.
        let joined = try devices.join("c")
        try devices.waitUntilInSync()
        #expect(try Self.numbers(Self.logs(joined, of: a)) == [51, 52] && Self.numbers(Self.logs(joined, of: b)) == [51])
        #expect(try FS.names(Self.snapshots(joined, of: a)) == ["50"] && FS.names(Self.snapshots(joined, of: b)) == ["50"])
        let c = try StorePeer(joined)
        let opened = try c.open("grocery", schema: schema)
        #expect(opened["opened"] == .string("created"))
        let marks = Dictionary(uniqueKeysWithValues: (opened["devices"]?.arrayValue ?? []).compactMap { entry in
            entry["device"]?.stringValue.map { ($0, entry["imported"] ?? .null) }
        })
        #expect(marks[a.device] == .integer(52) && marks[b.device] == .integer(51), "C's watermarks: \(opened)")
        let onC = try Self.items(c)
        #expect(onC == before, "C holds what A and B hold")
        #expect(onC[Self.carrots]?["quantity"] == .integer(3) && onC[Self.carrots]?["note"] == .string("from the market")
                && onC[Self.carrots]?["tags"] == .array([.string(Self.mall)]) && onC[bread]?["tags"] == .array([.string(Self.mall)]),
                "\(String(describing: onC[Self.carrots])) \(String(describing: onC[bread]))")
        #expect(try Set(c.rows("grocery", "tags").keys) == [Self.mall])

        // C's acknowledgement reaches A and B: from now on their compaction waits for it too.
        try Self.waitForAcknowledgement(on: devices.a, by: c, of: a, atLeast: 52)
        try Self.waitForAcknowledgement(on: devices.b, by: c, of: b, atLeast: 51)
        // C's Syncthing stops talking to A and B while they write to their segment 100 and past it.
        _ = try Self.writeApart(from: joined, devices, a, b, a: 53...100, b: 52...100) { () throws in
            #expect(try FS.names(Self.snapshots(devices.a, of: a)) == ["100"] && FS.names(Self.snapshots(devices.b, of: b)) == ["100"])
        }
        // Each removed only what C had acknowledged too (A's 51–52, B's 51).
        #expect(try Self.numbers(Self.logs(devices.a, of: a)) == Set(53...101), "A waits for C")
        #expect(try Self.numbers(Self.logs(devices.b, of: b)) == Set(52...101), "B waits for C")

        // C comes back, imports and acknowledges: A and B remove everything their snapshot 100 covers.
        for peer in [devices.a, devices.b] { try joined.syncthing.call("POST", "/rest/system/resume?device=\(peer.deviceID)") }
        try Self.waitForSegments(Self.logs(devices.a, of: a), 101...101)
        try Self.waitForSegments(Self.logs(devices.b, of: b), 101...101)

        // A write on C reaches A and B, and all three hold the same rows.
        let saved = try c.save("grocery", #"{"insert":"items","values":{"name":"from c"}}"#)
        #expect(saved["segment"] == .integer(1))
        let fromC = try #require(saved["inserted"]?.arrayValue?.first?.stringValue)
        for peer in [a, b] {
            _ = try peer.changes(of: "grocery", from: c.device) { StoreTwoDevicesTests.all("inserted", of: $0).contains(url(fromC)) }
        }
        try devices.waitUntilInSync()
        let final = try Self.items(a)
        #expect(final.count == 200 && final[fromC]?["name"] == .string("from c"))
        #expect(try Self.items(b) == final && Self.items(c) == final, "A, B and C hold the same rows and tags")
    }

    /// `device`'s entry for `other` in the `stores` of `status`.
    static func inStatus(_ peer: StorePeer, _ other: StorePeer) throws -> JSONValue? {
        try peer.result(#"{"id":9,"op":"status"}"#)["stores"]?.arrayValue?.first?["devices"]?.arrayValue?
            .first { $0["device"]?.stringValue == other.device }
    }

    @Test("A device gone quiet holds A's and B's compaction; forgotten on both, they compact at once; it comes back anyway, joins the snapshots over the gaps, converges, and is waited for again")
    func aForgottenDeviceThatComesBackJoinsTheSnapshots() async throws {
        let devices = try await TwoDevices.start(joiningLater: ["c"])
        defer { devices.stop() }
        let schema = StoreTwoDevicesTests.schema()
        let a = try StorePeer(devices.a), b = try StorePeer(devices.b)
        try a.open("grocery", schema: schema)
        try b.open("grocery", schema: schema)
        let joined = try devices.join("c")
        let c = try StorePeer(joined)
        try c.open("grocery", schema: schema)
        let url = { (id: String) in StoreTwoDevicesTests.url("grocery", "items", id) }
        // Each writes a segment and imports the others': all three know each other.
        var firsts: [String: String] = [:]
        for peer in [a, b, c] {
            firsts[peer.name] = try #require(peer.save("grocery", #"{"insert":"items","values":{"name":"\#(peer.name) 1"}}"#)["inserted"]?.arrayValue?.first?.stringValue)
        }
        for peer in [a, b, c] {
            for other in [a, b, c] where other.name != peer.name {
                _ = try peer.changes(of: "grocery", from: other.device) { StoreTwoDevicesTests.all("inserted", of: $0).contains(url(firsts[other.name]!)) }
            }
        }
        for (device, writer) in [(devices.a, a), (devices.b, b)] { try Self.waitForAcknowledgement(on: device, by: c, of: writer, atLeast: 1) }

        // C goes quiet (its Syncthing stops talking to A and B) while they write past their snapshots 50.
        let (a52, b52) = try Self.writeApart(from: joined, devices, a, b, a: 2...51, b: 2...51)
        #expect(try Self.numbers(Self.logs(devices.a, of: a)) == Set(2...52), "C has only A's 1")
        #expect(try Self.numbers(Self.logs(devices.b, of: b)) == Set(2...52), "C has only B's 1")

        // Both forget C: each removes at once what its snapshot 50 covers; C's files stay.
        for (peer, device) in [(a, devices.a), (b, devices.b)] {
            let forgotten = try peer.result(#"{"id":8,"op":"store.forget","store":"grocery","device":"\#(c.device)"}"#)
            #expect(forgotten["removed"] == .integer(49) && forgotten["waitingFor"] == .array([]),
                    "on \(peer.name): \(forgotten); its acknowledgements: \(Self.acknowledgements(on: device))")
            #expect(try Self.numbers(Self.logs(device, of: peer)) == [51, 52])
            #expect(try Self.numbers(Self.logs(device, of: c)) == [1], "C's segment stays")
            #expect(try Self.inStatus(peer, c)?["forgotten"] == .bool(true))
        }

        // C comes back after all: A's and B's next segments are gone, so it joins their snapshots
        // 50, imports 51 and 52, and holds what they hold.
        for peer in [devices.a, devices.b] { try joined.syncthing.call("POST", "/rest/system/resume?device=\(peer.deviceID)") }
        do {
            _ = try c.changes(of: "grocery", from: a.device, within: 60) { StoreTwoDevicesTests.all("inserted", of: $0).contains(url(a52)) }
            _ = try c.changes(of: "grocery", from: b.device, within: 60) { StoreTwoDevicesTests.all("inserted", of: $0).contains(url(b52)) }
        } catch {
            let described = (try? c.result(#"{"id":11,"op":"store.describe","store":"grocery"}"#)).map(JSONLine.encode) ?? "(no answer)"
            let held = [a, b].map { writer in
                "\(writer.name)'s segments \(((try? Self.numbers(Self.logs(joined, of: writer))) ?? []).sorted()), "
                    + "snapshots \(((try? Self.numbers(Self.snapshots(joined, of: writer))) ?? []).sorted())"
            }
            let rows = (try? Self.items(c)) ?? [:]
            Issue.record("""
                C did not tell: C's store.describe: \(described); C's folder holds \(held.joined(separator: "; ")); \
                C holds A's last \(rows[a52] != nil), B's last \(rows[b52] != nil), \(rows.count) rows; the events C kept:
                \(c.keptEvents)
                C's daemon logged about its store:
                \(joined.daemon.log.split(separator: "\n").filter { $0.contains("store") }.suffix(80).joined(separator: "\n"))
                """)
            throw error
        }
        let onA = try Self.items(a), onB = try Self.items(b), onC = try Self.items(c)
        #expect(onA.count == 105 && onB == onA && onC == onA, "A, B and C hold the same rows")
        let marks = try c.result(#"{"id":10,"op":"store.describe","store":"grocery"}"#)["devices"]?.arrayValue ?? []
        #expect(marks.contains { $0["device"]?.stringValue == a.device && $0["imported"] == .integer(52) && $0["state"] == .string("current") })

        // Its newer acknowledgement makes it known again on both: no longer forgotten.
        for (device, writer) in [(devices.a, a), (devices.b, b)] {
            try Self.waitForAcknowledgement(on: device, by: c, of: writer, atLeast: 52)
        }
        for peer in [a, b] {
            let state = try Self.inStatus(peer, c)
            #expect(state != nil && state?["forgotten"] == nil, "on \(peer.name): \(String(describing: state))")
        }
        // And its writes reach both.
        let fromC = try #require(c.save("grocery", #"{"insert":"items","values":{"name":"c 2"}}"#)["inserted"]?.arrayValue?.first?.stringValue)
        for peer in [a, b] {
            _ = try peer.changes(of: "grocery", from: c.device) { StoreTwoDevicesTests.all("inserted", of: $0).contains(url(fromC)) }
        }
    }
}
