import Foundation
import Testing
import UbiquityFuzzing

/// Every committed fuzz input — the seed corpora and the inputs of crashes found and fixed — goes
/// through its reader's invariant again, without the sanitizer, in `make test` (docs/testing.md).
@Suite struct CorpusReplayTests {
    /// `Fuzz/` of this checkout.
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(_ kind: String, _ target: String) throws -> [URL] {
        let directory = fuzz.appendingPathComponent(kind).appendingPathComponent(target)
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test(arguments: FuzzChecks.names)
    func everyCommittedInputHoldsItsInvariant(target: String) throws {
        let check = try #require(FuzzChecks.named(target))
        let corpus = try Self.inputs("Corpus", target)
        #expect(corpus.count >= 5, "Fuzz/Corpus/\(target) holds \(corpus.count) seeds")
        for input in corpus + (try Self.inputs("Regressions", target)) {
            let failure = check.check(Array(try Data(contentsOf: input)))
            #expect(failure == nil, "\(input.lastPathComponent): \(failure ?? "")")
        }
    }

    @Test(arguments: FuzzChecks.names)
    func someSeedsAreTakenWholeAndSomeRefused(target: String) throws {
        // Seeds that the reader takes reach the code past the first refusal; seeds it refuses
        // exercise the refusals. A corpus of one kind only would teach the fuzzer little.
        let check = try #require(FuzzChecks.named(target))
        let accepted = try Self.inputs("Corpus", target).map { check.accepts(Array(try Data(contentsOf: $0))) }
        #expect(accepted.contains(true), "no seed of \(target) is read whole")
        #expect(accepted.contains(false), "no seed of \(target) is refused")
    }
}
