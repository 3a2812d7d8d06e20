#!/usr/bin/env bash
# A store's first measurements (docs/stores.md, "Measured"), until `make bench` runs them:
#   1. insert → acknowledged (SQLite commit + segment fsync) over 1,000 one-row transactions;
#   2. a fresh device importing another device's 100,000 row inserts (100 segments of 1,000),
#      next to the floor: the sqlite3 CLI inserting the same rows into the same typed table in
#      one transaction;
#   3. a snapshot of those rows, and a new device starting from it (docs/stores.md, "Snapshots and compaction").
# Usage: Benchmarks/store/measure.sh [DIRECTORY]   (after `swift build -c release --product store-rig`)
set -euo pipefail
cd "$(dirname "$0")/../.."
rig=.build/release/store-rig
work=${1:-$(mktemp -d)}
mkdir -p "$work"

mkdir -p "$work/commit"
"$rig" bench-commit "$work/commit" 1000

mkdir -p "$work/import/container"
"$rig" remote "$work/import/container" phone 100000 1000 >/dev/null
# The time includes starting the process and opening the store (a few ms).
start=$(date +%s%N)
"$rig" import "$work/import/container" "$work/import/cache.sqlite" laptop | tail -1
end=$(date +%s%N)
ours=$(( (end - start) / 1000000 ))

/usr/bin/python3 - "$work/floor.sql" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('CREATE TABLE "t_items" (id TEXT PRIMARY KEY, "name" TEXT, "quantity" INTEGER, "note" TEXT, "created" INTEGER, "done" INTEGER) WITHOUT ROWID;\nBEGIN;\n')
    for i in range(100000):
        f.write("INSERT INTO t_items VALUES ('b0b00000000000000000000000%06x', 'remote item %d', %d, NULL, NULL, %d);\n" % (i, i, i, 1 if i % 2 == 0 else 0))
    f.write("COMMIT;\n")
PY
start=$(date +%s%N)
sqlite3 "$work/floor.sqlite" < "$work/floor.sql"
end=$(date +%s%N)
floor=$(( (end - start) / 1000000 ))
echo "import of 100000 rows: ${ours} ms ($(( 100000000 / (ours > 0 ? ours : 1) )) rows/s), sqlite3 floor ${floor} ms; ratio $(/usr/bin/python3 -c "print(round($ours / max($floor, 1), 2))")"
du -b "$work/import/container/.ubiquity-stores/grocery/logs" | tail -1 | sed 's/^/log bytes: /'
ls -l "$work/import/cache.sqlite"* | awk '{s+=$5} END {print "cache bytes: " s}'
# 3. A snapshot of those rows (after one local commit), and a new device starting from it.
"$rig" bench-snapshot "$work/import/container" "$work/import/cache.sqlite" laptop
