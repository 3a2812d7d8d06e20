import UbiquityJSON
import UbiquitySQLite
import UbiquityStore

/// The store's SQLite database (docs/stores.md, "The SQLite cache"): one table per store table
/// with typed columns (`t_<table>`), one per relationship with its pairs (`r_<relationship>`),
/// and the merge's own tables (`ubiq_*`): every row's and pair's register (tombstones are the
/// rows whose register says it is not alive), each device's watermark, the clock, the segment
/// being written, and the change log clients will read `since`.
///
/// A cache: everything in it follows from the segments, so it is rebuilt from them when it is
/// missing, damaged or of another schema version. Every function runs inside a database access
/// of ``DeviceStore`` (on its own queue), never on Swift's cooperative pool.
enum StoreCache {
    /// Raised when the layout of the cache tables changes: an older cache is rebuilt.
    static let format: Int64 = 1

    /// Creates the tables when missing. Returns false when the cache was made for another
    /// device, schema version or format, after emptying it: it must be rebuilt from the segments.
    static func prepare(_ db: SQLiteDatabase, schema: Schema, device: DeviceID) throws -> Bool {
        try db.execute("CREATE TABLE IF NOT EXISTS ubiq_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID")
        var meta: [String: SQLiteValue] = [:]
        try db.forEachRow("SELECT key, value FROM ubiq_meta") { meta[$0[0].text ?? ""] = $0[1] }
        let fits = meta["format"]?.integer == format
            && meta["device"]?.text == device.rawValue
            && meta["schemaVersion"]?.integer == Int64(schema.version)
        if !meta.isEmpty && !fits {
            for name in try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").compactMap({ $0[0].text }) {
                try db.execute("DROP TABLE \"\(name)\"")
            }
            try db.execute("CREATE TABLE ubiq_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID")
        }
        try db.execute("""
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
            try db.execute("CREATE TABLE IF NOT EXISTS \"t_\(table.name)\" (id TEXT PRIMARY KEY\(columns.map { ", " + $0 }.joined())) WITHOUT ROWID")
        }
        for r in schema.relationships {
            try db.execute("""
                CREATE TABLE IF NOT EXISTS "r_\(r.name)" (from_id TEXT NOT NULL, to_id TEXT NOT NULL, PRIMARY KEY (from_id, to_id)) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS "r_\(r.name)_to" ON "r_\(r.name)" (to_id, from_id);
                """)
        }
        for (key, value) in [("format", SQLiteValue.integer(format)), ("device", .text(device.rawValue)),
                             ("schemaVersion", .integer(Int64(schema.version)))] {
            try db.run("INSERT OR REPLACE INTO ubiq_meta (key, value) VALUES (?, ?)", [.text(key), value])
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
    static func load(_ db: SQLiteDatabase, schema: Schema, device: DeviceID) throws -> Contents {
        var rows: [RowRef: RowState] = [:]
        try db.forEachRow("SELECT tbl, id, register FROM ubiq_rows") { row in
            guard let table = row[0].text, let id = row[1].text.flatMap(RowID.init) else { throw damaged("a row id") }
            rows[RowRef(table: table, id: id)] = try StoreRegisters.decodeRow(row[2].blob ?? [])
        }
        var pairs: [PairKey: PairState] = [:]
        try db.forEachRow("SELECT rel, from_id, to_id, register FROM ubiq_pairs") { row in
            guard let relationship = row[0].text, let from = row[1].text.flatMap(RowID.init), let to = row[2].text.flatMap(RowID.init) else {
                throw damaged("a pair's row id")
            }
            pairs[PairKey(relationship: relationship, from: from, to: to)] = try StoreRegisters.decodePair(row[3].blob ?? [])
        }
        var imported: [DeviceID: UInt64] = [:]
        try db.forEachRow("SELECT device, imported FROM ubiq_devices") { row in
            guard let device = row[0].text.flatMap(DeviceID.init), let sequence = row[1].integer else { throw damaged("a device id") }
            imported[device] = UInt64(clamping: sequence)
        }
        var clock: HLC?
        if let ms = try db.value("SELECT value FROM ubiq_meta WHERE key = 'clockMilliseconds'")?.integer,
           let counter = try db.value("SELECT value FROM ubiq_meta WHERE key = 'clockCounter'")?.integer {
            clock = HLC(milliseconds: ms, counter: UInt32(clamping: counter), device: device)
        }
        let pending = try db.rows("SELECT sequence, segment FROM ubiq_pending ORDER BY sequence DESC LIMIT 1").first.map {
            (UInt64(clamping: $0[0].integer ?? 0), $0[1].blob ?? [])
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
    static func save(_ db: SQLiteDatabase, changes: [Change], before: [RowRef: RowState], after: StoreState) throws {
        let (rowRefs, pairKeys) = touched(by: changes, after.schema)
        try save(db, rows: rowRefs, pairs: pairKeys, before: before, after: after)
    }

    /// Writes the rows `rowRefs` and pairs `pairKeys` as `after` has them (a snapshot joined
    /// touches those it holds), as ``save(_:changes:before:after:)`` does.
    static func save(_ db: SQLiteDatabase, rows rowRefs: Set<RowRef>, pairs pairKeys: Set<PairKey>, before: [RowRef: RowState], after: StoreState) throws {
        var shownToCheck = pairKeys
        // Each table's statements, spelled once per save rather than once per row.
        var statements: [String: (insert: String, delete: String)] = [:]
        for table in after.schema.tables {
            let names = table.columns.map(\.name)
            statements[table.name] = (
                "INSERT OR REPLACE INTO \"t_\(table.name)\" (id\(names.map { ", \"\($0)\"" }.joined())) VALUES (?\(String(repeating: ", ?", count: names.count)))",
                "DELETE FROM \"t_\(table.name)\" WHERE id = ?")
        }
        var arguments: [SQLiteValue] = []
        for ref in rowRefs {
            guard let row = after.rowState(ref), let table = after.schema.table(ref.table), let sql = statements[ref.table] else { continue }
            let alive = row.isAlive(after.schema.deletes)
            let old = before[ref]
            if old?.generation != row.generation || (old?.isAlive(after.schema.deletes) ?? false) != alive {
                shownToCheck.formUnion(after.pairs(of: ref))
            }
            let id = SQLiteValue.text(ref.id.description)
            try db.run("INSERT OR REPLACE INTO ubiq_rows (tbl, id, alive, register) VALUES (?, ?, ?, ?)",
                       [.text(ref.table), id, .integer(alive ? 1 : 0), .blob(StoreRegisters.encode(row))])
            if alive {
                arguments.removeAll(keepingCapacity: true)
                arguments.append(id)
                for column in table.columns { arguments.append(databaseValue(row.value(column.name))) }
                try db.run(sql.insert, arguments)
            } else {
                try db.run(sql.delete, [id])
            }
        }
        for key in pairKeys {
            guard let pair = after.pairState(key) else { continue }
            try db.run("INSERT OR REPLACE INTO ubiq_pairs (rel, from_id, to_id, register) VALUES (?, ?, ?, ?)",
                       [.text(key.relationship), .text(key.from.description), .text(key.to.description), .blob(StoreRegisters.encode(pair))])
        }
        for key in shownToCheck {
            let sql = after.isShown(key) ? "INSERT OR IGNORE INTO \"r_\(key.relationship)\" (from_id, to_id) VALUES (?, ?)"
                                         : "DELETE FROM \"r_\(key.relationship)\" WHERE from_id = ? AND to_id = ?"
            try db.run(sql, [.text(key.from.description), .text(key.to.description)])
        }
    }

    /// Writes the floors `state` shrank rows to and removes the pair registers it dropped
    /// (neither shows: nothing in the typed or join tables changes).
    static func saveFloors(_ db: SQLiteDatabase, _ floors: StoreFloors, _ state: StoreState) throws {
        for ref in floors.rows {
            guard let row = state.rowState(ref) else { continue }
            try db.run("UPDATE ubiq_rows SET register = ? WHERE tbl = ? AND id = ?",
                       [.blob(StoreRegisters.encode(row)), .text(ref.table), .text(ref.id.description)])
        }
        for key in floors.droppedPairs {
            try db.run("DELETE FROM ubiq_pairs WHERE rel = ? AND from_id = ? AND to_id = ?",
                       [.text(key.relationship), .text(key.from.description), .text(key.to.description)])
        }
    }

    static func setImported(_ db: SQLiteDatabase, device: DeviceID, sequence: UInt64) throws {
        try db.run("INSERT OR REPLACE INTO ubiq_devices (device, imported) VALUES (?, ?)", [.text(device.rawValue), .integer(Int64(clamping: sequence))])
    }

    static func setClock(_ db: SQLiteDatabase, _ clock: HLC) throws {
        let sql = "INSERT OR REPLACE INTO ubiq_meta (key, value) VALUES (?, ?)"
        try db.run(sql, ["clockMilliseconds", .integer(clock.milliseconds)])
        try db.run(sql, ["clockCounter", .integer(Int64(clock.counter))])
    }

    /// Keeps the segment being written (only the latest: writes are one at a time).
    static func setPending(_ db: SQLiteDatabase, sequence: UInt64, bytes: [UInt8]) throws {
        try db.run("DELETE FROM ubiq_pending")
        try db.run("INSERT INTO ubiq_pending (sequence, segment) VALUES (?, ?)", [.integer(Int64(clamping: sequence)), .blob(bytes)])
    }

    static func clearPending(_ db: SQLiteDatabase) throws { try db.run("DELETE FROM ubiq_pending") }

    /// Appends an import's row to the change log; its token.
    static func logChange(_ db: SQLiteDatabase, device: DeviceID, sequence: UInt64, _ result: ImportResult) throws -> Int64 {
        func ids(_ refs: [RowRef]) -> SQLiteValue { .text(JSONLine.encode(.array(refs.map { .string($0.description) }))) }
        try db.run("INSERT INTO ubiq_changes (device, sequence, inserted, updated, deleted) VALUES (?, ?, ?, ?, ?)",
                   [.text(device.rawValue), .integer(Int64(clamping: sequence)), ids(result.inserted), ids(result.updatedRows), ids(result.deleted)])
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

    static func databaseValue(_ value: StoreValue) -> SQLiteValue {
        switch value {
        case .null: .null
        case .string(let s): .text(s)
        case .integer(let i): .integer(i)
        case .double(let d): .real(d)
        case .bool(let b): .integer(b ? 1 : 0)
        case .date(let ms): .integer(ms)
        case .data(let bytes): .blob(bytes)
        case .json(let json): .text(JSONLine.encode(json))
        }
    }

    /// A typed table's value back as the column's type; null for what the cache did not write.
    static func storeValue(_ value: SQLiteValue, _ type: ColumnType) -> StoreValue {
        switch (type, value) {
        case (_, .null): .null
        case (.string, .text(let s)): .string(s)
        case (.integer, .integer(let i)): .integer(i)
        case (.double, .real(let d)): .double(d)
        case (.double, .integer(let i)): .double(Double(i))
        case (.bool, .integer(let i)): .bool(i != 0)
        case (.date, .integer(let ms)): .date(ms)
        case (.data, .blob(let bytes)): .data(bytes)
        case (.json, .text(let s)): (try? JSONLine.parse(Array(s.utf8))).map { .json($0) } ?? .null
        default: .null
        }
    }

    private static func damaged(_ what: String) -> StoreError {
        StoreError(.segmentMalformed, "the store's cache holds \(what) that is not valid: it is rebuilt from the segments")
    }
}
