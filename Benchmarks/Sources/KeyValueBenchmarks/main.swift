// KeyValueBenchmarks — the key-value store through the real daemon (docs/kv-store.md).
//
// Owns: measuring set → acknowledged latency on one daemon (the write is fsync-ed before the
//   answer), and set on device A → kv.changed on device B beside Syncthing's own time to land the
//   file on B (its ItemFinished event), with two daemons and two real Syncthing instances.
// Must not: run in `make test` (it lives in the Benchmarks package; `make bench` runs it).
// Depends on: UbiquityTesting (TestDaemon, TwoDevices, RawClient), BenchmarkSupport.
//
//   swift run -c release KeyValueBenchmarks [--writes 1000] [--rounds 20] [--out ../docs/benchmarks.md]
// The ubiquityd it runs is the one built beside it: `swift build -c release --product ubiquityd` first.
import BenchmarkSupport
import Foundation
import UbiquityPredicate
import UbiquityTesting

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
let writes = Int(option("--writes") ?? "") ?? 1_000
let rounds = Int(option("--rounds") ?? "") ?? 20
let out = option("--out")

func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

func hello(_ socket: String) throws -> RawClient {
    let client = try RawClient(socket: socket)
    _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
    return client
}

/// The next kv.changed naming `key` on `client`, within a deadline.
func change(_ client: RawClient, naming key: String, within seconds: Double = 60) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
        if message["event"]?.stringValue == "kv.changed", message["keys"]?.arrayValue?.contains(.string(key)) == true { return }
    }
    throw TestDaemonError("no kv.changed for \(key) within \(seconds) s")
}

/// Syncthing's event time (`2026-11-23T10:05:01.123456789Z` or with an offset) as a Date.
func syncthingTime(_ text: String) -> Date? {
    guard let dot = text.firstIndex(of: ".") else { return ISO8601DateFormatter().date(from: text) }
    let afterDigits = text[text.index(after: dot)...].firstIndex { !$0.isNumber } ?? text.endIndex
    let fraction = Double("0" + text[dot..<afterDigits]) ?? 0
    guard let whole = ISO8601DateFormatter().date(from: String(text[..<dot]) + String(text[afterDigits...])) else { return nil }
    return whole.addingTimeInterval(fraction)
}

// MARK: - One daemon: set → acknowledged

Log.progress("one daemon: \(writes) sets of a 100-key store, each acknowledged after write, fsync, rename, fsync")
let daemon = try TestDaemon()
let client = try hello(daemon.socket)
let clock = ContinuousClock()
var local: [Double] = []
for i in 0..<(writes + 50) {
    let start = clock.now
    let response = try client.request(#"{"id":\#(i + 1),"op":"kv.set","key":"k\#(i % 100)","value":\#(i)}"#).response
    guard response["result"] != nil else { throw TestDaemonError("set failed: \(response)") }
    if i >= 50 { local.append(milliseconds(clock.now - start)) }    // the first 50 warm up
}
let fileBytes = (try? FileManager.default.contentsOfDirectory(atPath: daemon.root + "/com.example.grocery/.ubiquity-kv"))?
    .compactMap { try? FileManager.default.attributesOfItem(atPath: daemon.root + "/com.example.grocery/.ubiquity-kv/" + $0)[.size] as? Int }
    .max() ?? 0
daemon.stop()
daemon.cleanUp()
let localStats = Percentiles(local)

// MARK: - Two devices: set on A → kv.changed on B, beside Syncthing's ItemFinished on B

Log.progress("two devices (real Syncthing, private network namespace): \(rounds) sets on A, each until B's subscriber hears it")
let devices = try await TwoDevices.start()
defer { devices.stop() }
let onA = try hello(devices.a.socket), onB = try hello(devices.b.socket)
_ = try onB.request(#"{"id":1,"op":"kv.subscribe"}"#)
/// B's ItemFinished events after `since` (Syncthing keeps events of a mask only once someone asked for it).
func itemsFinished(since: Int, timeout: Int) throws -> [[String: Any]] {
    try devices.b.syncthing.call("GET", "/rest/events?events=ItemFinished&since=\(since)&timeout=\(timeout)",
                                 timeout: Double(timeout + 10)) as? [[String: Any]] ?? []
}
_ = try itemsFinished(since: 0, timeout: 0)
// A first set so both stores and B's first-sync are out of the way.
_ = try onA.request(#"{"id":2,"op":"kv.set","key":"warmup","value":0}"#)
try change(onB, naming: "warmup")
try devices.waitUntilInSync()
var seen = 0
while true {
    let events = try itemsFinished(since: seen, timeout: 1)
    guard let last = events.last?["id"] as? Int else { break }
    seen = last
}
var acked: [Double] = [], landed: [Double] = [], heard: [Double] = [], share: [Double] = []
for round in 0..<rounds {
    let since = seen
    let key = "round\(round)"
    let startWall = Date(), start = clock.now
    _ = try onA.request(#"{"id":\#(round + 10),"op":"kv.set","key":"\#(key)","value":\#(round)}"#)
    acked.append(milliseconds(clock.now - start))
    // As sync_delay.py does: A's Syncthing scans at once instead of gathering changes for a second.
    try devices.a.syncthing.call("POST", "/rest/db/scan?folder=\(TwoDevices.containerID)&sub=.ubiquity-kv")
    try change(onB, naming: key)
    let heardWall = Date()
    heard.append(milliseconds(clock.now - start))
    // B's Syncthing: when did it finish writing A's file?
    var finished: Date?
    var after = since
    while finished == nil {
        let events = try itemsFinished(since: after, timeout: 10)
        if events.isEmpty { throw TestDaemonError("no ItemFinished on B for round \(round)") }
        for event in events {
            after = max(after, event["id"] as? Int ?? after)
            let data = event["data"] as? [String: Any] ?? [:]
            if (data["item"] as? String)?.hasPrefix(".ubiquity-kv/") == true, let time = (event["time"] as? String).flatMap(syncthingTime) {
                finished = time
            }
        }
    }
    seen = after
    landed.append(finished!.timeIntervalSince(startWall) * 1000)
    share.append(heardWall.timeIntervalSince(finished!) * 1000)
}

// MARK: - Report

let section = """
## Key-value store

Written by `KeyValueBenchmarks` (`make bench`; `swift run -c release KeyValueBenchmarks` in
Benchmarks/ after `swift build -c release --product ubiquityd`). Release build of `ubiquityd`;
the machine is shared with other builds, so expect noise. Times in milliseconds.

| measure | samples | p50 | p99 |
|---|---|---|---|
\(localStats.row("`kv.set` → acknowledged, one daemon (write, fsync, rename, fsync the folder; a 100-key store, \(fileBytes)-byte file)"))
\(Percentiles(acked).row("`kv.set` on A → acknowledged on A (two devices)"))
\(Percentiles(landed).row("`kv.set` on A → Syncthing on B finished writing A's file (its `ItemFinished` event)"))
\(Percentiles(heard).row("`kv.set` on A → `kv.changed` on B's subscriber"))
\(Percentiles(share).row("B's `ItemFinished` → `kv.changed` on B (the daemon's own share: the watcher sees the rename, the store re-reads A's file)"))

Syncthing's share dominates. After each acknowledged set, A's Syncthing is asked to scan the
store's folder at once (as in "Sync delay" above; left alone, its watcher gathers changes for
`fsWatcherDelayS`, 10 s by default, before it scans). The daemon's share on B is about zero, or
below: Syncthing records `ItemFinished` only after it has renamed the file into place and updated
its database, and by then B's watcher may already have seen the rename and told the subscriber.
Method: one daemon on a fresh container, 50 warm-up sets, then \(writes) sets one after another
over one connection, each timed from sending the request to reading its answer. Two devices:
`TwoDevices` (two daemons, two Syncthing instances on loopback in a private network namespace),
\(rounds) rounds, each one set on A timed until B's subscriber reads its `kv.changed`; Syncthing's
`ItemFinished` time on B (wall clock, same machine) is read from its REST event stream.

"""
print(section)
if let out {
    // The report's marked sections (compare.py keeps them when it rewrites the rest).
    let begin = "<!-- begin section: key-value -->\n", end = "<!-- end section: key-value -->\n"
    var text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    let block = begin + section + end
    if let from = text.range(of: begin), let to = text.range(of: end, range: from.upperBound..<text.endIndex) {
        text.replaceSubrange(from.lowerBound..<to.upperBound, with: block)
    } else {
        while text.hasSuffix("\n") { text.removeLast() }
        text += "\n\n" + block
    }
    try text.write(toFile: out, atomically: true, encoding: .utf8)
    Log.progress("wrote \(out)")
}
