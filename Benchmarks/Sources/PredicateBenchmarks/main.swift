// PredicateBenchmarks: how fast UbiquityPredicate evaluates predicates over an in-memory index,
// relative to the cost of just reading the attribute. See Benchmarks/README.md.
import BenchmarkSupport
import Foundation
import UbiquityPredicate

let options = Options.parse(CommandLine.arguments)
/// A fixed clock (2026-11-22T10:00:00Z), so `$time.today(-30)` selects the same items every run.
let now = 1_795_341_600.0
let context = EvaluationContext(now: now, timeZone: .utc, firstWeekday: 2)

Log.progress("generating \(grouped(Double(options.items))) items (seed \(options.seed))")
let items = Dataset.main(count: options.items, seed: options.seed, now: now)
Log.progress("generating \(grouped(Double(options.items))) items with non-ASCII names")
let accentedItems = Dataset.nonASCII(count: options.items, seed: options.seed, now: now)

struct Case {
    let label: String
    let predicate: String
    let onNonASCII: Bool
}

let likePredicate = "kMDItemFSName LIKE 'Item_*'"
let cases: [Case] = [
    Case(label: "(b) LIKE prefix", predicate: likePredicate, onNonASCII: false),
    Case(label: "(c) 5-clause mixed",
         predicate: "name LIKE[c] 'item_*' AND size > 1000 AND modified >= $time.today(-30) "
             + "AND NOT isHidden == YES AND ANY tags == 'urgent'",
         onNonASCII: false),
    Case(label: "(d) MATCHES", predicate: "name MATCHES 'Item_[0-9A-F]{8}.*'", onNonASCII: false),
    Case(label: "(e) LIKE[cd] non-ASCII", predicate: "name LIKE[cd] 'resume*.pdf'", onNonASCII: true),
]
let parsePredicate = "kMDItemFSName LIKE[c] 'item_*' AND kMDItemFSSize > 1000 "
    + "AND kMDItemFSContentChangeDate >= $time.today(-30) AND NOT kMDItemFSInvisible == YES "
    + "AND ANY kMDItemUserTags IN {'urgent', 'work'}"

var rows: [Row] = []

Log.progress("(a) baseline: reading kMDItemFSName, \(options.runs) runs")
let (baselineStats, checksum) = measure(runs: options.runs, work: items.count) { baselineRead(items) }
rows.append(Row(label: "(a) baseline read name", unit: "items/s", stats: baselineStats, result: checksum, cost: 1))

func selected(_ label: String) -> Bool {
    guard let only = options.only else { return true }
    return label.dropFirst().first.map { only.contains($0) } ?? false
}

for c in cases where selected(c.label) {
    Log.progress("\(c.label): \(c.predicate), \(options.runs) runs")
    let compiled: CompiledPredicate
    do {
        compiled = try MetadataPredicate(parsing: c.predicate).compiled(context)
    } catch {
        Log.error("PredicateBenchmarks: \(c.label) does not parse: \(error)")
        exit(1)
    }
    let data = c.onNonASCII ? accentedItems : items
    let (stats, matches) = measure(runs: options.runs, work: data.count) { countMatches(data, compiled) }
    rows.append(Row(label: c.label, unit: "items/s", stats: stats, result: matches,
                    cost: baselineStats.median / stats.median))
}

let parseCount = max(1_000, options.items / 100)
Log.progress("(f) parse + compile: \(grouped(Double(parseCount))) times per run, \(options.runs) runs")
let (parseStats, _) = measure(runs: options.runs, work: parseCount) {
    parseAndCompile(parsePredicate, count: parseCount, context: context)
}
rows.append(Row(label: "(f) parse+compile", unit: "predicates/s", stats: parseStats, result: parseCount, cost: nil))

// MARK: - Report

let header = ["case", "min", "median", "max", "unit", "cost vs (a)", "matches"]
let table: [[String]] = [header] + rows.map { row in
    [row.label, grouped(row.stats.min), grouped(row.stats.median), grouped(row.stats.max), row.unit,
     row.cost.map { fixed($0) + "x" } ?? "-", row.label.hasPrefix("(a)") || row.label.hasPrefix("(f)") ? "-" : grouped(Double(row.result))]
}
let widths = header.indices.map { column in table.map { $0[column].count }.max()! }
print("UbiquityPredicate benchmarks: \(grouped(Double(options.items))) items, \(options.runs) runs each (min/median/max)")
for (i, line) in table.enumerated() {
    let cells = line.indices.map { column in
        column == 0 || column == 4 ? padRight(line[column], widths[column]) : padLeft(line[column], widths[column])
    }
    print(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
    if i == 0 { print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
}
print("")
print("predicates:")
for c in cases { print("  \(c.label.prefix(3)) \(c.predicate)\(c.onNonASCII ? "   (on non-ASCII names)" : "")") }
print("  (f) \(parsePredicate)")
print("  (f) is \(fixed(1e6 / parseStats.median, 1)) µs per parse+type-check+compile (median)")
print("  (a) read \(grouped(Double(checksum))) name bytes per pass (checksum, so the loop is not optimised away)")
print("")
guard let likeCost = rows.first(where: { $0.label.hasPrefix("(b)") })?.cost else { exit(0) }
let verdict = likeCost <= 3 ? "MET" : "NOT MET"
print("goal \"\(likePredicate) costs no more than 3x the baseline read\": \(verdict) (\(fixed(likeCost))x)")
