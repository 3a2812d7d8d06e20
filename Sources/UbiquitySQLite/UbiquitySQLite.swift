// UbiquitySQLite owns a connection to one SQLite database, as the relational stores' caches use it
// (docs/stores.md, "The SQLite cache"): open with the settings a cache wants, run statements with
// typed arguments (prepared once and kept), read rows as typed values, transactions that roll
// back when their body throws, and errors that name SQLite's code and the statement.
//
// Why not a general SQLite library: GRDB, the one on our package mirror, needs the whole of
// Foundation on Linux (formatters, regular expressions, NSNumber), which links ICU's 34 MB of data
// into the statically linked package; the caches need only the calls here (docs/operations.md,
// "Package size").
//
// Must not: share a connection between threads (a connection is used by one thread at a time: its
// owner serialises calls, e.g. behind a Mutex on its own queue); know what the tables mean.
//
// Depends on: CSQLite (Debian's libsqlite3).
