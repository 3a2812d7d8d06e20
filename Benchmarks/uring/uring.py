#!/usr/bin/env python3
"""Whether io_uring could take a crawl's statuses for less than `statx` in a loop.

A warm crawl is a `statx` per entry. io_uring (IORING_OP_STATX) could submit a directory's
worth in one system call; this measures it against `statx` and `fstatat` (what `find` calls) in
a loop, on the long and wide trees of compare.py at 100k entries, warm, one thread each: wall
and CPU time (io_uring's worker threads are the process's, so their time is in it), the median
of the rounds. Prints a Markdown table; docs/architecture.md quotes it.

Usage: python3 Benchmarks/uring/uring.py [--workdir DIR] [--entries N] [--rounds N] [--batches 16,64,256]
(`make bench-uring` installs gcc and liburing-dev first.)
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compare"))
import compare  # noqa: E402  (the trees, and how they are made)

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", help="where the trees are made or reused (default: a temporary directory, removed)")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batches", default="16,64,256", help="io_uring submissions per system call")
    parser.add_argument("--seed", type=int, default=compare.DEFAULT_SEED)
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",") if b]
    build = tempfile.mkdtemp(prefix="uring-")
    binary = os.path.join(build, "statx_batches")
    subprocess.run(["gcc", "-O2", "-Wall", "-o", binary, os.path.join(HERE, "statx_batches.c"), "-luring"], check=True)
    workdir = args.workdir or tempfile.mkdtemp(prefix="uring-trees-")
    print(f"Linux {platform.release()}, {os.cpu_count()} CPUs; {args.rounds} rounds, warm (one unmeasured pass first)\n")
    print("| tree | entries | `fstatat` loop (s; CPU s) | `statx` loop (s; CPU s) | io_uring batch | io_uring (s; CPU s) | io_uring ÷ `statx` |")
    print("|---|---|---|---|---|---|---|")
    try:
        for shape in ("long", "wide"):
            tree = compare.ensure_tree(workdir, args.entries, args.seed, shape)
            for batch in batches:
                out = subprocess.run([binary, tree["base"], str(batch), str(args.rounds + 1)], check=True,
                                     capture_output=True, text=True).stdout.split("\n")
                rows = [list(map(float, line.split())) for line in out if line.strip()][1:]
                failed = sum(int(r[9]) for r in rows)
                if failed:
                    raise SystemExit(f"uring.py: {failed} io_uring statx calls failed on {shape}")
                med = [statistics.median(r[i] for r in rows) for i in range(3, 9)]
                print(f"| {shape} | {int(rows[0][0]):,} | {med[0]:.3f}; {med[1]:.3f} | {med[2]:.3f}; {med[3]:.3f} | {batch} "
                      f"| {med[4]:.3f}; {med[5]:.3f} | {med[4] / med[2]:.2f}× |", flush=True)
    finally:
        if not args.workdir:
            subprocess.run(["rm", "-rf", workdir])
        subprocess.run(["rm", "-rf", build])


if __name__ == "__main__":
    main()
