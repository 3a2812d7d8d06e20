#!/usr/bin/env python3
"""The relational store's measurements (issue 35, docs/stores.md): one device's store through
store-rig (no daemon), and fetches and a live fetch through the real ubiquityd.

    store.py --rig R --ubiquityd U [--runs 3] [--rows 100000] [--live-samples 200]
             [--workdir DIR] [--out docs/benchmarks.md]

Each run, in a directory of its own:
  * commit: `store-rig bench-commit`, 1,000 one-row transactions, insert -> acknowledged (the
    cache's SQLite commit and the segment's fsync), p50 and p99; then the same in a store given
    --rows rows first;
  * batch: `store-rig bench-batch`, one transaction of 10,000 inserts, the same span;
  * import: another device's log of --rows row inserts (100 segments of 1,000, written by
    `store-rig remote`, not timed), then `store-rig import` on a fresh device, the process's
    wall time from fork to exit; next to it the floor, the sqlite3 CLI inserting the same rows
    into the same typed table in one transaction (the same SQL file every run);
  * snapshot: `store-rig bench-snapshot` on that device (writing a snapshot of every row; a new
    device starting from it), then bytes per row on disk: the segments, the snapshot, the cache;
  * fetch: a fresh ubiquityd, a store opened with store-rig's schema, --rows items saved in
    transactions of 2,000, then `store.fetch` of every row with `name LIKE 'item*'`, the median
    of 3 (send -> the complete answer line), next to `sqlite3 -readonly` running the same query
    (`LIKE 'item%'`) on the daemon's cache file, fork to exit, output to /dev/null;
  * live fetch: a `store.watch` of `name BEGINSWITH 'live'` on that store, and --live-samples
    saves of one row `live N` on a second connection: send -> the `store.update` naming it.
Every figure is the median of the runs next to the worst of them; ratios are taken run by run.
Writes the section "store" of --out.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from compare import BenchError, Ubiquityd, head_commit, log, write_section

IMPORT_GOAL_RATIO = 3.0
SEGMENT_ROWS = 1000
SAVE_ROWS = 2000
# store-rig's schema (Sources/store-rig/StoreRig.swift), as store.open takes it.
SCHEMA = {"version": 1, "tables": [
    {"name": "items", "columns": [{"name": "name", "type": "string", "nullable": False}, {"name": "quantity", "type": "integer"},
                                  {"name": "note", "type": "string"}, {"name": "created", "type": "date"},
                                  {"name": "done", "type": "bool"}]},
    {"name": "tags", "columns": [{"name": "name", "type": "string", "nullable": False}, {"name": "color", "type": "string"}],
     "uniqueBy": ["name"]}],
    "relationships": [{"name": "tags", "from": "items", "to": "tags", "inverse": "items"}]}
COLUMNS = "id, name, quantity, note, created, done"


def run(cmd, **kw):
    """Runs `cmd`; its stdout. A failure names the command and what it said."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} exited with {p.returncode}: {p.stderr.strip()[-500:]}")
    return p.stdout


def timed(cmd, stdin=None):
    """Seconds from fork to exit of `cmd` (stdout to /dev/null)."""
    start = time.monotonic()
    p = subprocess.run(cmd, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - start
    if p.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} exited with {p.returncode}: {p.stderr.strip()[-500:]}")
    return elapsed


def number(pattern, text):
    m = re.search(pattern, text)
    if not m:
        raise BenchError(f"no {pattern!r} in {text!r}")
    return float(m.group(1))


def tree_bytes(path):
    total = 0
    for base, _, files in os.walk(path):
        total += sum(os.lstat(os.path.join(base, f)).st_size for f in files)
    return total


def floor_sql(path, rows):
    """The floor's SQL: the rows store-rig remote writes, into the cache's typed table."""
    with open(path, "w") as f:
        f.write('CREATE TABLE "t_items" (id TEXT PRIMARY KEY, "name" TEXT, "quantity" INTEGER, "note" TEXT, '
                '"created" INTEGER, "done" INTEGER) WITHOUT ROWID;\nBEGIN;\n')
        for i in range(rows):
            f.write("INSERT INTO t_items VALUES ('b0b00000000000000000000000%06x', 'remote item %d', %d, NULL, NULL, %d);\n"
                    % (i, i, i, 1 if i % 2 == 0 else 0))
        f.write("COMMIT;\n")


def rig_run(args, work, sql):
    r = {}
    os.makedirs(os.path.join(work, "commit"))
    commit = run([args.rig, "bench-commit", os.path.join(work, "commit"), "1000"])
    r["commit_p50_ms"] = number(r"p50 (\d+) us", commit) / 1000
    r["commit_p99_ms"] = number(r"p99 (\d+) us", commit) / 1000
    # The same in a store that holds --rows rows already: a commit's cost follows the transaction,
    # not the store (the writer copies only the registers it touches).
    os.makedirs(os.path.join(work, "commit-full"))
    full = run([args.rig, "bench-commit", os.path.join(work, "commit-full"), "1000", str(args.rows)])
    r["commit_full_p50_ms"] = number(r"p50 (\d+) us", full) / 1000
    r["commit_full_p99_ms"] = number(r"p99 (\d+) us", full) / 1000
    os.makedirs(os.path.join(work, "batch"))
    batch = run([args.rig, "bench-batch", os.path.join(work, "batch"), "10000"])
    r["batch_ms"] = number(r": (\d+) us", batch) / 1000

    container = os.path.join(work, "import", "container")
    os.makedirs(container)
    run([args.rig, "remote", container, "phone", str(args.rows), str(SEGMENT_ROWS)])
    cache = os.path.join(work, "import", "cache.sqlite")
    r["import_s"] = timed([args.rig, "import", container, cache, "laptop"])
    floor_db = os.path.join(work, "floor.sqlite")
    with open(sql) as f:
        r["floor_s"] = timed(["sqlite3", floor_db], stdin=f)
    r["ratio"] = r["import_s"] / r["floor_s"]
    rows = int(run(["sqlite3", "-readonly", cache, "SELECT count(*) FROM t_items"]).strip())
    if rows != args.rows:
        raise BenchError(f"the import left {rows} rows, not {args.rows}")

    snap = run([args.rig, "bench-snapshot", container, cache, "laptop"])
    r["snapshot_ms"] = number(r"rows: (\d+) ms", snap)
    r["late_ms"] = number(r"rows in (\d+) ms", snap)
    store = os.path.join(container, ".ubiquity-stores", "grocery")
    r["segment_bpr"] = tree_bytes(os.path.join(store, "logs")) / args.rows
    r["snapshot_bpr"] = tree_bytes(os.path.join(store, "snapshots", "laptop")) / (args.rows + 1)
    r["cache_bpr"] = sum(os.path.getsize(p) for p in [cache, cache + "-wal"] if os.path.exists(p)) / (args.rows + 1)
    return r


class Client:
    """Requests on one connection of compare.py's client, events set aside for the caller."""

    def __init__(self, daemon):
        self.c = daemon.connect()
        self.next_id = 100
        self.events = []

    def request(self, obj, timeout=300):
        self.next_id += 1
        obj = dict(obj, id=self.next_id)
        self.c.send(obj)
        while True:
            line, at = self.c.recv_raw(timeout)
            if line is None:
                raise BenchError(f"no answer to {obj['op']} in {timeout} s")
            m = json.loads(line)
            if m.get("id") == self.next_id:
                if "result" not in m:
                    raise BenchError(f"{obj['op']}: {m}")
                return m["result"], at
            self.events.append((m, at))

    def event(self, predicate, timeout=60):
        for i, (m, at) in enumerate(self.events):
            if predicate(m):
                del self.events[i]
                return m, at
        while True:
            line, at = self.c.recv_raw(timeout)
            if line is None:
                raise BenchError(f"no awaited event in {timeout} s")
            m = json.loads(line)
            if predicate(m):
                return m, at
            self.events.append((m, at))


def daemon_run(args, work):
    r = {}
    root = os.path.join(work, "root")
    os.makedirs(os.path.join(root, "com.example.grocery", "Documents"))
    daemon = Ubiquityd(args.ubiquityd, {"base": root}, work)
    daemon.start()
    try:
        a = Client(daemon)
        a.request({"op": "store.open", "store": "grocery", "schema": SCHEMA})
        for start in range(0, args.rows, SAVE_ROWS):
            changes = [{"insert": "items", "id": "%032x" % (i + 1), "values": {"name": "item %06d" % i, "quantity": i % 10}}
                       for i in range(start, min(args.rows, start + SAVE_ROWS))]
            a.request({"op": "store.save", "store": "grocery", "changes": changes})
        times = []
        for _ in range(3):
            start = time.monotonic()
            result, at = a.request({"op": "store.fetch", "store": "grocery", "table": "items", "predicate": "name LIKE 'item*'"})
            times.append(at - start)
            if result["count"] != args.rows:
                raise BenchError(f"store.fetch found {result['count']} rows, not {args.rows}")
        r["fetch_ms"] = statistics.median(times) * 1000
        caches = [os.path.join(b, f) for b, _, fs in os.walk(daemon.state_path) for f in fs if f.endswith(".sqlite")]
        if len(caches) != 1:
            raise BenchError(f"expected one store cache under {daemon.state_path}, found {caches}")
        query = f"SELECT {COLUMNS} FROM t_items WHERE name LIKE 'item%'"
        count = int(run(["sqlite3", "-readonly", caches[0], f"SELECT count(*) FROM t_items WHERE name LIKE 'item%'"]).strip())
        if count != args.rows:
            raise BenchError(f"sqlite3 found {count} rows, not {args.rows}")
        r["sqlite_fetch_ms"] = statistics.median(timed(["sqlite3", "-readonly", caches[0], query]) for _ in range(3)) * 1000

        watch, _ = a.request({"op": "store.watch", "store": "grocery", "table": "items", "predicate": "name BEGINSWITH 'live'"})
        number_ = watch["watch"]
        a.event(lambda m: m.get("event") == "store.gatheringFinished" and m.get("watch") == number_)
        b = Client(daemon)
        b.request({"op": "store.open", "store": "grocery", "schema": SCHEMA})
        latencies = []
        for n in range(args.live_samples):
            row = "%032x" % (0xF000000 + n)
            start = time.monotonic()
            b.c.send({"id": 1_000_000 + n, "op": "store.save", "store": "grocery",
                      "changes": [{"insert": "items", "id": row, "values": {"name": f"live {n}"}}]})
            _, at = a.event(lambda m: m.get("event") == "store.update" and m.get("watch") == number_
                            and any(x.get("id") == row for x in m.get("added", [])))
            latencies.append(at - start)
            b.event(lambda m: m.get("id") == 1_000_000 + n)
        latencies.sort()
        r["live_p50_ms"] = latencies[len(latencies) // 2] * 1000
        r["live_p99_ms"] = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1000
    finally:
        daemon.stop()
    return r


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rig", required=True)
    ap.add_argument("--ubiquityd", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--live-samples", type=int, default=200)
    ap.add_argument("--workdir")
    ap.add_argument("--out")
    args = ap.parse_args()
    args.rig, args.ubiquityd = os.path.abspath(args.rig), os.path.abspath(args.ubiquityd)
    workdir = args.workdir or tempfile.mkdtemp(prefix="store-bench-")
    os.makedirs(workdir, exist_ok=True)
    sql = os.path.join(workdir, "floor.sql")
    floor_sql(sql, args.rows)
    load_before = load_average()
    runs = []
    for i in range(args.runs):
        work = os.path.join(workdir, f"run{i + 1}")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        log(f"run {i + 1} of {args.runs}: store-rig")
        r = rig_run(args, work, sql)
        log(f"run {i + 1} of {args.runs}: ubiquityd")
        r.update(daemon_run(args, work))
        log("  " + ", ".join(f"{k} {v:.3f}" for k, v in r.items()))
        runs.append(r)
        shutil.rmtree(work, ignore_errors=True)
    load_after = load_average()
    body = report(args, runs, load_before, load_after)
    print(body)
    if args.out:
        write_section(args.out, "store", body)
        log(f"wrote the section 'store' of {args.out}")


def report(args, runs, load_before, load_after):
    med = lambda k: statistics.median(r[k] for r in runs)
    worst = lambda k: max(r[k] for r in runs)
    ms = lambda k, d=1: f"{med(k):.{d}f} ms | {worst(k):.{d}f} ms"
    rows = args.rows
    commit = head_commit()
    ratio_ok = med("ratio") <= IMPORT_GOAL_RATIO
    lines = [
        "## Relational stores",
        "",
        f"`make bench-store` (Benchmarks/compare/store.py), release builds of git commit {commit}, "
        f"{len(runs)} run{'s' if len(runs) != 1 else ''}; "
        f"load average (1 min) {load_before:.1f} at the start, {load_after:.1f} at the end (2 cores, shared with other work). "
        "store-rig drives one device's store without a daemon (Grocery's schema; the cache in WAL mode); the fetches "
        "go through ubiquityd's socket. Each figure is the median of the runs, then the worst run; ratios are taken run by run.",
        "",
        "| measurement | median | worst |",
        "|---|---|---|",
        f"| insert → acknowledged (SQLite commit, segment `fsync`), 1,000 one-row transactions: p50 | {ms('commit_p50_ms', 2)} |",
        f"| the same: p99 | {ms('commit_p99_ms', 2)} |",
        f"| the same in a store of {rows:,} rows: p50 | {ms('commit_full_p50_ms', 2)} |",
        f"| the same in a store of {rows:,} rows: p99 | {ms('commit_full_p99_ms', 2)} |",
        f"| one transaction of 10,000 inserts → acknowledged | {ms('batch_ms', 0)} |",
        f"| a fresh device importing {rows:,} remote row inserts ({-(-rows // SEGMENT_ROWS):,} segments), process fork → exit | "
        f"{med('import_s') * 1000:.0f} ms ({rows / med('import_s'):,.0f} rows/s) | "
        f"{worst('import_s') * 1000:.0f} ms ({rows / worst('import_s'):,.0f} rows/s) |",
        f"| the floor: `sqlite3` inserting the same rows into the same table in one transaction | "
        f"{med('floor_s') * 1000:.0f} ms ({rows / med('floor_s'):,.0f} rows/s) | {worst('floor_s') * 1000:.0f} ms |",
        f"| import ÷ floor | {med('ratio'):.2f}× | {worst('ratio'):.2f}× |",
        f"| `store.fetch` of {rows:,} rows, `name LIKE 'item*'`, send → complete answer | {ms('fetch_ms', 0)} |",
        f"| `sqlite3 -readonly` running the same query on the daemon's cache, fork → exit | {ms('sqlite_fetch_ms', 0)} |",
        f"| a live fetch (`store.watch`, `name BEGINSWITH 'live'`, {rows:,} rows in the table): save on another connection → `store.update`, p50 | {ms('live_p50_ms', 1)} |",
        f"| the same: p99 ({args.live_samples} saves) | {ms('live_p99_ms', 1)} |",
        f"| writing a snapshot of {rows + 1:,} rows | {ms('snapshot_ms', 0)} |",
        f"| a new device starting from it | {ms('late_ms', 0)} |",
        f"| bytes per row on disk: segments | {med('segment_bpr'):.0f} | {worst('segment_bpr'):.0f} |",
        f"| bytes per row on disk: snapshot | {med('snapshot_bpr'):.0f} | {worst('snapshot_bpr'):.0f} |",
        f"| bytes per row on disk: the SQLite cache (registers, typed table, change log) | {med('cache_bpr'):.0f} | {worst('cache_bpr'):.0f} |",
        "",
        f"Goal (issue 35: import ≤ {IMPORT_GOAL_RATIO:.0f}× the sqlite3 floor): median {med('ratio'):.2f}×, worst run "
        f"{worst('ratio'):.2f}× — {'**met**' if ratio_ok else '**not met**'}"
        + ("" if worst("ratio") <= IMPORT_GOAL_RATIO or not ratio_ok else " on the median, not in the worst run") + ".",
        "",
        "The import's time is the whole process (start, opening the store, reading and checking every segment, merging, "
        "one SQLite transaction per segment with its watermark and change-log row); it ends without freeing the store "
        "row by row, as the daemon never frees a store after an import. The floor writes only the typed table; the "
        "store also writes every row's merge register (`ubiq_rows`) and the change log. The fetch through the daemon "
        "reads every row from the cache, evaluates the predicate and encodes the answer as JSON; sqlite3's time "
        "includes its start. A live fetch by the rows' own columns, as this one, reads again only the rows a change "
        "touched (docs/protocol.md, store.watch); its p99 includes the saves that wrote a snapshot of every row "
        "(one save in 50 writes one, and the update waits for it).",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    try:
        main()
    except BenchError as e:
        print(f"store.py: {e}", file=sys.stderr)
        sys.exit(1)
