import CSQLite

/// A call into SQLite that failed: its result code (extended codes included), SQLite's message,
/// and the statement it ran, so that a log line says what failed and where.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// SQLite's (extended) result code, e.g. 5 (`SQLITE_BUSY`) or 26 (`SQLITE_NOTADB`).
    public let code: Int32
    public let message: String
    /// The statement, shortened to its first 200 bytes; empty for opening and closing.
    public let statement: String

    public init(code: Int32, message: String, statement: String) {
        self.code = code
        self.message = message
        self.statement = statement.utf8.count > 200 ? String(decoding: statement.utf8.prefix(200), as: UTF8.self) + "…" : statement
    }

    /// The primary result code (the low byte of an extended one).
    public var primaryCode: Int32 { code & 0xff }

    /// Another connection holds a lock this one needed past the busy timeout: nothing is damaged.
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    public var description: String {
        let name = String(cString: sqlite3_errstr(code))
        let what = statement.isEmpty ? "" : " in `\(statement)`"
        return "SQLite error \(code) (\(name))\(what): \(message)"
    }
}
