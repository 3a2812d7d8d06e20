import Glibc
import Testing
import UbiquitySQLite

/// Our SQLite connection against real database files in a fresh directory per test.
@Suite("SQLite connection")
struct SQLiteDatabaseTests {
    /// A fresh directory and the path of a database in it, removed with the test's end.
    final class Scratch {
        let directory: String
        var path: String { directory + "/cache.sqlite" }

        init() throws {
            var template = Array("/tmp/ubiquity-sqlite-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw SQLiteError(code: errno, message: "mkdtemp failed", statement: "") }
            directory = String(cString: made)
        }

        deinit {
            for name in ["cache.sqlite", "cache.sqlite-wal", "cache.sqlite-shm", "other"] { unlink(directory + "/" + name) }
            rmdir(directory)
        }
    }

    @Test func everyStorageClassComesBackAsItWasStored() throws {
        let scratch = try Scratch()
        let db = try SQLiteDatabase(path: scratch.path)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v)")
        let values: [SQLiteValue] = [.null, .integer(Int64.min), .integer(Int64.max), .real(-0.5), .text(""), .text("carrots"),
                                     .text("a\u{0}b"), .text("грибы 🥕"), .blob([]), .blob([0, 255, 0])]
        for (key, value) in values.enumerated() { try db.run("INSERT INTO t (k, v) VALUES (?, ?)", [.integer(Int64(key)), value]) }
        let read = try db.rows("SELECT v FROM t ORDER BY k").map { $0[0] }
        #expect(read == values)
        #expect(try db.value("SELECT typeof(v) FROM t WHERE k = 8") == .text("blob"))     // empty, yet a blob
        #expect(try db.value("SELECT length(CAST(v AS BLOB)) FROM t WHERE k = 6") == .integer(3))   // the NUL kept
    }

    @Test func aTransactionThatThrowsLeavesNothingBehind() throws {
        struct Refused: Error {}
        let scratch = try Scratch()
        let db = try SQLiteDatabase(path: scratch.path)
        try db.execute("CREATE TABLE t (v INTEGER)")
        #expect(throws: Refused.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (1)")
                throw Refused()
            }
        }
        try db.transaction { try db.run("INSERT INTO t VALUES (2)") }
        #expect(try db.rows("SELECT v FROM t") == [[.integer(2)]])
        #expect(db.lastInsertedRowID == 1)
    }

    @Test func aStatementIsKeptAndRunsAgainWithOtherArguments() throws {
        let scratch = try Scratch()
        let db = try SQLiteDatabase(path: scratch.path)
        try db.execute("CREATE TABLE t (v TEXT); CREATE INDEX t_v ON t (v)")
        try db.transaction { for n in 0..<1_000 { try db.run("INSERT INTO t VALUES (?)", [.text("item \(n)")]) } }
        #expect(try db.value("SELECT count(*) FROM t WHERE v LIKE ?", ["item 99%"]) == .integer(11))
        #expect(try db.value("SELECT v FROM t WHERE v = ?", ["absent"]) == nil)
    }

    @Test func mistakesAreErrorsThatNameTheStatement() throws {
        let scratch = try Scratch()
        let db = try SQLiteDatabase(path: scratch.path)
        let syntax = try #require(throws: SQLiteError.self) { try db.run("SELEC 1") }
        #expect(syntax.primaryCode == 1)
        #expect(syntax.description.contains("SELEC 1"))
        let arity = try #require(throws: SQLiteError.self) { try db.run("SELECT ?", []) }
        #expect(arity.description.contains("0 arguments for 1 parameters"))
    }

    @Test func aLockHeldElsewhereIsBusyNotDamage() throws {
        let scratch = try Scratch()
        let holder = try SQLiteDatabase(path: scratch.path)
        try holder.execute("CREATE TABLE t (v INTEGER)")
        try holder.execute("BEGIN IMMEDIATE")
        let waiter = try SQLiteDatabase(path: scratch.path, busyTimeoutMilliseconds: 50)
        let busy = try #require(throws: SQLiteError.self) { try waiter.transaction { try waiter.run("INSERT INTO t VALUES (1)") } }
        #expect(busy.isBusy)
        try holder.execute("COMMIT")
        try waiter.transaction { try waiter.run("INSERT INTO t VALUES (1)") }
        #expect(try holder.value("SELECT count(*) FROM t") == .integer(1))
    }

    @Test func aFileThatIsNotADatabaseIsRefusedWhenRead() throws {
        let scratch = try Scratch()
        let fd = open(scratch.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        let garbage = [UInt8](repeating: 0x5a, count: 4096)
        #expect(garbage.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == 4096)
        close(fd)
        let db = try SQLiteDatabase(path: scratch.path)
        let error = try #require(throws: SQLiteError.self) { try db.execute("PRAGMA journal_mode = WAL; SELECT * FROM sqlite_master") }
        #expect(error.primaryCode == 26)       // SQLITE_NOTADB
        #expect(!error.isBusy)
    }

    @Test func aPathThatCannotBeOpenedSaysWhich() throws {
        let scratch = try Scratch()
        let missing = scratch.directory + "/no/such/dir/cache.sqlite"
        let error = try #require(throws: SQLiteError.self) { try SQLiteDatabase(path: missing) }
        #expect(error.description.contains(missing))
    }
}
