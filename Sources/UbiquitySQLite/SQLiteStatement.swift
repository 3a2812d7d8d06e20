import CSQLite

/// One prepared statement of a ``SQLiteDatabase``, kept by it for reuse: bound, stepped through,
/// and reset after each use.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    private unowned let database: SQLiteDatabase

    init(_ sql: String, in database: SQLiteDatabase) throws {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v2(database.handle, sql, -1, &handle, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_finalize(handle)
            throw database.error(code, sql)
        }
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `arguments` to the statement's parameters, in order.
    func bind(_ arguments: [SQLiteValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.count == expected else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(arguments.count) arguments for \(expected) parameters", statement: sql)
        }
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch argument {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let value): code = sqlite3_bind_int64(handle, index, value)
            case .real(let value): code = sqlite3_bind_double(handle, index, value)
            case .text(let value):
                // By length, so that a text holding NUL keeps all of it; copied by SQLite (transient).
                var text = value
                code = text.withUTF8 { bytes in
                    guard let start = bytes.baseAddress, !bytes.isEmpty else {
                        return sqlite3_bind_text(handle, index, "", 0, Self.transient)     // a null pointer would bind NULL
                    }
                    return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        sqlite3_bind_text64(handle, index, $0, sqlite3_uint64(bytes.count), Self.transient, UInt8(SQLITE_UTF8))
                    }
                }
            case .blob(let bytes):
                // An empty blob is a blob, not a NULL (a null pointer would bind NULL).
                code = bytes.isEmpty ? sqlite3_bind_zeroblob(handle, index, 0)
                    : bytes.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress, sqlite3_uint64($0.count), Self.transient) }
            }
            guard code == SQLITE_OK else { throw database.error(code, sql) }
        }
    }

    /// Steps once: true when a row is ready to read, false when the statement is done.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw database.error(code, sql)
        }
    }

    /// The current row's values.
    func row() -> [SQLiteValue] {
        (0..<sqlite3_column_count(handle)).map(column)
    }

    private func column(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    /// Ends this use: the statement keeps no row and no binding, and holds no lock.
    func finish() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
