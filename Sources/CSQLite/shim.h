// CSQLite — SQLite as Swift sees it (a system library target: libsqlite3-dev, pkg-config sqlite3).
//
// Owns: the header for SQLite's C interface, behind UbiquitySQLite (the stores' caches).
// Must not: hold code.
// Depends on: libsqlite3 (Debian 12: 3.40).
#include <sqlite3.h>
