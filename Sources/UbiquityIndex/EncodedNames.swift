/// The long names of a crawl's part compressed ahead of placing them (``NameCodec``), half of
/// them on a second thread (``SideThread``), so that placing the part only copies their bytes.
/// Each half is encoded four names at a time (``NameCodec/encode(count:lendingName:encoded:)``).
///
/// Why: on a crawl of names of 60–200 bytes, encoding was about a fifth of the engine's time,
/// and the engine, placing parts one after another on one thread, is what the crawl waits for
/// at its end; the machine's other core is then free. The bytes are the ones
/// ``NameColumn/append(utf8:)`` would store: the same codec, the same rule (compressed only
/// when that saves bytes).
struct EncodedNames {
    /// The part's two halves, each encoded by a thread of its own.
    private let lower: Half, upper: Half

    /// Parts with fewer long names are encoded as they are placed: a thread costs more than it saves.
    static let minimumNames = 256

    /// `entries[range]`'s names compressed with `codec`, in two halves on two threads; nil when
    /// fewer than ``minimumNames`` of them are long enough to be compressed.
    static func encode(_ entries: CrawlEntries, _ range: Range<Int>, codec: NameCodec) -> EncodedNames? {
        let middle = range.lowerBound + range.count / 2
        // Each half's long names' bytes, room for what it keeps (compressed, so less): grown by
        // doubling, the bytes were mapped, copied and unmapped again several times per part (perf).
        var long = 0, lowerBytes = 0, upperBytes = 0
        for i in range {
            let count = entries.nameCount(i)
            guard NameColumn.isCompressible(count: count) else { continue }
            long += 1
            if i < middle { lowerBytes += count } else { upperBytes += count }
        }
        guard long >= minimumNames else { return nil }
        var upper = Half(first: middle)
        let lower = SideThread.run({ upper.encode(entries, middle..<range.upperBound, codec, reserving: upperBytes) }) {
            var lower = Half(first: range.lowerBound)
            lower.encode(entries, range.lowerBound..<middle, codec, reserving: lowerBytes)
            return lower
        }
        return EncodedNames(lower: lower, upper: upper)
    }

    /// Lends entry `i`'s compressed bytes, nil for a name stored as it is.
    func withEncoded<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        i < upper.first ? lower.withEncoded(i, body) : upper.withEncoded(i, body)
    }

    private struct Half {
        /// Compressed bytes of the names one after another.
        private var bytes: [UInt8] = []
        /// Per entry of the range: where its compressed bytes start in ``bytes`` and how many there
        /// are; a count of 0 for a name stored as it is.
        private var spans: [(start: Int32, count: Int32)] = []
        let first: Int

        init(first: Int) { self.first = first }

        /// Encodes the long names of `entries[range]` several at a time (``NameCodec/encode(count:lendingName:encoded:)``),
        /// in the order they finish: each span says where its bytes are.
        mutating func encode(_ entries: CrawlEntries, _ range: Range<Int>, _ codec: NameCodec, reserving byteCount: Int) {
            spans = Array(repeating: (0, 0), count: range.count)
            bytes.reserveCapacity(byteCount)
            let long = range.filter { NameColumn.isCompressible(count: entries.nameCount($0)) }
            codec.encode(count: long.count, lendingName: { k, use in entries.withName(long[k], use) }) { k, encoded in
                // Kept only when that saves bytes.
                guard encoded.count < entries.nameCount(long[k]) else { return }
                spans[long[k] - first] = (Int32(truncatingIfNeeded: bytes.count), Int32(truncatingIfNeeded: encoded.count))
                bytes.append(contentsOf: encoded)
            }
        }

        func withEncoded<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
            let span = spans[i - first]
            guard span.count > 0 else { return body(nil) }
            return bytes.withUnsafeBufferPointer { all in
                body(UnsafeBufferPointer(rebasing: all[Int(span.start)..<Int(span.start) + Int(span.count)]))
            }
        }
    }
}
