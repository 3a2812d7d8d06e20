import Testing
import UbiquityFuzzing
import UbiquityJSON
@testable import UbiquityStore
@testable import UbiquityProtocol

/// A client reads the relational stores' events as the daemon writes them: `store.changed`, and a
/// live fetch's `store.gatheringFinished`, `store.update` and `store.watchStopped`, by both of
/// its readers (the one-pass reader and the general one).
@Suite("Store events as a client reads them")
struct StoreEventDecodingTests {
    static func message(_ line: String) throws -> (onePass: ServerMessage, general: ServerMessage) {
        let bytes = Array(line.utf8)
        let onePass = try bytes.withUnsafeBufferPointer { try ServerMessage(line: $0) }
        return (onePass, try ServerMessage(json: try JSONLine.decode(bytes)))
    }

    @Test("store.changed decodes to the event the daemon encoded, lists or all")
    func changed() throws {
        let carrots = RowRef(table: "items", id: RowID(high: 0, low: 1))
        var result = ImportResult()
        result.inserted = [carrots]
        result.updated = [RowRef(table: "tags", id: RowID(high: 0, low: 2)): ["name"]]
        result.deleted = [RowRef(table: "items", id: RowID(high: 0, low: 4))]
        let laptop = DeviceID("laptop")!, phone = DeviceID("phone")!
        result.conflicts = [ColumnConflict(row: carrots, column: "name", winner: .string("Möhren"), winnerClock: HLC(milliseconds: 2, device: phone),
                                           loser: .string("carottes"), loserClock: HLC(milliseconds: 1, device: laptop))]
        var pending = PendingStoreChanges(limit: 10)
        pending.add(result, from: phone)
        let event = StoreChange(handle: 3, container: "com.example.grocery", store: "grocery", pending: pending, clock: "s9")
        let line = JSONLine.encode(event.json)
        let (onePass, general) = try Self.message(line)
        #expect(onePass == .storeChanged(event) && general == .storeChanged(event))
        guard case .storeChanged(let read) = onePass else { return }
        #expect(read.updated?.count == 1 && read.updated?.first?.columns == ["name"] && read.deleted?.count == 1)
        #expect(read.conflicts.first?.winner == .string("Möhren") && read.devices == ["phone"])
        // An updated row without columns: any column may have changed.
        var json = event.json
        if case .object(var object) = json {
            object["updated"] = .array([.object(["row": .string("ubiquity-store://com.example.grocery/grocery/tags/00000000000000000000000000000003")])])
            json = .object(object)
        }
        #expect(try StoreChange(json: json).updated?.first?.columns == nil)
        pending.markEverything()
        let all = StoreChange(handle: 3, container: "com.example.grocery", store: "grocery", pending: pending, clock: "s9")
        #expect(try StoreChange(json: all.json).isAll)
        #expect(throws: ProtocolError.self) { try StoreChange(json: .object(["event": .string("store.changed"), "handle": .string("x")])) }
    }

    @Test("A live fetch's events decode whole, also rows with a column named like a result item's field")
    func liveFetchEvents() throws {
        let row: JSONValue = .object(["id": .string("00000000000000000000000000000001"), "path": .string("aisle 3"), "name": .string("carrots")])
        let events: [StoreWatchEvent] = [
            .gatheringFinished(watch: 2, rows: [row], clock: "s1"),
            .update(watch: 2, added: [row], changed: [row], removed: [row], clock: "s2"),
            .stopped(watch: 2, code: "store.answerTooLarge", reason: "the rows grew past 16777216 bytes"),
        ]
        for event in events {
            let (onePass, general) = try Self.message(JSONLine.encode(event.json))
            #expect(onePass == .storeWatch(event), "one-pass reader: \(onePass)")
            #expect(general == .storeWatch(event))
        }
        #expect(throws: ProtocolError.self) { try StoreWatchEvent(json: .object(["event": .string("store.other"), "watch": .integer(1)])) }
    }

    @Test("A live fetch's line whose lists look like result items reads the same taken read by read as whole")
    func liveFetchLineTakenByReads() throws {
        // Rows of a table with the columns `attributes` and `path` (and no id: what a hostile or
        // broken peer could send) are canonical result items to the line reader.
        let looksLikeItems = (0..<200).map { #"{"attributes":{},"path":"aisle \#($0)"}"# }.joined(separator: ",")
        let line = Array(#"{"added":[\#(looksLikeItems)],"changed":[],"clock":"s2","event":"store.update","removed":[],"watch":2}"#.utf8)
        let whole = try ItemListScanCheck.message(line).get()
        guard case .storeWatch(.update(let watch, let added, _, _, _)) = whole else {
            Issue.record("read as \(whole)")
            return
        }
        #expect(watch == 2 && added.count == 200)
        for size in [1, 7, 64, 4_096] {
            let (rest, listed, _, _) = ItemListScanCheck.taken(line) { _ in size }
            #expect(try ItemListScanCheck.message(rest, listed: listed).get() == whole, "reads of \(size) bytes")
        }
    }
}
