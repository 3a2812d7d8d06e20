import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// The hand-written reader of conflict-copy names against the three regular expressions it
/// replaced (kept here, in the tests only, as the reference): the same answer for every name
/// built from the forms' own pieces and their near misses.
@Suite("Conflict copy names against the regex reference")
struct ConflictCopyNameReferenceTests {
    static func reference(_ name: String) -> ConflictCopyName? {
        guard name.utf8.count > 12 else { return nil }
        if let match = name.wholeMatch(of: /(.+)\.sync-conflict-(\d{8}-\d{6})-([A-Z0-9]{7})(\.[^.]*)?/) {
            return ConflictCopyName(original: String(match.1) + String(match.4 ?? ""), device: String(match.3), savedAt: String(match.2))
        }
        if let match = name.wholeMatch(of: /(.+)\.ubiquity-conflict-(\d{8}-\d{6})-([A-Za-z0-9_-]{1,40})(\.[^.]*)?/) {
            return ConflictCopyName(original: String(match.1) + String(match.4 ?? ""), device: String(match.3), savedAt: String(match.2))
        }
        if let match = name.wholeMatch(of: /(.+) \((?:[^()]*'s )?conflicted copy[^()]*\)(\.[^.]*)?/) {
            return ConflictCopyName(original: String(match.1) + String(match.2 ?? ""), device: nil, savedAt: nil)
        }
        return nil
    }

    /// Pieces of every form, and of names that almost are one (ASCII digits only, no newline:
    /// where the reader differs from the regexes on purpose).
    static let pieces = ["Item", "a", ".", " ", "(", ")", "'s ", "Ann's ", "conflicted copy", " (conflicted copy", ".sync-conflict-",
                         ".ubiquity-conflict-", "20261122-034428-", "2026112-034428-", "20261122-03442-", "NOFER4Z", "ABCDEFG", "ABCDEF",
                         "my_laptop-2", "txt", ".txt", ".gro", "1", "é", "Case Conflict", " 2026-11-22", "-", "_"]

    @Test func sameAnswerAsTheRegexesOnGeneratedNames() {
        var random = SplitMix64(seed: 20261125)
        var conflictCopies = 0
        // Half the names are a base, one of the forms and maybe an extension, with a piece put in
        // somewhere; the other half any pieces at all.
        let forms = [".sync-conflict-20261122-034428-NOFER4Z", ".ubiquity-conflict-20261122-034428-my_laptop-2", " (conflicted copy)",
                     " (Ann's conflicted copy 2026-11-22)", " (conflicted copy", ".sync-conflict-20261122-034428-ABCDEF"]
        for round in 0..<2_000 {
            var parts = (0..<Int.random(in: 1...3, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }
            if round % 2 == 0 {
                parts.append(forms.randomElement(using: &random)!)
                if Bool.random(using: &random) { parts.append([".txt", ".gro", ".a.b", ""].randomElement(using: &random)!) }
                if Int.random(in: 0..<3, using: &random) == 0 {
                    parts.insert(Self.pieces.randomElement(using: &random)!, at: Int.random(in: 0...parts.count, using: &random))
                }
            } else {
                parts += (0..<Int.random(in: 1...6, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }
            }
            let name = parts.joined()
            let expected = Self.reference(name)
            #expect(ConflictCopyName.parse(name) == expected, "\(name)")
            if expected != nil { conflictCopies += 1 }
        }
        #expect(conflictCopies > 300, "the generator must reach the forms themselves, not only misses")
    }

    @Test func sameAnswerOnTheDocumentedForms() {
        for name in ["Item.sync-conflict-20261122-034428-NOFER4Z.txt", "a.b.sync-conflict-20261122-034428-NOFER4Z.sync-conflict-20261122-034428-ABCDEFG",
                     "Notes (conflicted copy 2026-11-22).txt", "Notes (Ann's conflicted copy).txt", "x (y) (conflicted copy).a.b",
                     "Item.ubiquity-conflict-20261122-034428-my_laptop-2.txt", "Item.ubiquity-conflict-20261122-034428-" + String(repeating: "d", count: 41),
                     "Notes (Case Conflict).txt", "Notes ('s conflicted copy)", "Notes (x's conflicted copy (2))"] {
            #expect(ConflictCopyName.parse(name) == Self.reference(name), "\(name)")
        }
    }

    /// The test every name meets first: `conflict` found where its bytes are, at any place and
    /// length (the first and last places, a `c` just before it or in the last seven bytes,
    /// names not ASCII), against a plain search of the bytes.
    @Test func mentionsConflictWhereverItsBytesAre() {
        #expect(ConflictCopyName.conflictWord == Array("conflict".utf8).reversed().reduce(0) { $0 << 8 | UInt64($1) })
        var random = SplitMix64(seed: 20261127)
        let pieces: [[UInt8]] = ["c", "co", "conflic", "conflict", "onflict", "C", "é", "ç", "x", "cc", "ünïcödé"].map { Array($0.utf8) }
        var found = 0
        for _ in 0..<20_000 {
            var name: [UInt8] = []
            for _ in 0..<Int.random(in: 0...6, using: &random) { name += pieces.randomElement(using: &random)! }
            let expected = name.count >= 8 && (0...(name.count - 8)).contains { name[$0..<($0 + 8)].elementsEqual("conflict".utf8) }
            if expected { found += 1 }
            let got = name.withUnsafeBufferPointer { ConflictCopyName.mentionsConflict(utf8: $0) }
            #expect(got == expected, "\(String(decoding: name, as: UTF8.self))")
        }
        #expect(found > 1_000 && found < 19_000, "both answers are given often")
        // The bytes after a name are never read: the word completed just past its end is not in it.
        let padded = Array("xconflict".utf8)
        for count in 0...padded.count {
            let got = padded.withUnsafeBufferPointer { ConflictCopyName.mentionsConflict(utf8: UnsafeBufferPointer(rebasing: $0[..<count])) }
            #expect(got == (count == padded.count), "the first \(count) bytes of xconflict")
        }
    }
}
