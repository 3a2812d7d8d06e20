#!/usr/bin/env python3
"""Clients as fast as the daemon: `grocery list` of 10,000 items, and `ubiq query --json` of the
100k tree's every entry against the time the daemon needs to send that answer.

    clients.py --ubiquityd U --grocery G --ubiq Q [--before DIR] [--rounds 3] [--runs 7] [--items 10000]
               [--size 100k] [--workdir DIR] [--out docs/benchmarks.md]

  * grocery: a container of --items item files (Item_<UUID>, names of 3-40 bytes, some not ASCII;
    fixed seed) under the workdir; one ubiquityd on it, running and warm (one list first); each
    sample is the wall time of `grocery list` from fork to exit, output to /dev/null; after each,
    the floor: the same item files read by `find | xargs -0 -P <cores> cat` (no daemon, no sorting,
    no table; every core), so that each round shows how fast the machine was while it ran;
  * ubiq: compare.py's tree of --size entries, one ubiquityd on it; each run times the raw answer
    first (this harness's own client on an open connection: query.start of
    `kMDItemFSName LIKE '*'` -> the complete gatheringFinished line, the time the daemon needs to
    send it), then `ubiq query --json` of the same predicate from fork to exit, output to /dev/null;
  * --before DIR: the same commands with DIR/grocery and DIR/ubiq (an older build), interleaved
    run by run with the new ones, and their output compared byte for byte.
--rounds separate rounds, each of both measurements with --runs runs (each measurement a daemon of
its own): the table's figures are min / median / max over every run of every round; each goal is
judged on the median of the rounds' medians, the worst round's shown beside it (issue 37 item 7).
Writes the section "clients" of --out.
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from compare import (DEFAULT_SEED, BenchError, SplitMix64, Ubiquityd, ensure_tree, goal_table, head_commit, human, log,
                     make_uuid, mmm, med, parse_size, portable_path, write_section)
from goal_charts import Bar, Panel, draw

GROCERY_CONTAINER = "com.example.grocery"
EVERYTHING = "kMDItemFSName LIKE '*'"
# Item names: plain words, accents, emoji; a number keeps them apart.
WORDS = ["milk", "eggs", "free-range eggs", "bread", "apples", "Käse", "🍎 pommes", "tea", "coffee beans",
         "olive oil", "crème fraîche", "rice"]
GROCERY_GOAL_MS = 150
UBIQ_GOAL_RATIO = 1.5


def ensure_grocery(workdir, items, seed):
    """workdir/grocery-<items>/com.example.grocery/Documents with `items` item files, reused when
    its manifest matches."""
    base = os.path.join(os.path.abspath(workdir), f"grocery-{items}")
    manifest_path = base + ".json"
    if os.path.exists(manifest_path) and os.path.isdir(base):
        with open(manifest_path) as f:
            if json.load(f) == {"seed": seed, "items": items}:
                log(f"reusing the list of {items:,} items in {base}")
                return {"base": base}
    shutil.rmtree(base, ignore_errors=True)
    documents = os.path.join(base, GROCERY_CONTAINER, "Documents")
    os.makedirs(documents)
    rng = SplitMix64(seed)
    for i in range(items):
        name = f"{WORDS[rng.next() % len(WORDS)]} {i}"
        with open(os.path.join(documents, "Item_" + make_uuid(rng)), "wb") as f:
            f.write(name.encode())
    with open(manifest_path, "w") as f:
        json.dump({"seed": seed, "items": items}, f)
    log(f"wrote a list of {items:,} items in {base}")
    return {"base": base}


def run_client(argv, stdout=subprocess.DEVNULL):
    """(wall seconds from fork to exit, CPU seconds user + system) of one client run."""
    t = time.monotonic()
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - t
    process.returncode = os.waitstatus_to_exitcode(status)
    error = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if process.returncode != 0:
        raise BenchError(f"{' '.join(argv)} exited with {process.returncode}: {error.strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def same_output(label, argv_new, argv_old, scratch):
    """Both builds print the same bytes (checked once, outside the timed runs)."""
    outputs = []
    for i, argv in enumerate((argv_new, argv_old)):
        path = os.path.join(scratch, f"{label}-{i}.out")
        with open(path, "wb") as f:
            run_client(argv, stdout=f)
        with open(path, "rb") as f:
            outputs.append(f.read())
    if outputs[0] != outputs[1]:
        raise BenchError(f"{label}: the new and the old build print different output")
    log(f"{label}: new and old output identical ({len(outputs[0]):,} bytes)")
    return len(outputs[0])


def raw_answer(daemon, c):
    """Seconds from query.start to the complete gatheringFinished line, and how many results."""
    daemon.next_id += 1
    t = time.monotonic()
    c.send({"id": daemon.next_id, "op": "query.start", "predicate": EVERYTHING, "scope": "documents", "live": False})
    while True:
        line, at = c.recv_raw(600)
        if line is None:
            raise BenchError("ubiquityd: no answer within 600 s")
        if b'"event":"query.gatheringFinished"' in line[:200]:
            answer = json.loads(line)
            # Released after the clock is read: a stopped query's results stay in the daemon until
            # then, and fifteen runs would otherwise hold 1.5M of them.
            daemon.next_id += 1
            c.send({"id": daemon.next_id, "op": "query.release", "query": answer["query"]})
            return at - t, answer["count"]


def floor_argv(tree, items):
    """Reading every item file on every core, and nothing else: what any `grocery list` must do
    at least, measured beside it (a shell pipeline; its CPU counts every process of it)."""
    documents = os.path.join(tree["base"], GROCERY_CONTAINER, "Documents")
    cores = os.cpu_count() or 2
    per = max(1, -(-items // cores))
    return ["sh", "-c", f"find {shlex.quote(documents)} -name 'Item_*' -type f -print0 "
                        f"| xargs -0 -P {cores} -n {per} cat"]


def measure_grocery(args, scratch):
    tree = ensure_grocery(args.workdir, args.items, args.seed)
    daemon = Ubiquityd(args.ubiquityd, tree, scratch)
    daemon.start()
    try:
        daemon.connect().close()     # answers once the first crawl is done
        builds = [("new", args.grocery)] + ([("old", os.path.join(args.before, "grocery"))] if args.before else [])
        argv = {label: [binary, "list", "--socket", daemon.sock_path] for label, binary in builds}
        floor = floor_argv(tree, args.items)
        for label, _ in builds:      # warm: the daemon's index, the item files' pages, the binary
            run_client(argv[label])
        run_client(floor)
        size = same_output("grocery list", argv["new"], argv["old"], scratch) if args.before else None
        wall = {label: [] for label, _ in builds}
        cpu = {label: [] for label, _ in builds}
        floor_wall, floor_cpu = [], []
        for run in range(args.runs):
            for label, _ in (builds if run % 2 == 0 else builds[::-1]):
                w, c = run_client(argv[label])
                wall[label].append(w)
                cpu[label].append(c)
            w, c = run_client(floor)
            floor_wall.append(w)
            floor_cpu.append(c)
            log(f"grocery list run {run + 1}: " + ", ".join(f"{label} {wall[label][-1] * 1000:.0f} ms" for label, _ in builds)
                + f"; the floor (cat of its files) {floor_wall[-1] * 1000:.0f} ms")
        return {"wall": wall, "cpu": cpu, "floor_wall": floor_wall, "floor_cpu": floor_cpu, "output_bytes": size}
    finally:
        daemon.stop()


def measure_ubiq(args, scratch):
    tree = ensure_tree(args.workdir, parse_size(args.size), args.seed)
    daemon = Ubiquityd(args.ubiquityd, tree, scratch)
    daemon.start()
    try:
        c = daemon.connect()
        builds = [("new", args.ubiq)] + ([("old", os.path.join(args.before, "ubiq"))] if args.before else [])
        argv = {label: [binary, "query", "--socket", daemon.sock_path, "--json", EVERYTHING] for label, binary in builds}
        raw_answer(daemon, c)
        for label, _ in builds:
            run_client(argv[label])
        size = same_output("ubiq query --json", argv["new"], argv["old"], scratch) if args.before else None
        raw, count = [], 0
        wall = {label: [] for label, _ in builds}
        cpu = {label: [] for label, _ in builds}
        for run in range(args.runs):
            seconds, count = raw_answer(daemon, c)
            raw.append(seconds)
            for label, _ in (builds if run % 2 == 0 else builds[::-1]):
                w, u = run_client(argv[label])
                wall[label].append(w)
                cpu[label].append(u)
            log(f"ubiq query run {run + 1}: daemon's answer {seconds * 1000:.0f} ms, "
                + ", ".join(f"{label} {wall[label][-1] * 1000:.0f} ms" for label, _ in builds))
        c.close()
        return {"raw": raw, "count": count, "wall": wall, "cpu": cpu, "output_bytes": size}
    finally:
        daemon.stop()


def merged(rounds):
    """The rounds' figures as one: every run of every round (the table's min / median / max)."""
    out = dict(rounds[-1])
    for key in ("wall", "cpu"):
        out[key] = {label: [v for r in rounds for v in r[key][label]] for label in rounds[0][key]}
    for key in ("raw", "floor_wall", "floor_cpu"):
        if key in out:
            out[key] = [v for r in rounds for v in r[key]]
    return out


def round_figures(grocery_rounds, ubiq_rounds):
    """Per round, what its goals judge: the median `grocery list` in ms, and the median
    `ubiq query --json` over the median raw answer."""
    return ([med(r["wall"]["new"]) * 1000 for r in grocery_rounds],
            [med(r["wall"]["new"]) / med(r["raw"]) for r in ubiq_rounds])


def floor_figures(grocery_rounds):
    """Per round, the median floor (cat of the item files) in ms."""
    return [med(r["floor_wall"]) * 1000 for r in grocery_rounds]


def chart(args, grocery_rounds, ubiq_rounds):
    """The two goals, each round's figure; the chart's file name, or None."""
    grocery_ms, ratios = round_figures(grocery_rounds, ubiq_rounds)
    return draw(args.out, "clients.svg", "Clients, the median run of each round", [
        Panel(f"grocery list, {args.items:,} items", "wall, fork → exit (ms)", GROCERY_GOAL_MS,
              f"goal ≤ {GROCERY_GOAL_MS} ms", [Bar("grocery list", grocery_ms),
                                               Bar("cat of its files (floor)", floor_figures(grocery_rounds), reference=True)]),
        Panel("ubiq query --json, every entry", "÷ the daemon's own answer (×)", UBIQ_GOAL_RATIO,
              f"goal ≤ {UBIQ_GOAL_RATIO}×", [Bar("ubiq query --json", ratios)])])


def report(args, grocery_rounds, ubiq_rounds, chart_file=None):
    def ms(values):
        return mmm(values, 1000, "{:.0f}")

    g, q = merged(grocery_rounds), merged(ubiq_rounds)

    before = bool(args.before)
    lines = [
        "## Clients: grocery list and ubiq query",
        "",
        f"`make bench-clients` (Benchmarks/compare/clients.py), release builds as the Debian package ships them "
        f"(the Swift runtime linked statically) of git commit "
        f"{head_commit()}, {args.rounds} rounds of {args.runs} runs "
        "(each round both measurements, each on a daemon of its own), the daemon running and warm; "
        f"load average {args.load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end "
        f"({os.cpu_count()} cores, shared with other work). `grocery list`: a container of "
        f"{args.items:,} item files (names of 3-40 bytes, some not ASCII), the table to /dev/null, wall time from "
        f"fork to exit. `ubiq query --json \"{EVERYTHING}\"` on compare.py's {human(parse_size(args.size))}-entry "
        f"tree ({q['count']:,} results), to /dev/null, against the daemon's own time for that answer: this harness "
        "sends the same query.start on an open connection and waits for the complete gatheringFinished line, "
        "before each run of ubiq (compare.py's client: one receive buffer kept for the connection, the clock read "
        "when the newline arrives; see its Method). Both decode the daemon's lines with UbiquityKit's JSONScanner "
        "(UbiquityProtocol), not Foundation's JSONDecoder. Milliseconds, min / median / max over every run of every round"
        + (f"; \"before\": the binaries in `{portable_path(args.before)}`, run interleaved with the new ones, "
           "their output identical byte for byte." if before else "."),
        "",
        "| measurement | wall | CPU (user + system) |" + (" before: wall | before: CPU |" if before else ""),
        "|---|---|---|" + ("---|---|" if before else ""),
    ]

    def row(title, result):
        cells = f"| {title} | {ms(result['wall']['new'])} | {ms(result['cpu']['new'])} |"
        if before:
            cells += f" {ms(result['wall']['old'])} | {ms(result['cpu']['old'])} |"
        return cells

    lines.append(row(f"`grocery list`, {args.items:,} items", g))
    lines.append(f"| the floor: the same {args.items:,} files read by `find … -print0 \\| xargs -0 -P {os.cpu_count()} cat` "
                 f"(no daemon, no sorting, no table), after each run of `grocery list` | {ms(g['floor_wall'])} | "
                 f"{ms(g['floor_cpu'])} |" + (" | |" if before else ""))
    lines.append(f"| the daemon's answer of {q['count']:,} results (this harness's client) | {ms(q['raw'])} | – |"
                 + (" | |" if before else ""))
    lines.append(row(f"`ubiq query --json`, {q['count']:,} results", q))
    grocery_ms, ratios = round_figures(grocery_rounds, ubiq_rounds)
    floors = floor_figures(grocery_rounds)
    grocery_worst = max(range(len(grocery_ms)), key=lambda i: grocery_ms[i])
    middle = sorted(range(len(ratios)), key=lambda i: ratios[i])[(len(ratios) - 1) // 2]
    worst = max(range(len(ratios)), key=lambda i: ratios[i])

    def ubiq_round(i):
        r = ubiq_rounds[i]
        return f"{ratios[i]:.2f}× ({med(r['wall']['new']) * 1000:.0f} against {med(r['raw']) * 1000:.0f} ms)"
    lines += [
        "",
        f"Goals (issue 14 item 6; issue 37 item 7: judged on the median of the {args.rounds} rounds' medians, the worst "
        "round beside it):",
        "",
        *goal_table([
            (f"`grocery list` of {args.items:,} items ≤ {GROCERY_GOAL_MS} ms",
             f"{med(grocery_ms):.0f} ms ({med(grocery_ms) / med(floors):.2f}× the floor's {med(floors):.0f} ms)"
             + (f" (before: {med(g['wall']['old']) * 1000:.0f} ms)" if before else ""),
             f"{grocery_ms[grocery_worst]:.0f} ms (the floor {floors[grocery_worst]:.0f} ms in that round)",
             med(grocery_ms) <= GROCERY_GOAL_MS),
            (f"`ubiq query --json` of {q['count']:,} results ≤ {UBIQ_GOAL_RATIO}× the daemon's answer",
             ubiq_round(middle) + (f"; before: {med(q['wall']['old']) / med(q['raw']):.2f}×" if before else ""),
             ubiq_round(worst), ratios[middle] <= UBIQ_GOAL_RATIO),
            ("answers decoded without Foundation's JSONDecoder", "UbiquityKit's Router reads every line with JSONScanner",
             "—", True)], args.rounds, "round"),
        "",
        "The goal is in milliseconds, on a virtual machine whose speed moves for minutes to hours at a time "
        "(Benchmarks/README.md, \"load: latency with both cores busy, and fan-out\"): the floor, measured in the same runs, says how fast the "
        "machine was while each round ran.",
        "",
    ]
    if chart_file:
        lines += [f"![clients against their goals, each round](benchmarks/{chart_file})", ""]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description="grocery list and ubiq query --json against the daemon's answer.")
    p.add_argument("--ubiquityd", required=True, help="the ubiquityd binary (release build)")
    p.add_argument("--grocery", required=True, help="the grocery binary (release build)")
    p.add_argument("--ubiq", required=True, help="the ubiq binary (release build)")
    p.add_argument("--before", default=None, help="a directory with older grocery and ubiq binaries to run interleaved")
    p.add_argument("--rounds", type=int, default=3, help="separate rounds of both measurements (default 3)")
    p.add_argument("--runs", type=int, default=7, help="timed runs of each command per round (default 7)")
    p.add_argument("--items", type=int, default=10_000, help="items in the grocery list (default 10000)")
    p.add_argument("--size", default="100k", help="the ubiq tree's size in entries (default 100k)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="tree generator seed (compare.py's)")
    p.add_argument("--workdir", default=None, help="where trees go; trees with a matching manifest are reused")
    p.add_argument("--out", default=None, help="write the section 'clients' of this report")
    args = p.parse_args()
    workdir_given = args.workdir is not None
    args.workdir = args.workdir or tempfile.mkdtemp(prefix="ubiquity-clients-")
    os.makedirs(args.workdir, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="c-", dir="/tmp")
    args.load_start = os.getloadavg()[0]
    if args.rounds < 1 or args.runs < 1:
        p.error("--rounds and --runs must be at least 1")
    grocery_rounds, ubiq_rounds = [], []
    try:
        for round_number in range(1, args.rounds + 1):
            log(f"round {round_number} of {args.rounds}")
            grocery_rounds.append(measure_grocery(args, scratch))
            ubiq_rounds.append(measure_ubiq(args, scratch))
    except BenchError as e:
        log(f"error: {e}")
        return 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if not workdir_given:
            shutil.rmtree(args.workdir, ignore_errors=True)
    text = report(args, grocery_rounds, ubiq_rounds, chart(args, grocery_rounds, ubiq_rounds))
    print(text)
    if args.out:
        write_section(args.out, "clients", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
