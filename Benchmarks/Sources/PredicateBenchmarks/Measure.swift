import BenchmarkSupport
import UbiquityPredicate

struct Row {
    let label: String
    let unit: String
    let stats: Stats
    /// Items that matched (or a checksum for the baseline), so nothing is optimised away
    /// and readers can see each predicate did real work.
    let result: Int
    /// Cost relative to the baseline read: baseline median rate / this median rate.
    var cost: Double?
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// Runs `body` once untimed (warm-up), then `runs` timed times; each run processes `work` units.
func measure(runs: Int, work: Int, _ body: () -> Int) -> (Stats, Int) {
    var result = body()
    var rates: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<runs {
        let start = clock.now
        result = body()
        let elapsed = (clock.now - start).seconds
        rates.append(Double(work) / max(elapsed, 1e-9))
    }
    return (Stats(rates), result)
}

/// The floor: fetch `kMDItemFSName` through `AttributeProvider.value(of:)` and use it trivially.
@inline(never)
func baselineRead<P: AttributeProvider>(_ items: [P]) -> Int {
    var checksum = 0
    for item in items {
        if case .string(let name)? = item.value(of: .name) { checksum &+= name.utf8.count }
    }
    return checksum
}

@inline(never)
func countMatches<P: AttributeProvider>(_ items: [P], _ predicate: CompiledPredicate) -> Int {
    var matches = 0
    for item in items where predicate.evaluate(item) { matches += 1 }
    return matches
}

/// Parses, type-checks and compiles `text` `count` times.
@inline(never)
func parseAndCompile(_ text: String, count: Int, context: EvaluationContext) -> Int {
    var checksum = 0
    for _ in 0..<count {
        do {
            let predicate = try MetadataPredicate(parsing: text)
            let compiled = predicate.compiled(context)
            checksum &+= compiled.evaluate(AttributeDictionary()) ? 1 : 2
        } catch {
            fatalError("benchmark predicate does not parse: \(error)")
        }
    }
    return checksum
}
