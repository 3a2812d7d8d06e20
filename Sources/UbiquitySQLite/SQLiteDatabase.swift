import CSQLite

/// A connection to one SQLite database file. Not for sharing between threads: its owner calls it
/// from one thread at a time (``SQLiteDatabase`` is not `Sendable`; keep it behind a `Mutex`).
///
/// Statements run with ``run(_:_:)`` and ``rows(_:_:)`` are prepared once and kept for the
/// connection's life, so a statement run per row costs no parsing after the first.
public final class SQLiteDatabase {
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating when missing) the database at `path`, waiting up to `busyTimeoutMilliseconds`
    /// for a lock another connection holds before failing with `SQLITE_BUSY`.
    public init(path: String, busyTimeoutMilliseconds: Int32 = 10_000) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(handle)
            throw SQLiteError(code: code, message: "cannot open \(path): \(message)", statement: "")
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit {
        statements.removeAll()          // finalised before the connection closes
        sqlite3_close_v2(handle)
    }

    /// Runs `sql`, one statement or several separated by `;`, without arguments; rows are ignored.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code)), statement: sql)
        }
    }

    /// Runs one statement with `arguments` bound to its `?` parameters in order; rows are ignored.
    public func run(_ sql: String, _ arguments: [SQLiteValue] = []) throws {
        let statement = try prepared(sql)
        defer { statement.finish() }
        try statement.bind(arguments)
        while try statement.step() {}
    }

    /// Calls `body` with each row of one statement, in order.
    public func forEachRow(_ sql: String, _ arguments: [SQLiteValue] = [], _ body: ([SQLiteValue]) throws -> Void) throws {
        let statement = try prepared(sql)
        defer { statement.finish() }
        try statement.bind(arguments)
        while try statement.step() { try body(statement.row()) }
    }

    /// Every row of one statement.
    public func rows(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        try forEachRow(sql, arguments) { rows.append($0) }
        return rows
    }

    /// The first column of the first row, or nil when there is no row.
    public func value(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> SQLiteValue? {
        let statement = try prepared(sql)
        defer { statement.finish() }
        try statement.bind(arguments)
        return try statement.step() ? statement.row().first : nil
    }

    /// Runs `body` in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`): committed
    /// when `body` returns, rolled back when it throws (the error is rethrown).
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        let result: T
        do {
            result = try body()
            try execute("COMMIT")
        } catch {
            // SQLite may have rolled back by itself already (a full disk, an I/O error).
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
        return result
    }

    /// The rowid of the last row inserted through this connection.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    private func prepared(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try SQLiteStatement(sql, in: self)
        statements[sql] = statement
        return statement
    }

    func error(_ code: Int32, _ sql: String) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), statement: sql)
    }
}
