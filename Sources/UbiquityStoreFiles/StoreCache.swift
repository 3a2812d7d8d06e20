import Foundation
import GRDB
import UbiquityJSON
import UbiquityStore

/// The store's SQLite database (docs/stores.md, "The SQLite cache"): one table per store table
/// with typed columns (`t_<table>`), one per relationship with its pairs (`r_<relationship>`),
/// and the merge's own tables (`ubiq_*`): every row's and pair's register (tombstones are the
/// rows whose register says it is not alive), each device's watermark, the clock, the segment
/// being written, and the change log clients will read `since`.
///
/// A cache: everything in it follows from the segments, so it is rebuilt from them when it is
/// missing, damaged or of another schema version. Every function runs inside a database access
/// of ``DeviceStore`` (on GRDB's writer queue), never on Swift's cooperative pool.
enum StoreCache {
    /// Raised when the layout of the cache tables changes: an older cache is rebuilt.
    static let format: Int64 = 1

    /// Creates the tables when missing. Returns false when the cache was made for another
    /// device, schema version or format, after emptying it: it must be rebuilt from the segments.
    static func prepare(_ db: Database, schema: Schema, device: DeviceID) throws -> Bool {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS ubiq_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID")
        let meta = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM ubiq_meta").map {
            (String.fromDatabaseValue($0[0] as DatabaseValue) ?? "", $0[1] as DatabaseValue)
        })
        let fits = meta["format"].flatMap(Int64.fromDatabaseValue) == format
            && meta["device"].flatMap(String.fromDatabaseValue) == device.rawValue
            && meta["schemaVersion"].flatMap(Int64.fromDatabaseValue) == Int64(schema.version)
        if !meta.isEmpty && !fits {
            for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
                try db.execute(sql: "DROP TABLE \"\(name)\"")
            }
            try db.execute(sql: "CREATE TABLE ubiq_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID")
        }
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS ubiq_rows (tbl TEXT NOT NULL, id TEXT NOT NULL, alive INTEGER NOT NULL, register BLOB NOT NULL,
                                                  PRIMARY KEY (tbl, id)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS ubiq_pairs (rel TEXT NOT NULL, from_id TEXT NOT NULL, to_id TEXT NOT NULL, register BLOB NOT NULL,
                                                   PRIMARY KEY (rel, from_id, to_id)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS ubiq_devices (device TEXT PRIMARY KEY, imported INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS ubiq_pending (sequence INTEGER PRIMARY KEY, segment BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS ubiq_changes (token INTEGER PRIMARY KEY AUTOINCREMENT, device TEXT NOT NULL, sequence INTEGER NOT NULL,
                                                     inserted TEXT NOT NULL, updated TEXT NOT NULL, deleted TEXT NOT NULL);
            """)
        for table in schema.tables {
            let columns = table.columns.map { "\"\($0.name)\" \(sqlType($0.type))" }
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS \"t_\(table.name)\" (id TEXT PRIMARY KEY\(columns.map { ", " + $0 }.joined())) WITHOUT ROWID")
        }
        for r in schema.relationships {
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS "r_\(r.name)" (from_id TEXT NOT NULL, to_id TEXT NOT NULL, PRIMARY KEY (from_id, to_id)) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS "r_\(r.name)_to" ON "r_\(r.name)" (to_id, from_id);
                """)
        }
        for (key, value) in [("format", format.databaseValue), ("device", device.rawValue.databaseValue),
                             ("schemaVersion", Int64(schema.version).databaseValue)] {
            try db.execute(sql: "INSERT OR REPLACE INTO ubiq_meta (key, value) VALUES (?, ?)", arguments: [key, value])
        }
        return meta.isEmpty || fits
    }

    /// What the cache holds: the merged state, the clock's latest reading, each device's
    /// watermark and the segment that was being written.
    struct Contents {
        var state: StoreState
        var clock: HLC?
        var imported: [DeviceID: UInt64]
        var pending: (sequence: UInt64, bytes: [UInt8])?
    }

    /// - Throws: a ``StoreError`` for a register that does not decode (a damaged cache: rebuild).
    static func load(_ db: Database, schema: Schema, device: DeviceID) throws -> Contents {
        var rows: [RowRef: RowState] = [:]
        let rowCursor = try Row.fetchCursor(db, sql: "SELECT tbl, id, register FROM ubiq_rows")
        while let row = try rowCursor.next() {
            guard let id = RowID(row[1] as String) else { throw damaged("a row id") }
            rows[RowRef(table: row[0], id: id)] = try StoreRegisters.decodeRow(bytes(row[2]))
        }
        var pairs: [PairKey: PairState] = [:]
        let pairCursor = try Row.fetchCursor(db, sql: "SELECT rel, from_id, to_id, register FROM ubiq_pairs")
        while let row = try pairCursor.next() {
            guard let from = RowID(row[1] as String), let to = RowID(row[2] as String) else { throw damaged("a pair's row id") }
            pairs[PairKey(relationship: row[0], from: from, to: to)] = try StoreRegisters.decodePair(bytes(row[3]))
        }
        var imported: [DeviceID: UInt64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT device, imported FROM ubiq_devices") {
            guard let device = DeviceID(row[0] as String) else { throw damaged("a device id") }
            imported[device] = UInt64(clamping: row[1] as Int64)
        }
        var clock: HLC?
        if let ms = try Int64.fetchOne(db, sql: "SELECT value FROM ubiq_meta WHERE key = 'clockMilliseconds'"),
           let counter = try Int64.fetchOne(db, sql: "SELECT value FROM ubiq_meta WHERE key = 'clockCounter'") {
            clock = HLC(milliseconds: ms, counter: UInt32(clamping: counter), device: device)
        }
        let pending = try Row.fetchOne(db, sql: "SELECT sequence, segment FROM ubiq_pending ORDER BY sequence DESC LIMIT 1").map {
            (UInt64(clamping: $0[0] as Int64), bytes($0[1]))
        }
        return Contents(state: StoreState(schema: schema, rows: rows, pairs: pairs), clock: clock, imported: imported, pending: pending)
    }

    /// The rows and pairs `changes` name: what applying them can change besides the pairs of
    /// rows that appear, vanish or change generation.
    static func touched(by changes: [Change], _ schema: Schema) -> (rows: Set<RowRef>, pairs: Set<PairKey>) {
        var rowRefs = Set<RowRef>(), pairKeys = Set<PairKey>()
        for change in changes {
            switch change {
            case .insert(let w), .update(let w): rowRefs.insert(RowRef(table: w.table, id: w.row))
            case .delete(let d): rowRefs.insert(RowRef(table: d.table, id: d.row))
            case .relate(let p), .unrelate(let p):
                guard let r = schema.relationship(p.relationship) else { continue }
                rowRefs.insert(RowRef(table: r.from, id: p.from))
                rowRefs.insert(RowRef(table: r.to, id: p.to))
                pairKeys.insert(PairKey(relationship: p.relationship, from: p.from, to: p.to))
            }
        }
        return (rowRefs, pairKeys)
    }

    /// Writes what `changes` touched, as `after` has it (`before` holds the touched rows'
    /// registers as they were, absent for rows not heard of): the registers of their rows and
    /// pairs, the rows of the typed tables, and the pairs of the join tables — also those of
    /// rows that appeared, vanished or changed generation.
    static func save(_ db: Database, changes: [Change], before: [RowRef: RowState], after: StoreState) throws {
        let (rowRefs, pairKeys) = touched(by: changes, after.schema)
        var shownToCheck = pairKeys
        let upsertRow = try db.cachedStatement(sql: "INSERT OR REPLACE INTO ubiq_rows (tbl, id, alive, register) VALUES (?, ?, ?, ?)")
        for ref in rowRefs {
            guard let row = after.rowState(ref), let table = after.schema.table(ref.table) else { continue }
            let alive = row.isAlive(after.schema.deletes)
            let old = before[ref]
            if old?.generation != row.generation || (old?.isAlive(after.schema.deletes) ?? false) != alive {
                shownToCheck.formUnion(after.pairs(of: ref))
            }
            let id = ref.id.description
            try upsertRow.execute(arguments: [ref.table, id, alive, Data(StoreRegisters.encode(row))])
            if alive {
                let values = row.values
                let names = table.columns.map(\.name)
                let sql = "INSERT OR REPLACE INTO \"t_\(table.name)\" (id\(names.map { ", \"\($0)\"" }.joined())) VALUES (?\(String(repeating: ", ?", count: names.count)))"
                var arguments: [DatabaseValue] = [id.databaseValue]
                for column in table.columns { arguments.append(databaseValue(values[column.name] ?? .null)) }
                try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
            } else {
                try db.cachedStatement(sql: "DELETE FROM \"t_\(table.name)\" WHERE id = ?").execute(arguments: [id])
            }
        }
        let upsertPair = try db.cachedStatement(sql: "INSERT OR REPLACE INTO ubiq_pairs (rel, from_id, to_id, register) VALUES (?, ?, ?, ?)")
        for key in pairKeys {
            guard let pair = after.pairState(key) else { continue }
            try upsertPair.execute(arguments: [key.relationship, key.from.description, key.to.description, Data(StoreRegisters.encode(pair))])
        }
        for key in shownToCheck {
            let sql = after.isShown(key) ? "INSERT OR IGNORE INTO \"r_\(key.relationship)\" (from_id, to_id) VALUES (?, ?)"
                                         : "DELETE FROM \"r_\(key.relationship)\" WHERE from_id = ? AND to_id = ?"
            try db.cachedStatement(sql: sql).execute(arguments: [key.from.description, key.to.description])
        }
    }

    static func setImported(_ db: Database, device: DeviceID, sequence: UInt64) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO ubiq_devices (device, imported) VALUES (?, ?)")
            .execute(arguments: [device.rawValue, Int64(clamping: sequence)])
    }

    static func setClock(_ db: Database, _ clock: HLC) throws {
        let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO ubiq_meta (key, value) VALUES (?, ?)")
        try statement.execute(arguments: ["clockMilliseconds", clock.milliseconds])
        try statement.execute(arguments: ["clockCounter", Int64(clock.counter)])
    }

    /// Keeps the segment being written (only the latest: writes are one at a time).
    static func setPending(_ db: Database, sequence: UInt64, bytes: [UInt8]) throws {
        try db.execute(sql: "DELETE FROM ubiq_pending")
        try db.execute(sql: "INSERT INTO ubiq_pending (sequence, segment) VALUES (?, ?)", arguments: [Int64(clamping: sequence), Data(bytes)])
    }

    static func clearPending(_ db: Database) throws { try db.execute(sql: "DELETE FROM ubiq_pending") }

    /// Appends an import's row to the change log; its token.
    static func logChange(_ db: Database, device: DeviceID, sequence: UInt64, _ result: ImportResult) throws -> Int64 {
        func ids(_ refs: [RowRef]) -> String { JSONLine.encode(.array(refs.map { .string($0.description) })) }
        try db.cachedStatement(sql: "INSERT INTO ubiq_changes (device, sequence, inserted, updated, deleted) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [device.rawValue, Int64(clamping: sequence), ids(result.inserted), ids(result.updatedRows), ids(result.deleted)])
        return db.lastInsertedRowID
    }

    // MARK: - Values

    static func sqlType(_ type: ColumnType) -> String {
        switch type {
        case .string, .json: "TEXT"
        case .integer, .bool, .date: "INTEGER"
        case .double: "REAL"
        case .data: "BLOB"
        }
    }

    static func databaseValue(_ value: StoreValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .string(let s): s.databaseValue
        case .integer(let i): i.databaseValue
        case .double(let d): d.databaseValue
        case .bool(let b): (b ? Int64(1) : 0).databaseValue
        case .date(let ms): ms.databaseValue
        case .data(let bytes): Data(bytes).databaseValue
        case .json(let json): JSONLine.encode(json).databaseValue
        }
    }

    /// A typed table's value back as the column's type; null for what the cache did not write.
    static func storeValue(_ value: DatabaseValue, _ type: ColumnType) -> StoreValue {
        switch (type, value.storage) {
        case (_, .null): .null
        case (.string, .string(let s)): .string(s)
        case (.integer, .int64(let i)): .integer(i)
        case (.double, .double(let d)): .double(d)
        case (.double, .int64(let i)): .double(Double(i))
        case (.bool, .int64(let i)): .bool(i != 0)
        case (.date, .int64(let ms)): .date(ms)
        case (.data, .blob(let data)): .data(Array(data))
        case (.json, .string(let s)): (try? JSONLine.parse(Array(s.utf8))).map { .json($0) } ?? .null
        default: .null
        }
    }

    private static func bytes(_ value: DatabaseValue) -> [UInt8] {
        if case .blob(let data) = value.storage { return Array(data) }
        return []
    }

    private static func damaged(_ what: String) -> StoreError {
        StoreError(.segmentMalformed, "the store's cache holds \(what) that is not valid: it is rebuilt from the segments")
    }
}
