import Testing
@testable import UbiquityIndex

/// A part's names prepared as the engine places them (``PreparedNames``): the same hashes and the
/// same compressed bytes as working each name out alone, whichever thread prepared its chunk.
@Suite("Prepared names")
struct PreparedNamesTests {
    /// Entries named `names`, every one a child of the listing's root.
    static func entries(_ names: [String]) -> CrawlEntries {
        CrawlEntries(names.map { CrawlListing.Entry(parent: -1, name: $0, stat: FileStat(kind: .regular)) })
    }

    /// Long names of many scripts and short ones, one after another.
    static func names(_ count: Int) -> [String] {
        NameCodecTests.longNames(count, seed: 7).enumerated().map { $0.offset % 3 == 0 ? "f\($0.offset)" : $0.element }
    }

    /// What placing entry `i` alone would store: its hash, and its compressed bytes when that saves
    /// bytes and the part is compressed ahead (`ahead`; else the name column compresses it).
    static func alone(_ entries: CrawlEntries, _ i: Int, _ codec: NameCodec?, ahead: Bool = true) -> (hash: Int, encoded: [UInt8]?) {
        entries.withName(i) { name in
            let hash = ChildTable.hash(name)
            guard ahead, let codec, NameColumn.isCompressible(count: name.count) else { return (hash, nil) }
            var out = [UInt8](repeating: 0, count: NameCodec.encodeCapacity)
            let count = out.withUnsafeMutableBufferPointer { codec.encode(name, into: $0.baseAddress!) }
            return (hash, count < name.count ? Array(out.prefix(count)) : nil)
        }
    }

    static let schedules: [PreparedNames.Schedule] = [.concurrent, .secondThreadFirst, .secondThreadLast]

    /// Whether a part is compressed ahead: with a codec and enough long names.
    static func ahead(_ entries: CrawlEntries, _ range: Range<Int>, _ codec: NameCodec?) -> Bool {
        codec != nil && range.filter { NameColumn.isCompressible(count: entries.nameCount($0)) }.count
            >= PreparedNames.minimumLongNamesForThread
    }

    /// Reads `visited` (increasing) through a cursor; returns how many matched `alone`.
    static func matching(_ entries: CrawlEntries, _ range: Range<Int>, _ codec: NameCodec?,
                         _ schedule: PreparedNames.Schedule, visiting visited: [Int]) -> Int {
        let ahead = Self.ahead(entries, range, codec)
        return PreparedNames.preparing(entries, range, codec: codec, schedule: schedule) { cursor in
            var seen = 0
            for i in visited {
                let expected = Self.alone(entries, i, codec, ahead: ahead)
                let hash = cursor.hash(i)
                let encoded = cursor.withEncoded(i) { $0.map(Array.init) }
                guard hash == expected.hash, encoded == expected.encoded else {
                    Issue.record("entry \(i): hash \(hash) against \(expected.hash), encoded \(encoded?.count ?? -1) bytes against \(expected.encoded?.count ?? -1)")
                    return seen
                }
                seen += 1
            }
            return seen
        }
    }

    /// Parts with fewer than ``PreparedNames/minimumLongNamesForThread`` long names, or without a
    /// codec, are hashed as they are read and not compressed ahead; larger ones are, in chunks,
    /// whichever thread prepares them.
    @Test("every entry's hash and compressed bytes are what each name alone gives",
          arguments: [0, 1, 255, 256, 257, 383, 384, 1023, 1024, 1025, 5000], [true, false])
    func sameAsAlone(count: Int, withCodec: Bool) {
        let names = Self.names(count + 10)
        let codec = withCodec ? NameCodecTests.trained(names) : nil
        let entries = Self.entries(names)
        // A range that does not start at the listing's first entry: a part placed after others.
        let range = 10..<entries.count
        for schedule in Self.schedules {
            #expect(Self.matching(entries, range, codec, schedule, visiting: Array(range)) == count, "\(schedule)")
        }
    }

    @Test("entries skipped, whole chunks of them too, or the part left early, leave the others right")
    func skippedChunks() {
        let names = Self.names(6000)
        let codec = NameCodecTests.trained(names)
        let entries = Self.entries(names)
        #expect(Self.ahead(entries, 0..<entries.count, codec))
        // Every 700th entry: most chunks (256 entries) are never read. Then only the first chunk's.
        for visited in [Array(stride(from: 0, to: entries.count, by: 700)), Array(0..<100)] {
            for schedule in Self.schedules {
                #expect(Self.matching(entries, 0..<entries.count, codec, schedule, visiting: visited) == visited.count,
                        "\(schedule), \(visited.count) visited")
            }
        }
    }

    @Test("many parts in a row: whichever thread takes a chunk, the results are the same")
    func manyParts() {
        let names = Self.names(3000)
        let codec = NameCodecTests.trained(names)
        let entries = Self.entries(names)
        var matched = 0
        for _ in 0..<20 {
            matched += Self.matching(entries, 0..<entries.count, codec, .concurrent, visiting: Array(0..<entries.count))
        }
        #expect(matched == 20 * entries.count)
    }
}
