#!/usr/bin/env python3
"""How much delay ubiquityd adds to Syncthing's: two devices (demo-sync), a file written on A.

    sync_delay.py --demo-sync PATH [--samples 200] [--out docs/benchmarks.md]

Starts the release-built demo-sync (UbiquityTesting's TwoDevices: two ubiquityd, two Syncthing
instances in a private network namespace), keeps a live query `kMDItemFSName LIKE 'Bench_*'` on
B's daemon and follows B's Syncthing events (ItemFinished, REST API on its Unix socket). Each sample
writes one file in A's container (even samples a new file, odd ones an edit of the previous one;
written beside the container and renamed in) and asks A's Syncthing to scan it at once, then waits
for both, with a deadline:
  (a) Syncthing on B: the time stamp of its ItemFinished event for the file, minus the write;
  (b) ubiquityd on B: the arrival of the query.update naming the file, minus (a)'s time stamp.
Wall-clock times (CLOCK_REALTIME), since Syncthing stamps its events with it. Writes the result as
the section "sync-delay" of --out (kept there when compare.py rewrites the rest). Needs root.
"""

import argparse
import http.client
import json
import os
import platform
import re
import select
import socket
import subprocess
import sys
import threading
import time
from datetime import datetime

from compare import (BenchError, JsonLines, command_output, head_commit, log, percentile, portable_path,
                     stop_process, write_section)

CONTAINER = "com.example.grocery"
SECTION = "sync-delay"
GOAL_MS = 5.0


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP to Syncthing's GUI/REST listener, which TwoDevices puts on a Unix socket."""

    def __init__(self, path, timeout):
        super().__init__("syncthing", timeout=timeout)
        self.socket_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


def rest(device, method, path, timeout=30):
    connection = UnixHTTPConnection(device["syncthing"], timeout)
    try:
        connection.request(method, path, headers={"X-API-Key": device["apikey"]})
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    if response.status // 100 != 2:
        raise BenchError(f"Syncthing {method} {path}: {response.status} {body[:200]!r}")
    return json.loads(body) if body else None


def event_time(stamp):
    """Syncthing's RFC 3339 time stamp (nanoseconds) as POSIX seconds."""
    m = re.fullmatch(r"(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)", stamp)
    if not m:
        raise BenchError(f"unreadable Syncthing time {stamp!r}")
    zone = "+00:00" if m[3] == "Z" else m[3]
    return datetime.fromisoformat(m[1] + zone).timestamp() + float("0." + (m[2] or "0"))


def start_rig(binary, timeout=120):
    """demo-sync started and read up to its Ready line: (process, {"A": {...}, "B": {...}})."""
    process = subprocess.Popen([binary], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    devices, current, deadline, buffer = {}, None, time.monotonic() + timeout, b""
    while True:
        if b"\n" not in buffer:
            ready, _, _ = select.select([process.stdout], [], [], max(0, deadline - time.monotonic()))
            chunk = os.read(process.stdout.fileno(), 65536) if ready else b""
            if not chunk:
                stop_process(process, "demo-sync")
                raise BenchError(f"demo-sync did not get ready: {process.stderr.read().decode(errors='replace')[-2000:]}")
            buffer += chunk
            continue
        raw, buffer = buffer.split(b"\n", 1)
        line = raw.decode()
        if line.startswith("Device "):
            current = devices.setdefault(line.split()[1], {})
        elif current is not None and line.startswith("  ") and len(line.split()) == 2:
            key, value = line.split()
            current[key] = value
        elif "X-API-Key: " in line:
            key = line.split("X-API-Key: ", 1)[1].split("'", 1)[0]
            for device in devices.values():
                device["apikey"] = key
        elif line.startswith("Ready."):
            return process, devices


class Arrivals:
    """Per file name, the times something arrived (events on B), in order; waited for with a deadline."""

    def __init__(self):
        self.condition = threading.Condition()
        self.times = {}
        self.failure = None

    def add(self, name, at):
        with self.condition:
            self.times.setdefault(name, []).append(at)
            self.condition.notify_all()

    def fail(self, error):
        with self.condition:
            self.failure = error
            self.condition.notify_all()

    def count(self, name):
        with self.condition:
            return len(self.times.get(name, []))

    def wait(self, name, index, deadline):
        with self.condition:
            while len(self.times.get(name, [])) <= index:
                if self.failure:
                    raise BenchError(str(self.failure))
                if not self.condition.wait(max(0, deadline - time.monotonic())) and time.monotonic() > deadline:
                    return None
            return self.times[name][index]


def follow_updates(client, arrivals, stopping, shows=None):
    """Reads a live query: the wall-clock arrival of each query.update, per name it adds or changes
    (with `shows` = (attribute, value), only those whose attribute has that value)."""
    try:
        while not stopping.is_set():
            line, _ = client.recv_raw(0.5)
            at = time.time()
            if line is None:
                continue
            message = json.loads(line)
            if message.get("event") == "query.update":
                for item in message.get("added", []) + message.get("changed", []):
                    if shows is None or item["attributes"].get(shows[0]) == shows[1]:
                        arrivals.add(item["attributes"]["kMDItemFSName"], at)
    except Exception as error:  # noqa: BLE001 — any failure ends the measurement with its reason
        if not stopping.is_set():
            arrivals.fail(error)


def follow_finished(device, arrivals, stopping):
    """Long-polls B's Syncthing for ItemFinished: its own time stamp, per file name."""
    since = 0
    try:
        while not stopping.is_set():
            events = rest(device, "GET", f"/rest/events?events=ItemFinished&since={since}&timeout=1", timeout=10) or []
            for event in events:
                since = max(since, event["id"])
                data = event["data"]
                if data.get("folder") == CONTAINER and not data.get("error"):
                    arrivals.add(os.path.basename(data["item"]), event_time(event["time"]))
    except Exception as error:  # noqa: BLE001
        if not stopping.is_set():
            arrivals.fail(error)


def measure(devices, samples, timeout):
    a, b = devices["A"], devices["B"]
    client = JsonLines(b["socket"], time.monotonic() + 30, None, "ubiquityd on B")
    client.send({"id": 1, "op": "hello", "version": 1, "client": "sync_delay.py"})
    # Size and content date: an edit changes them, so it is a `changed` (a query showing only names
    # is told nothing when a file's contents change).
    client.send({"id": 2, "op": "query.start", "predicate": "kMDItemFSName LIKE 'Bench_*'", "scope": "documents",
                 "attributes": ["kMDItemFSName", "size", "modified"], "live": True, "batchingInterval": 0})
    while True:
        message, _ = client.recv(30)
        if message is None or "error" in message:
            raise BenchError(f"no gathering on B: {message}")
        if message.get("event") == "query.gatheringFinished":
            break
    updates, finished, stopping = Arrivals(), Arrivals(), threading.Event()
    threads = [threading.Thread(target=follow_updates, args=(client, updates, stopping), daemon=True),
               threading.Thread(target=follow_finished, args=(b, finished, stopping), daemon=True)]
    for thread in threads:
        thread.start()
    documents = a["container"] + "/Documents"
    staging = os.path.dirname(a["container"])        # the root: beside the container, never replicated
    results = []
    try:
        for i in range(samples):
            name = f"Bench_{i // 2}"
            before_finished, before_update = finished.count(name), updates.count(name)
            staged = f"{staging}/staging-{i}"
            with open(staged, "w") as f:
                f.write(f"sample {i}: {'new file' if i % 2 == 0 else 'an edit'}\n")
            written = time.time()
            os.rename(staged, f"{documents}/{name}")
            # At once, rather than after the 1 s the watcher of TwoDevices' Syncthing gathers changes for.
            rest(a, "POST", f"/rest/db/scan?folder={CONTAINER}&sub=Documents/{name}")
            deadline = time.monotonic() + timeout
            landed = finished.wait(name, before_finished, deadline)
            told = updates.wait(name, before_update, deadline)
            if landed is None or told is None:
                raise BenchError(f"sample {i} ({name}): {'Syncthing' if landed is None else 'ubiquityd'} "
                                 f"on B said nothing within {timeout} s")
            results.append({"name": name, "edit": i % 2 == 1, "syncthing_s": landed - written, "added_s": told - landed})
            if (i + 1) % 50 == 0:
                log(f"  {i + 1}/{samples} samples")
    finally:
        stopping.set()
        client.close()
    return results


def stats_ms(values):
    ordered = sorted(v * 1000 for v in values)
    return {p: percentile(ordered, p) for p in (50, 90, 99)} | {"max": ordered[-1], "min": ordered[0]}


def write_report(out, args, results, wall_s):
    sync, added = stats_ms([r["syncthing_s"] for r in results]), stats_ms([r["added_s"] for r in results])
    commit = head_commit()
    syncthing = command_output(["syncthing", "--version"]).split(" ")[1:2] or ["?"]
    cpu = command_output(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).strip()
    fmt = lambda s: " | ".join(f"{s[k]:.2f}" for k in (50, 90, 99, "max"))
    lines = [
        "## Sync delay: two devices",
        "",
        f"`{' '.join(['sync_delay.py'] + args.argv)}` (`make bench-sync`), wall time **{wall_s:.0f} s**;",
        f"ubiquityd git commit {commit}, release build; Syncthing {syncthing[0]}; {cpu}, {os.cpu_count()} cores",
        f"(shared with other builds); {platform.system()} {platform.release()}.",
        "",
        "The rig of `make demo-sync` (UbiquityTesting's `TwoDevices`): two ubiquityd and two Syncthing",
        "instances in a private network namespace, talking over loopback. A live query",
        "`kMDItemFSName LIKE 'Bench_*'` (batching interval 0) runs on B's daemon. Each of the "
        f"{len(results)} samples",
        "writes one file into A's container (a new file, then an edit of it; written beside the container",
        "and renamed in) and asks A's Syncthing to scan it at once (otherwise its watcher gathers changes for",
        "a second first). *Syncthing*: from the write to the time stamp of B's `ItemFinished` event for the",
        "file (the received version is in place). *ubiquityd*: from that time stamp to the arrival of the",
        "`query.update` naming the file on B's socket: the delay our daemon adds. Wall-clock times;",
        "milliseconds. A negative added delay means the daemon told the query before Syncthing",
        "logged its event (it logs after renaming the file into place and updating its database).",
        "",
        "| | p50 | p90 | p99 | max |",
        "|---|---|---|---|---|",
        f"| Syncthing: write on A → `ItemFinished` on B | {fmt(sync)} |",
        f"| ubiquityd: `ItemFinished` → `query.update` on B | {fmt(added)} |",
        "| ubiquityd ÷ Syncthing | " + " | ".join(
            f"{added[k] / sync[k]:.2%}" if sync[k] else "—" for k in (50, 90, 99, "max")) + " |",
        "",
        f"Goal: the delay ubiquityd adds ≤ {GOAL_MS:g} ms at p99: {added[99]:.2f} ms, "
        f"**{'met' if added[99] <= GOAL_MS else 'not met'}**.",
        "",
    ]
    write_section(out, SECTION, "\n".join(lines))
    log(f"wrote section {SECTION} of {out}")


def rig_parser(description, samples):
    """The options every demo-sync harness takes: the binary, samples, a per-sample deadline, the report."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--demo-sync", required=True, help="the demo-sync binary (release build)")
    p.add_argument("--samples", type=int, default=samples, help=f"files written on A (default {samples})")
    p.add_argument("--timeout", type=float, default=30, help="seconds to wait for each sample")
    p.add_argument("--out", default=None, help="the report to put the section into (docs/benchmarks.md)")
    return p


def main():
    args = rig_parser("The delay ubiquityd adds after Syncthing lands a file.", 200).parse_args()
    args.argv = [portable_path(a) for a in sys.argv[1:]]
    started = time.monotonic()
    try:
        process, devices = start_rig(args.demo_sync)
        try:
            log(f"rig ready; {args.samples} samples")
            results = measure(devices, args.samples, args.timeout)
        finally:
            stop_process(process, "demo-sync")
        if process.returncode != 0:
            raise BenchError(f"demo-sync exited with status {process.returncode}")
    except BenchError as error:
        log(f"error: {error}")
        return 1
    sync, added = stats_ms([r["syncthing_s"] for r in results]), stats_ms([r["added_s"] for r in results])
    for label, s in (("Syncthing", sync), ("ubiquityd added", added)):
        print(f"{label:16} p50 {s[50]:.2f} ms  p90 {s[90]:.2f} ms  p99 {s[99]:.2f} ms  max {s['max']:.2f} ms")
    if args.out:
        write_report(args.out, args, results, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
