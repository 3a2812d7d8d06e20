// Clocks, resident memory, statistics, the `find` baseline and aligned tables.
import BenchmarkSupport
import Foundation
import Glibc

/// `CLOCK_MONOTONIC` in nanoseconds: one clock for every thread of the benchmark.
func nowNanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// Seconds since `start` (monotonic nanoseconds).
func seconds(since start: UInt64, to end: UInt64 = nowNanoseconds()) -> Double {
    Double(end &- start) / 1e9
}

/// Nearest-rank percentile of sorted samples (`p` in 0...1).
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((p * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}

/// `12.3 ms`, `0.412 ms`, `1.85 s`.
func formatMilliseconds(_ seconds: Double) -> String {
    let ms = seconds * 1000
    if ms >= 1_000 { return String(format: "%.2f s", seconds) }
    if ms >= 100 { return String(format: "%.0f ms", ms) }
    if ms >= 10 { return String(format: "%.1f ms", ms) }
    if ms >= 1 { return String(format: "%.2f ms", ms) }
    return String(format: "%.3f ms", ms)
}

/// `1,234,567`
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (i, c) in digits.reversed().enumerated() {
        if i > 0, i % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return (value < 0 ? "-" : "") + String(out.reversed())
}

/// The baseline: `find ROOT -printf '%s %T@\n' > /dev/null` as a child process (one `lstat` per
/// entry, like our crawl). - Returns: wall time from launch to exit, in seconds.
func timeFind(_ root: String) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/find")
    process.arguments = [root, "-printf", "%s %T@\\n"]
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    process.standardError = FileHandle.standardError
    let start = nowNanoseconds()
    try process.run()
    process.waitUntilExit()
    let elapsed = seconds(since: start)
    guard process.terminationStatus == 0 else {
        throw BenchmarkError("find exited with status \(process.terminationStatus)")
    }
    return elapsed
}

/// `rm -rf PATH` (much faster than FileManager on a million files).
func removeTree(_ path: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/rm")
    process.arguments = ["-rf", path]
    do {
        try process.run()
        process.waitUntilExit()
    } catch {
        Log.error("could not remove \(path): \(error)")
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An aligned text table: numbers right-aligned, text left-aligned.
struct Table {
    var headers: [String]
    /// Per column: right-align (numbers).
    var right: [Bool]
    var rows: [[String]] = []

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for i in 0..<headers.count {
                let cell = i < cells.count ? cells[i] : ""
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                parts.append(right[i] ? pad + cell : cell + pad)
            }
            var text = parts.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        var out = [line(headers)]
        out.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        for row in rows { out.append(line(row)) }
        return out.joined(separator: "\n")
    }
}
