#!/usr/bin/env python3
"""Two builds' CLI start-up and daemon memory, side by side (docs/operations.md, Package size).

    startup.py BEFORE_DIR AFTER_DIR [--runs 100] [--workdir DIR]

  BEFORE_DIR and AFTER_DIR each hold ubiquityd, ubiq and grocery (files or links: the Debian
  package's ubiq and grocery are links to ubiquityd). clients.py's 10,000-item grocery container:
  * memory: each build's ubiquityd started three times (alternating), its VmRSS, RssAnon and
    RssFile from /proc/PID/status one second after its first answer;
  * start-up: one warm ubiquityd (AFTER's); `ubiq status`, `grocery list` and `ubiq --version` of
    both builds, interleaved run by run, wall time from fork to exit, output to /dev/null.
Prints min / median / max in milliseconds.
"""

import argparse
import os
import statistics
import tempfile
import time

from compare import DEFAULT_SEED, Ubiquityd
from clients import ensure_grocery, run_client


def rss(pid):
    """The memory lines of /proc/PID/status, in kB."""
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key = line.split(":")[0]
            if key in ("VmRSS", "RssAnon", "RssFile"):
                values[key] = int(line.split()[1])
    return values


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "ubiquity-startup"))
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    tree = ensure_grocery(args.workdir, 10_000, DEFAULT_SEED)
    builds = [("before", args.before), ("after", args.after)]

    memory = {label: [] for label, _ in builds}
    for start in range(3):
        for label, folder in (builds if start % 2 == 0 else builds[::-1]):
            daemon = Ubiquityd(os.path.join(folder, "ubiquityd"), tree, tempfile.mkdtemp(prefix="startup-"))
            daemon.start()
            daemon.connect().close()
            time.sleep(1.0)     # the same moment after start for both builds
            memory[label].append(rss(daemon.pid))
            daemon.stop()

    daemon = Ubiquityd(os.path.join(args.after, "ubiquityd"), tree, tempfile.mkdtemp(prefix="startup-"))
    daemon.start()
    daemon.connect().close()
    commands = {
        "ubiq status": lambda folder: [os.path.join(folder, "ubiq"), "status", "--socket", daemon.sock_path],
        "grocery list": lambda folder: [os.path.join(folder, "grocery"), "list", "--socket", daemon.sock_path],
        "ubiq --version": lambda folder: [os.path.join(folder, "ubiq"), "--version"],
    }
    try:
        for name, argv in commands.items():
            for _, folder in builds:        # warm: the binaries' pages, the daemon's answer
                run_client(argv(folder))
            wall = {label: [] for label, _ in builds}
            for run in range(args.runs):
                for label, folder in (builds if run % 2 == 0 else builds[::-1]):
                    wall[label].append(run_client(argv(folder))[0] * 1000)
            for label, _ in builds:
                v = sorted(wall[label])
                print(f"{name:15} {label:6}  min {v[0]:6.1f}  median {statistics.median(v):6.1f}  max {v[-1]:6.1f} ms")
    finally:
        daemon.stop()
    for label, _ in builds:
        for m in memory[label]:
            print(f"ubiquityd {label:6}  " + "  ".join(f"{k} {v / 1024:.1f} MB" for k, v in m.items()))
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
