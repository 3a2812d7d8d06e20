#!/usr/bin/env bash
# store.fetch with where, a predicate over columns, a predicate over a relationship end, and
# related ids (docs/stores.md, "Measured"): 10,000 items, 5 tags, each item related to 2 tags
# (20,000 pairs), fetched over the daemon's socket by a Python client; the median of 9 round trips.
# Usage: Benchmarks/store/fetch.sh [DIRECTORY]   (after `swift build -c release --product ubiquityd`)
set -euo pipefail
cd "$(dirname "$0")/../.."
daemon=$PWD/.build/release/ubiquityd
work=${1:-$(mktemp -d)}
mkdir -p "$work/root/com.example.grocery/Documents" "$work/state"
STATE_DIRECTORY="$work/state" "$daemon" --root "$work/root" --socket "$work/s.sock" > "$work/daemon.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$work/s.sock" ] && break; sleep 0.1; done   # the daemon binds its socket

/usr/bin/python3 - "$work/s.sock" <<'PY'
import json, random, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
f = s.makefile("rwb")
n = 0
def req(obj):
    global n
    n += 1; obj["id"] = n
    f.write((json.dumps(obj, separators=(",", ":")) + "\n").encode()); f.flush()
    while True:
        line = json.loads(f.readline())
        if line.get("id") == n: return line
req({"op": "hello", "version": 1})
schema = {"version": 1, "tables": [
    {"name": "items", "columns": [{"name": "name", "type": "string", "nullable": False}, {"name": "quantity", "type": "integer"}]},
    {"name": "tags", "columns": [{"name": "name", "type": "string", "nullable": False}], "uniqueBy": ["name"]}],
    "relationships": [{"name": "tags", "from": "items", "to": "tags", "inverse": "items"}]}
req({"op": "store.open", "store": "grocery", "schema": schema})
tags = req({"op": "store.save", "store": "grocery", "changes": [{"insert": "tags", "values": {"name": t}}
            for t in ["mall", "market", "garden", "bakery", "pharmacy"]]})["result"]["inserted"]
random.seed(1)
for start in range(0, 10000, 2000):
    changes = []
    for i in range(start, start + 2000):
        item = "%032x" % (i + 1)
        changes.append({"insert": "items", "id": item, "values": {"name": "item%05d" % i, "quantity": i % 10}})
        changes += [{"relate": "tags", "from": item, "to": tags[t]} for t in random.sample(range(5), 2)]
    assert "result" in req({"op": "store.save", "store": "grocery", "changes": changes})
def timed(label, fields):
    times = []
    for _ in range(9):
        start = time.perf_counter()
        answer = req(dict({"op": "store.fetch", "store": "grocery", "table": "items"}, **fields))
        times.append(time.perf_counter() - start)
        assert "result" in answer, answer
    print("%-62s %5d rows  %4.0f ms" % (label, answer["result"]["count"], sorted(times)[4] * 1000))
timed("all rows", {})
timed("where quantity > 5", {"where": [{"column": "quantity", "op": ">", "value": 5}]})
timed("predicate quantity > 5", {"predicate": "quantity > 5"})
timed("predicate name BEGINSWITH 'item01'", {"predicate": "name BEGINSWITH 'item01'"})
timed("predicate tags CONTAINS 'mall'", {"predicate": "tags CONTAINS 'mall'"})
timed("predicate name BEGINSWITH 'item01' AND tags CONTAINS 'mall'", {"predicate": "name BEGINSWITH 'item01' AND tags CONTAINS 'mall'"})
timed("related tags, all rows", {"related": ["tags"]})
PY
