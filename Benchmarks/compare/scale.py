#!/usr/bin/env python3
"""What grows with the tree: ubiquityd against Watchman on compare.py's default-shape trees of
100k, 1M and 5M entries, every cost per entry (or per result, or per change), and how much each grew
from the second-largest size to the largest, judged against the growth of the tree.

    scale.py --ubiquityd U [--sizes 100k,1M,5M] [--runs 3] [--workdir DIR] [--keep-trees] [--out docs/benchmarks.md]

--runs rounds; round k measures run k of every size, the first size one further along each round
(compare.py's METHOD_TEXT, "Rounds"). A run of a size is compare.py's measure_run (find cold and
warm; per daemon a cold start when the trees are on a disk, and a warm one: start -> first complete
answer of the Item_* files, RssAnon right after it, --query-repeats full and one-match answers,
--latency-samples creations for the change -> notification latency; no burst), then restart.py's
measure_restart (a clock kept over a restart with --changes changes made meanwhile; ubiquityd's
restart with the saved index, exact and with freshness "saved"), each with its steal. Every answer
is checked as those scripts check it. Every tree is made (or reused) first, so all of them are on
the disk at once; scripts/ensure-watch-limit makes room for one inotify watch per directory of the
largest.
Writes the section "scale" of --out (and docs/benchmarks/scale.svg beside it, unless --no-charts).
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from types import SimpleNamespace

from compare import (DEFAULT_SEED, REPO, BenchError, chart_dir, drop_caches, ensure_tree, head_commit, human, in_rounds,
                     log, machine_facts, measure_run, med, parse_size, percentile, portable_path, remove_tree, run_steals,
                     write_section)
from restart import measure_restart

# How much faster than the tree a cost may grow, from the second-largest size to the largest, before
# it is called super-linear: its growth divided by the tree's at most 1.25. Why 1.25: the medians
# of two sizes are each off by up to about ±10% from run to run on this shared 2-core machine
# (docs/benchmarks.md: warm crawl at 1M 2.52–2.86 s, full answer 43.8–55.5 ms), so their quotient by
# up to about 25%; a cost growing with the tree's square grows 5× faster from 1M to 5M, one growing
# with n^1.15 already 1.27×. A factor log n (1.12× from 1M to 5M) is within it: this harness cannot
# tell it from noise, and says so.
TOLERANCE = 1.25
DAEMONS = ("ubiquityd", "watchman")


def warm(r, daemon, key):
    return r[daemon]["warm"][key]


def cold_crawl(r, daemon):
    return r[daemon]["cold"]["crawl_s"] if "cold" in r[daemon] else None


def restart_figure(key, daemon="ubiquityd"):
    def figure(restart, _):
        value = restart[daemon][key]
        return float(value) if value is not None else None
    return figure


# The rows: (title, per, scale, unit, figure per daemon). `per` is what a raw figure is divided by:
# "entry" (the tree's entries), "result" (its Item_* files, the answer's results) or None (one
# answer, one change: not divided). A figure takes (a compare.py run or a restart.py result, the
# size's facts) and gives the raw figure; find's crawl stands beside the daemons' as the floor.
WARM_CRAWL = "crawl, warm: start → first complete answer"
COLD_CRAWL = "crawl, cold: start → first complete answer"
RESTART_ANSWER = "restart → answer to a clock from before it (Watchman: a fresh instance)"
RESTART_VERIFIED = "restart → `query.verified`, freshness \"saved\""
SAVE_WRITTEN = "saved index written in (from its log)"
FIND = "find -printf"
# The floor of writing the saved index: its bytes written to a new file and synced (restart.py).
WRITE_FLOOR = "write + fsync of its bytes"
MEASURES = [
    (WARM_CRAWL, "entry", 1e6, "µs",
     {"ubiquityd": lambda r, _: warm(r, "ubiquityd", "crawl_s"), "watchman": lambda r, _: warm(r, "watchman", "crawl_s"),
      FIND: lambda r, _: r["find_warm"]}),
    (COLD_CRAWL, "entry", 1e6, "µs",
     {"ubiquityd": lambda r, _: cold_crawl(r, "ubiquityd"), "watchman": lambda r, _: cold_crawl(r, "watchman"),
      FIND: lambda r, _: r.get("find_cold")}),
    ("private memory (RssAnon) after the first answer", "entry", 1, "B",
     {d: (lambda r, _, d=d: warm(r, d, "anon_kib") * 1024) for d in DAEMONS}),
    ("full `Item_*` answer, to the last byte", "result", 1e6, "µs",
     {d: (lambda r, _, d=d: med(warm(r, d, "query_full_s"))) for d in DAEMONS}),
    ("one-match answer, to the last byte", None, 1e3, "ms",
     {d: (lambda r, _, d=d: med(warm(r, d, "query_one_s"))) for d in DAEMONS}),
    ("change → notification, p50", None, 1, "ms",
     {d: (lambda r, _, d=d: percentile(warm(r, d, "latency_ms"), 50)) for d in DAEMONS}),
    ("change → notification, p99", None, 1, "ms",
     {d: (lambda r, _, d=d: percentile(warm(r, d, "latency_ms"), 99)) for d in DAEMONS}),
]
RESTART_MEASURES = [
    (RESTART_ANSWER, "entry", 1e6, "µs", {d: restart_figure("restart_answer_s", d) for d in DAEMONS}),
    ("restart → first answer, freshness \"saved\" (unverified), the query live at the stop (remembered)", "entry", 1e6, "µs",
     {"ubiquityd": restart_figure("saved_first_s")}),
    ("restart → first answer, freshness \"saved\" (unverified), a query not asked before the stop", "entry", 1e6, "µs",
     {"ubiquityd": restart_figure("loaded_first_s")}),
    (RESTART_VERIFIED, "entry", 1e6, "µs", {"ubiquityd": restart_figure("saved_verified_s")}),
    ("saved index on disk", "entry", 1, "B", {"ubiquityd": restart_figure("snapshot_bytes")}),
    (SAVE_WRITTEN, "entry", 1e3, "µs",
     # The floor is absent from the runs of scale.py before 2026-11-30: the row is left out there.
     {"ubiquityd": restart_figure("save_ms"), WRITE_FLOOR: lambda restart, _: restart["ubiquityd"].get("write_floor_ms")}),
    ("saved index loaded in (from its log)", "entry", 1e3, "µs", {"ubiquityd": restart_figure("restore_ms")}),
]

# The costs bound by the disk, each with its floor (a measurement and its row), which any program
# pays on the same trees: a start's crawl, and a restart's, which checks the saved index against every
# directory (Watchman's fresh instance crawls the tree again), against `find` (every restart follows
# a `find` of the tree, so its floor is the warm one); the saved index's write against writing and
# syncing the same bytes.
FLOORS = {WARM_CRAWL: (WARM_CRAWL, FIND), COLD_CRAWL: (COLD_CRAWL, FIND), RESTART_ANSWER: (WARM_CRAWL, FIND),
          RESTART_VERIFIED: (WARM_CRAWL, FIND), SAVE_WRITTEN: (SAVE_WRITTEN, WRITE_FLOOR)}
FLOOR_ROWS = {row for _, row in FLOORS.values()}


def unit_count(per, facts):
    return {"entry": facts["entries"], "result": facts["items"], None: 1}[per]


def figures(results, sizes):
    """Per measure and daemon: per size, the raw figure of every run (None where not measured)."""
    table = []
    for measures, source in ((MEASURES, "runs"), (RESTART_MEASURES, "restarts")):
        for title, per, scale, unit, by_daemon in measures:
            rows = {}
            for daemon, figure in by_daemon.items():
                per_size = {}
                for n in sizes:
                    values = [figure(x, results[n]) for x in results[n][source]]
                    values = [v for v in values if v is not None]
                    if values:
                        per_size[n] = values
                if per_size:
                    rows[daemon] = per_size
            if rows:
                table.append((title, per, scale, unit, rows))
    return table


def verdict(growth, tree_growth, floor_growth=None, floor=None):
    """How a cost grew against the tree: flat, at most linear, or faster than the tree. A cost bound
    by the disk has a `floor_growth`, its floor's (``FLOORS``) on the same trees: a cost that grows
    faster than the tree, but no faster than its floor (within the tolerance), grows with the floor
    (the disk's cost per entry)."""
    if growth <= TOLERANCE:
        return "flat"
    if growth / tree_growth <= TOLERANCE:
        return "≤ linear"
    if floor_growth and growth / floor_growth <= TOLERANCE:
        return f"with the floor (`{floor}` grew {floor_growth:.2f}×)"
    return "**faster than the tree**"


def report(args, results, sizes, machine, wall_s, charted):
    """The section "scale" (Markdown) from the figures of every size."""
    small, big = sizes[-2], sizes[-1]
    tree_growth = results[big]["entries"] / results[small]["entries"]
    table = figures(results, sizes)
    lines = [
        f"## Scale: {human(sizes[0])} to {human(big)} entries",
        "",
        f"`make bench-5m` (Benchmarks/compare/scale.py), the release build as the Debian package ships it"
        + (f" of git commit {args.commit}" if args.commit else "") + ", "
        f"the default shape of compare.py at {', '.join(human(n) for n in sizes)} entries on {machine['fs']}, "
        f"runs per size: {args.runs}; wall time **{wall_s / 60:.1f} min**, tree generation included "
        f"(`{' '.join(['scale.py'] + args.argv)}`). The runs go in rounds: round k measures run k of every "
        "size, the first size one further along each round, so that a few minutes in which the machine is busy "
        "elsewhere cost one run of a size or two, not every run of one size. Per size and run: compare.py's measurements "
        f"(find, then each daemon {'cold and ' if args.cold else ''}warm: start → first complete answer of the "
        f"`Item_*` files, RssAnon right after it, {args.query_repeats} full answers (skimmed, each checked against a parsed one: the Method's \"Repeated full answers\") and as many one-match answers, "
        f"{args.latency_samples:,} single-file creations under a live query), then restart.py's "
        f"({args.changes:,} changes while each daemon is down, a clock from before the restart; ubiquityd's saved "
        "index); each timed warm start and each restart right after a `find` of the tree (Benchmarks/README.md, "
        "\"Warm caches\": this machine pages out what was idle for a minute). Each cell is the figure per entry of the tree (per result for the full answer, whose results are "
        "the tree's `Item_*` files; as it is for one answer or one change): the median of the runs, the worst "
        "run after it.",
        "",
        f"**Growth** is the median at {human(big)} ÷ the median at {human(small)}; the tree grew "
        f"{tree_growth:.2f}×. *vs linear* divides the growth by the tree's: a cost that grows with the tree "
        f"is 1×. A cost is *flat* when it grew at most {TOLERANCE}×, *≤ linear* when its growth is at most "
        f"{TOLERANCE}× the tree's, and **faster than the tree** otherwise. {TOLERANCE}×: the medians of two "
        "sizes each move by up to about ±10% from run to run on a shared 2-core machine, so their quotient by "
        f"up to about 25%; a part growing with the square of the tree would show {tree_growth:.1f}×, one growing "
        f"with n^1.15 {tree_growth ** 0.15:.2f}×. A crawl is also set against `find` on the same trees, the "
        "floor: on the disk a crawl's cost per entry can grow with the tree for every reader (see `find`'s "
        "rows). A start's crawl is set against `find` cold or warm as it is; a restart's check of the saved index "
        "against every directory (restart → answer, restart → `query.verified`; each restart follows a `find` of "
        "the tree) against the warm `find`. The saved index's write is set against writing its bytes to a new "
        "file beside it and syncing them (`write + fsync`, timed right after the daemon's stop): it writes "
        "tens of bytes per entry and waits for the disk. A cost that grows faster than the tree but no more than "
        f"{TOLERANCE}× its floor's growth is marked *with the floor*, not faster than the tree. A factor log n ({math.log(results[big]['entries']) / math.log(results[small]['entries']):.2f}× "
        f"from {human(small)} to {human(big)}) is within {TOLERANCE}×: this measurement cannot tell it from noise.",
        "",
        "| measurement | unit | daemon | " + " | ".join(human(n) for n in sizes) +
        f" | growth {human(small)} → {human(big)} | vs linear | | ours ÷ Watchman at {human(big)} |",
        "|---|---|---|" + "---|" * len(sizes) + "---|---|---|---|",
    ]
    measured = {title: rows for title, _, _, _, rows in table}
    faster = []
    for title, per, scale, unit, rows in table:
        unit_text = f"{unit} per {per}" if per else unit
        for daemon, per_size in rows.items():
            cells = []
            for n in sizes:
                values = [v * scale / unit_count(per, results[n]) for v in per_size.get(n, [])]
                cells.append(f"{figure_text(med(values))} ({figure_text(max(values))})" if values else "—")
            if small in per_size and big in per_size:
                growth = med(per_size[big]) / med(per_size[small])
                floor_title, floor_name = FLOORS.get(title, (None, None))
                floor = measured.get(floor_title, {}).get(floor_name) if daemon not in FLOOR_ROWS else None
                floor_growth = (med(floor[big]) / med(floor[small])
                                if floor and small in floor and big in floor and med(floor[small]) else None)
                mark = verdict(growth, tree_growth, floor_growth, floor_name)
                if daemon == "ubiquityd" and mark.startswith("**"):
                    faster.append(title)
                growth_cells = f"{growth:.2f}× | {growth / tree_growth:.2f}× | {mark if daemon == 'ubiquityd' else mark.strip('*')}"
            else:
                growth_cells = "— | — |"
            theirs = rows.get("watchman", {}).get(big)
            versus = (f"{med(per_size[big]) / med(theirs):.2f}×"
                      if daemon == "ubiquityd" and theirs and big in per_size and med(theirs) else "")
            lines.append(f"| {title} | {unit_text} | {daemon} | " + " | ".join(cells) + f" | {growth_cells} | {versus} |")
    lines += [
        "",
        f"Goal (issue 37 item 6: no cost of ubiquityd grows faster than the tree, {human(small)} → {human(big)}): "
        + (f"**not met**: {'; '.join(faster)}." if faster else
           f"**met**: every cost measured is flat, within {TOLERANCE}× of linear, or a cost bound by the disk "
           "growing with its floor (`find`, or writing and syncing the same bytes, on the same trees)."),
        "",
        "Trees: " + "; ".join(
            f"{human(n)}: {results[n]['entries']:,} entries, {results[n]['directories']:,} directories (an inotify "
            f"watch each), {results[n]['items']:,} `Item_*` files, generated in {results[n]['generated_s']:.1f} s"
            + (" (reused)" if results[n]["reused"] else "") for n in sizes) + ".",
        "",
        "Steal per run (the share of the processors the hypervisor gave to other guests while the run went on, "
        "from `/proc/stat`; it slows both daemons for reasons neither has): " + "; ".join(
            f"{human(n)}: {run_steals(results[n]['runs'])} (restarts: {run_steals(results[n]['restarts'])})"
            for n in sizes) + ".",
        "",
        WHERE_TEXT.strip(),
        "",
    ]
    if charted:
        lines += [f"![ubiquityd's costs per entry ÷ at {human(small)}](benchmarks/scale.svg)", ""]
    return "\n".join(lines)


def figure_text(v):
    return f"{v:.3g}" if v < 100 else f"{v:,.0f}"


WHERE_TEXT = """
Where the trees go: on the disk (`--workdir`, default a new directory under `$TMPDIR`). An entry
takes a 4 KiB block on ext4 and a 4 KiB page on tmpfs alike (files of 1–64 bytes: a default tree of
100k entries took 403 MB on ext4 and 394 MB on /dev/shm), so 5M entries take about 20 GB either way:
most of this machine's 24 GiB of memory on tmpfs, whose inodes (about 3.1M on /dev/shm here) run out
first anyway. Empty files would fit, but would be another tree than the smaller ones it is
compared with. On the disk the cold crawls, which tmpfs cannot give, are measured too, and
generating costs little more (100k: 5.1 s on ext4, 3.3 s on tmpfs; each tree's time is above).
compare.py refuses a tree its file system has no room for before writing it.
"""


def chart(results, sizes, outdir):
    """Each of ubiquityd's per-entry (and per-result) costs relative to the same cost at the
    second-largest size, against the tree's size: at the largest size, a point within the tolerance
    line is a cost that grew no faster than the tree."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams["svg.hashsalt"] = "ubiquity-benchmarks"
    os.makedirs(outdir, exist_ok=True)
    reference = sizes[-2]
    fig, ax = plt.subplots(figsize=(9.5, 4.2))
    xs = [results[n]["entries"] for n in sizes]
    for title, per, _, _, rows in figures(results, sizes):
        per_size = rows.get("ubiquityd", {})
        if per is None or reference not in per_size:
            continue
        base = med(per_size[reference]) / unit_count(per, results[reference])
        points = [(x, med(per_size[n]) / unit_count(per, results[n]) / base) for x, n in zip(xs, sizes) if n in per_size]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=title.split(" (")[0].replace("`", ""))
    ax.axhline(1, color="#7a7a7a", linewidth=0.8)
    ax.axhline(TOLERANCE, color="#c0392b", linestyle="--", linewidth=1, label=f"{TOLERANCE}× (tolerance)")
    ax.set_xscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels([human(n) for n in sizes])
    ax.minorticks_off()
    ax.set_xlabel("entries in the tree (log)")
    ax.set_ylabel(f"cost per entry ÷ at {human(reference)}")
    ax.set_title("ubiquityd's costs per entry (per result: the full answer) as the tree grows", fontsize=10)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "scale.svg"), format="svg", metadata={"Date": None})
    plt.close(fig)


def watches_for(tree):
    """Makes room for one inotify watch per directory of `tree` (scripts/ensure-watch-limit)."""
    directories = tree["directories"] + tree["packages"]
    done = subprocess.run([os.path.join(REPO, "scripts", "ensure-watch-limit"), str(directories)],
                          capture_output=True, text=True)
    if done.stdout.strip():
        log(done.stdout.strip())
    if done.returncode != 0:
        raise BenchError(f"the tree has {directories:,} directories, one inotify watch each: "
                         f"{done.stderr.strip() or 'scripts/ensure-watch-limit failed'}")


def measure_sizes(args, workdir, scratch, sizes, dropped, fstype):
    """Every size's trees made first, then the runs in rounds over the sizes: per size, its facts
    and the figures of its runs and restarts."""
    trees, results = {}, {}
    for size in sizes:
        t = time.monotonic()
        reused = os.path.exists(os.path.join(workdir, f"tree-{size}.json"))
        trees[size] = tree = ensure_tree(workdir, size, args.seed)
        results[size] = {"entries": tree["entries"], "items": len(tree["items"]),
                         "directories": tree["directories"] + tree["packages"],
                         "generated_s": time.monotonic() - t, "reused": reused, "runs": [], "restarts": []}
    watches_for(max(trees.values(), key=lambda tree: tree["directories"] + tree["packages"]))
    for run in range(args.runs):
        for size in in_rounds(sizes, run):
            results[size]["runs"].append(
                measure_run(args, trees[size], scratch, "default", size, run, args.runs, True, args.cold, dropped, fstype))
            log(f"restart, size {human(size)}, run {run + 1}/{args.runs}")
            results[size]["restarts"].append(measure_restart(args, trees[size], scratch))
    return results


def main():
    p = argparse.ArgumentParser(description="Per-entry costs of ubiquityd and Watchman from 100k to 5M entries.")
    p.add_argument("--ubiquityd", required=True, help="the ubiquityd binary (release build)")
    p.add_argument("--watchman", default="watchman", help="the watchman binary")
    p.add_argument("--sizes", default="100k,1M,5M", help="tree sizes, at least two (default 100k,1M,5M); "
                                                        "growth is judged from the second-largest to the largest")
    p.add_argument("--runs", type=int, default=3, help="runs per size, of the crawls and of the restart (default 3)")
    p.add_argument("--latency-samples", type=int, default=1000, help="single-file creations per run (default 1000)")
    p.add_argument("--query-repeats", type=int, default=9,
                   help="one-shot queries per run (default 9: at 5M one run's full answers spread from 120 to "
                        "500 ms, and the medians of 5 moved from 143 to 348 ms between runs; each answer is "
                        "released once read)")
    p.add_argument("--changes", type=int, default=1000, help="changes while the daemons are down (default 1000)")
    p.add_argument("--settle", type=int, default=1, help="watchman settle in ms (default 1, as compare.py)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="tree generator seed (compare.py's)")
    p.add_argument("--workdir", default=None, help="where trees go (default: a new directory under $TMPDIR); "
                                                   "trees with a matching manifest there are reused")
    p.add_argument("--keep-trees", action="store_true", help="leave the trees in place")
    p.add_argument("--out", default=None, help="write the section 'scale' of this report")
    p.add_argument("--no-charts", action="store_true", help="no docs/benchmarks/scale.svg (no matplotlib needed)")
    p.add_argument("--report-from", metavar="SCALE_JSON", default=None,
                   help="measure nothing: write the section (--out) and its chart again from the scale.json of an "
                        "earlier run")
    args = p.parse_args()
    if args.report_from:
        return report_again(args, p)
    try:
        sizes = sorted({parse_size(s) for s in args.sizes.split(",") if s.strip()})
    except argparse.ArgumentTypeError as e:
        p.error(str(e))
    if len(sizes) < 2:
        p.error("--sizes needs at least two sizes: growth is judged between the two largest")
    if args.runs < 1 or args.changes < 4:
        p.error("--runs must be at least 1 and --changes at least 4")
    if shutil.which(args.watchman) is None:
        p.error(f"no watchman binary '{args.watchman}'")
    if not os.access(args.ubiquityd, os.X_OK):
        p.error(f"no ubiquityd binary at {args.ubiquityd}")
    charts_wanted = bool(args.out) and not args.no_charts
    args.argv = [portable_path(a) for a in sys.argv[1:]]
    # What compare.py's measure_run reads of its options: no burst.
    args.smoke, args.burst = False, 0
    workdir = args.workdir or tempfile.mkdtemp(prefix="ubiquity-scale-")
    os.makedirs(workdir, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="sc-", dir="/tmp")  # short: sun_path holds 108 bytes
    machine = machine_facts(workdir)
    in_memory = machine["fstype"] in ("tmpfs", "ramfs")
    dropped = not in_memory and drop_caches()
    args.cold = not in_memory
    started = time.monotonic()
    try:
        results = measure_sizes(args, workdir, scratch, sizes, dropped, machine["fstype"])
    except BenchError as e:
        log(f"error: {e}")
        return 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if not args.keep_trees:
            for size in sizes:
                remove_tree(workdir, size)
            if args.workdir is None:
                shutil.rmtree(workdir, ignore_errors=True)
    run = {"argv": args.argv, "runs": args.runs, "cold": args.cold, "query_repeats": args.query_repeats,
           "latency_samples": args.latency_samples, "changes": args.changes, "machine": machine,
           "wall_s": time.monotonic() - started, "commit": head_commit()}
    if args.out:
        # The raw figures first: the section can be written again from them (--report-from).
        os.makedirs(chart_dir(args.out), exist_ok=True)
        with open(os.path.join(chart_dir(args.out), "scale.json"), "w") as f:
            json.dump({"run": run, "results": {str(n): r for n, r in results.items()}}, f)
    return render(args, run, results, charts_wanted)


def render(args, run, results, charts_wanted):
    """Prints the section, and writes it (and its chart) into --out."""
    sizes = sorted(results)
    for key in ("argv", "runs", "cold", "query_repeats", "latency_samples", "changes"):
        setattr(args, key, run[key])
    args.commit = run.get("commit")     # not in the figures of a scale.py before it named the commit
    if charts_wanted:
        chart(results, sizes, chart_dir(args.out))
    text = report(args, results, sizes, run["machine"], run["wall_s"], charts_wanted)
    print(text)
    if args.out:
        write_section(args.out, "scale", text)
    return 0


def report_again(args, p):
    if not args.out:
        p.error("--report-from needs --out")
    try:
        with open(args.report_from) as f:
            data = json.load(f)
        run, results = data["run"], {int(n): r for n, r in data["results"].items()}
    except (OSError, ValueError, KeyError) as e:
        p.error(f"cannot read the figures of an earlier run from {args.report_from}: {e} "
                "(the scale.json scale.py writes beside --out's charts)")
    try:
        return render(args, run, results, not args.no_charts)
    except KeyError as e:
        # A run of an older scale.py: it did not measure what this version reports.
        p.error(f"the figures in {args.report_from} have no {e}: they are from an older scale.py, which did "
                "not measure it; run make bench-5m again")


if __name__ == "__main__":
    sys.exit(main())
