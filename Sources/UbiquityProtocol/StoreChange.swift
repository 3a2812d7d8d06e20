public import UbiquityJSON
public import UbiquityStore

/// `store.changed`: rows of a store this connection opened changed — by an import of other
/// devices' segments or by another connection's save (a connection is not told of its own) —
/// and which (docs/protocol.md, "store.changed"; the counterpart of Core Data's
/// `NSPersistentStoreDidImportUbiquitousContentChangesNotification`).
///
/// Rows are named `ubiquity-store://<container>/<store>/<table>/<id>`. What a subscriber has not
/// read is folded per row (``PendingStoreChanges``); past the connection's bound it says any row
/// may have changed (`"all": true`, no row lists) and the subscriber fetches again.
public struct StoreChange: Sendable, Hashable {
    public static let name = "store.changed"

    /// A true conflict this import settled: `column` of `row` written on two devices.
    public struct Conflict: Sendable, Hashable {
        public var row: String
        public var column: String
        public var winner: JSONValue
        public var winnerDevice: String
        public var loser: JSONValue
        public var loserDevice: String

        public var json: JSONValue {
            .object(["row": .string(row), "column": .string(column), "winner": winner, "winnerDevice": .string(winnerDevice),
                     "loser": loser, "loserDevice": .string(loserDevice)])
        }

        public init(row: String, column: String, winner: JSONValue, winnerDevice: String, loser: JSONValue, loserDevice: String) {
            self.row = row
            self.column = column
            self.winner = winner
            self.winnerDevice = winnerDevice
            self.loser = loser
            self.loserDevice = loserDevice
        }

        public init(json: JSONValue, context: String) throws(ProtocolError) {
            let reader = try FieldReader(json, context: context)
            row = try reader.string("row")
            column = try reader.string("column")
            winner = reader.object["winner"] ?? .null
            winnerDevice = try reader.string("winnerDevice")
            loser = reader.object["loser"] ?? .null
            loserDevice = try reader.string("loserDevice")
        }
    }

    /// A delete that met an edit it had not seen, and whether the row was kept.
    public struct Contest: Sendable, Hashable {
        public var row: String
        public var deletedBy: [String]
        public var editedBy: [String]
        public var kept: Bool

        public var json: JSONValue {
            .object(["row": .string(row), "deletedBy": .array(deletedBy.map { .string($0) }),
                     "editedBy": .array(editedBy.map { .string($0) }), "kept": .bool(kept)])
        }

        public init(row: String, deletedBy: [String], editedBy: [String], kept: Bool) {
            self.row = row
            self.deletedBy = deletedBy
            self.editedBy = editedBy
            self.kept = kept
        }

        public init(json: JSONValue, context: String) throws(ProtocolError) {
            let reader = try FieldReader(json, context: context)
            row = try reader.string("row")
            deletedBy = try reader.optionalStrings("deletedBy") ?? []
            editedBy = try reader.optionalStrings("editedBy") ?? []
            kept = try reader.bool("kept")
        }
    }

    /// The `store.open` handle of the subscription.
    public var handle: Int
    public var container: String
    public var store: String
    /// Each list sorted; nil when any row may have changed (`"all": true`).
    public var inserted: [String]?
    /// Each updated row with the columns and relationship ends that changed (nil: any).
    public var updated: [(row: String, columns: [String]?)]?
    public var deleted: [String]?
    /// The devices the changes came from (this device's own for another connection's save), sorted.
    public var devices: [String]
    public var conflicts: [Conflict]
    public var contests: [Contest]
    /// The store's clock token after these changes.
    public var clock: String

    public var isAll: Bool { inserted == nil }

    /// The event for `pending`, rows named in the wire form.
    public init(handle: Int, container: String, store: String, pending: PendingStoreChanges, clock: String) {
        func url(_ row: RowRef) -> String { StoreWire.url(container: container, store: store, row) }
        self.handle = handle
        self.container = container
        self.store = store
        self.clock = clock
        devices = pending.sources.map(\.rawValue).sorted()
        if pending.isEverything {
            inserted = nil
            updated = nil
            deleted = nil
        } else {
            inserted = pending.inserted.sorted().map(url)
            updated = pending.updated.keys.sorted().map { row in (url(row), pending.updated[row]!.map { $0.sorted() }) }
            deleted = pending.deleted.sorted().map(url)
        }
        conflicts = pending.conflicts.map { c in
            Conflict(row: url(c.row), column: c.column, winner: StoreWire.json(c.winner), winnerDevice: c.winnerClock.device.rawValue,
                     loser: StoreWire.json(c.loser), loserDevice: c.loserClock.device.rawValue)
        }
        contests = pending.contests.map { c in
            Contest(row: url(c.row), deletedBy: c.deletedBy.map(\.rawValue), editedBy: c.editedBy.map(\.rawValue), kept: c.kept)
        }
    }

    /// Reads the event as a client receives it (UbiquityKit's `PersistentStore`). `"all": true`,
    /// or a missing list, is "any row may have changed" (``isAll``).
    ///
    /// - Throws: `request.malformed` naming the field that is missing or of the wrong type.
    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: StoreChange.name)
        handle = try reader.int("handle")
        container = try reader.string("container")
        store = try reader.string("store")
        devices = try reader.optionalStrings("devices") ?? []
        clock = try reader.string("clock")
        conflicts = reader.has("conflicts")
            ? try reader.list("conflicts") { (value, at) throws(ProtocolError) in try Conflict(json: value, context: at) } : []
        contests = reader.has("contests")
            ? try reader.list("contests") { (value, at) throws(ProtocolError) in try Contest(json: value, context: at) } : []
        let all = try reader.optionalBool("all") ?? false
        if all || !reader.has("inserted") || !reader.has("updated") || !reader.has("deleted") {
            inserted = nil
            updated = nil
            deleted = nil
        } else {
            inserted = try reader.optionalStrings("inserted") ?? []
            updated = try reader.list("updated") { (value, at) throws(ProtocolError) -> (row: String, columns: [String]?) in
                let entry = try FieldReader(value, context: at)
                return (try entry.string("row"), try entry.optionalStrings("columns"))
            }
            deleted = try reader.optionalStrings("deleted") ?? []
        }
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "event": .string(StoreChange.name), "handle": .integer(Int64(handle)), "container": .string(container),
            "store": .string(store), "devices": .array(devices.map { .string($0) }), "clock": .string(clock),
            "conflicts": .array(conflicts.map(\.json)), "contests": .array(contests.map(\.json)),
        ]
        if let inserted, let updated, let deleted {
            object["inserted"] = .array(inserted.map { .string($0) })
            object["updated"] = .array(updated.map { row, columns in
                var entry: [String: JSONValue] = ["row": .string(row)]
                if let columns { entry["columns"] = .array(columns.map { .string($0) }) }
                return .object(entry)
            })
            object["deleted"] = .array(deleted.map { .string($0) })
        } else {
            object["all"] = .bool(true)
        }
        return .object(object)
    }

    public static func == (a: StoreChange, b: StoreChange) -> Bool { a.json == b.json }
    public func hash(into hasher: inout Hasher) { hasher.combine(JSONLine.encode(json)) }
}
