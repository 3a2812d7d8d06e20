import Glibc
import Synchronization

/// A crawl part's names made ready to place, by a second thread while the engine places them:
/// each name's ``ChildTable`` hash (``NameHash``) and each long name's compressed bytes
/// (``NameCodec``), in chunks of ``chunkEntries`` entries. Only once the name codec is trained and
/// for a part with enough long names (``minimumLongNamesForThread``); any other part is read as
/// before, each name hashed as it is asked for and compressed by the name column.
///
/// The engine takes the chunks in order as it places their entries (``Cursor``). A chunk no thread
/// has claimed yet the engine prepares itself; for one the second thread is on, it prepares the
/// next unclaimed chunks until that one is done. The second thread claims the next unclaimed
/// chunk each time, until none is left. So the engine never waits for the thread to start, and
/// both threads work until the part's last chunk.
///
/// Why: on a crawl of long names (60–200 bytes) encoding and hashing are about a third of the
/// engine's work placing a part. Before, the part's names were encoded in two halves on two
/// threads and only then placed, and the second core idled while they were placed: at the end of
/// a crawl the engine, placing the parts the walk sent ahead, is what the answer waits for.
///
/// The bytes are the ones ``NameColumn/append(utf8:)`` would store: the same codec, the same rule
/// (compressed only when that saves bytes); the hashes the ones ``ChildTable/hash(_:)`` gives.
///
/// Unchecked `Sendable`: a chunk is written only by the thread that claimed it (``claimed``,
/// one compare-and-swap or increment per chunk) and read by the engine only after that thread
/// published it (``secondThreadDone``, release then acquire), or, for a chunk the engine claimed,
/// after preparing it itself; the entries and the codec are only read.
final class PreparedNames: @unchecked Sendable {
    /// Entries per chunk: claiming one (an atomic operation) costs nothing next to its work, and
    /// the engine waits at most one chunk's work when it catches up with the second thread.
    static let chunkEntries = 256
    /// Parts with fewer long names (``NameColumn/isCompressible(count:)``), or none to compress
    /// (no codec yet), are placed as before: each name hashed as it is read and compressed by the
    /// name column as it is stored. A thread costs more than it saves.
    static let minimumLongNamesForThread = 256

    /// Who prepares the chunks, and when: tests choose the two orders a thread's timing can only
    /// make likely.
    enum Schedule {
        /// A second thread, concurrently with the engine.
        case concurrent
        /// The second thread's work done whole before the engine starts: every chunk the
        /// engine reads it waits for.
        case secondThreadFirst
        /// The second thread's work done after the engine's, as when no thread could be had:
        /// every chunk the engine reads it prepares itself, and those it did not reach are
        /// prepared afterwards.
        case secondThreadLast
    }

    /// One chunk's work.
    final class Chunk {
        /// Per entry: its name's hash.
        fileprivate(set) var hashes: [Int] = []
        /// Per entry: where its compressed bytes start in ``bytes`` and how many there are; a
        /// count of 0 for a name stored as it is.
        fileprivate(set) var spans: [(start: Int32, count: Int32)] = []
        /// Compressed bytes of the chunk's long names, one after another.
        fileprivate(set) var bytes: [UInt8] = []
    }

    private let entries: CrawlEntries
    private let range: Range<Int>
    private let codec: NameCodec?
    private let chunks: [Chunk]
    /// Chunks handed out so far (the next one to claim).
    private let claimed = Atomic<Int>(0)
    /// One past the last chunk the second thread finished: it takes increasing chunks and
    /// finishes each before claiming the next, so any chunk it claimed below this is done.
    private let secondThreadDone = Atomic<Int>(0)

    /// `chunked` false: nothing to prepare (no chunk), each name hashed as it is asked for.
    private init(_ entries: CrawlEntries, _ range: Range<Int>, codec: NameCodec?, chunked: Bool) {
        self.entries = entries
        self.range = range
        self.codec = codec
        let count = chunked ? (range.count + Self.chunkEntries - 1) / Self.chunkEntries : 0
        chunks = (0..<count).map { _ in Chunk() }
    }

    /// Runs `place` with `entries[range]`'s names being prepared, by a second thread too; returns
    /// once both are done. Without a codec, or with fewer than ``minimumLongNamesForThread`` long
    /// names, each name is hashed as it is read and none is compressed ahead (the name column
    /// compresses it as it stores it): what placing did before names were prepared.
    static func preparing<R>(_ entries: CrawlEntries, _ range: Range<Int>, codec: NameCodec?,
                             schedule: Schedule = .concurrent, _ place: (inout Cursor) -> R) -> R {
        let ahead = codec != nil && countsEnoughLongNames(entries, range)
        let prepared = PreparedNames(entries, range, codec: codec, chunked: ahead)
        var cursor = Cursor(prepared, ahead: ahead)
        // The cursor refers to the names unowned: they live until this returns, and it cannot
        // be copied out of `place` (not `Copyable`).
        return withExtendedLifetime(prepared) { run(prepared, schedule, ahead: ahead, place, &cursor) }
    }

    private static func run<R>(_ prepared: PreparedNames, _ schedule: Schedule, ahead: Bool,
                               _ place: (inout Cursor) -> R, _ cursor: inout Cursor) -> R {
        guard ahead else { return place(&cursor) }
        switch schedule {
        case .concurrent:
            return SideThread.run({ prepared.prepareUnclaimedChunks() }) { place(&cursor) }
        case .secondThreadFirst:
            prepared.prepareUnclaimedChunks()
            return place(&cursor)
        case .secondThreadLast:
            defer { prepared.prepareUnclaimedChunks() }
            return place(&cursor)
        }
    }

    /// Whether `entries[range]` has at least ``minimumLongNamesForThread`` long names.
    private static func countsEnoughLongNames(_ entries: CrawlEntries, _ range: Range<Int>) -> Bool {
        var long = 0
        for i in range where NameColumn.isCompressible(count: entries.nameCount(i)) {
            long += 1
            if long >= minimumLongNamesForThread { return true }
        }
        return false
    }

    /// The second thread's work: claims chunks in turn and prepares each, until none is left.
    private func prepareUnclaimedChunks() {
        while true {
            let chunk = claimed.add(1, ordering: .relaxed).oldValue
            guard chunk < chunks.count else { return }
            prepare(chunk)
            secondThreadDone.store(chunk + 1, ordering: .releasing)
        }
    }

    /// Claims chunk `chunk` for the calling thread if it is the next one unclaimed.
    fileprivate func claim(_ chunk: Int) -> Bool {
        claimed.compareExchange(expected: chunk, desired: chunk + 1, ordering: .relaxed).exchanged
    }

    /// Claims the next unclaimed chunk, if there is one; returns it.
    fileprivate func claimNext() -> Int? {
        var next = claimed.load(ordering: .relaxed)
        while next < chunks.count {
            let (exchanged, now) = claimed.compareExchange(expected: next, desired: next + 1, ordering: .relaxed)
            if exchanged { return next }
            next = now
        }
        return nil
    }

    /// Whether the second thread has finished chunk `chunk`, one it claimed.
    fileprivate func secondThreadFinished(_ chunk: Int) -> Bool {
        secondThreadDone.load(ordering: .acquiring) > chunk
    }

    fileprivate func prepare(_ chunk: Int) {
        let first = range.lowerBound + chunk * Self.chunkEntries
        let span = first..<Swift.min(first + Self.chunkEntries, range.upperBound)
        let out = chunks[chunk]
        // The chunk's results built in locals and handed over at the end: written into `out` (a
        // class) name by name, each write was an exclusivity check of its arrays.
        let entries = self.entries
        let key = NameHash.key
        out.hashes = span.map { i in entries.withName(i) { NameHash.hash($0, key: key) } }
        guard let codec else { return }
        var long: [Int] = [], byteCount = 0
        for i in span where NameColumn.isCompressible(count: entries.nameCount(i)) {
            long.append(i)
            byteCount += entries.nameCount(i)
        }
        var spans = [(start: Int32, count: Int32)](repeating: (0, 0), count: span.count)
        defer { out.spans = spans }
        guard !long.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        codec.encode(count: long.count, lendingName: { k, use in entries.withName(long[k], use) }) { k, encoded in
            // Kept only when that saves bytes.
            guard encoded.count < entries.nameCount(long[k]) else { return }
            spans[long[k] - first] = (Int32(truncatingIfNeeded: bytes.count), Int32(truncatingIfNeeded: encoded.count))
            bytes.append(contentsOf: encoded)
        }
        out.bytes = bytes
    }

    /// What the engine reads entries' prepared names through, in increasing order of entry.
    struct Cursor: ~Copyable {
        /// Unowned, so that reading an entry takes no reference count: ``preparing(_:_:codec:schedule:_:)``
        /// keeps it alive while the cursor is lent, and the cursor cannot be copied out.
        private unowned(unsafe) let prepared: PreparedNames
        /// False: nothing prepared, each name hashed as it is asked for.
        private let ahead: Bool
        private let entries: CrawlEntries
        private let rangeStart: Int
        private var chunkIndex = -1
        /// The entry where the chunk in hand starts, and that chunk's work (held here, so that
        /// reading an entry's takes no reference count).
        private var first = 0
        private var hashes: [Int] = []
        private var spans: [(start: Int32, count: Int32)] = []
        private var bytes: [UInt8] = []
        /// Chunks the engine prepared ahead while it waited for the second thread.
        private var preparedAhead: [Bool] = []

        fileprivate init(_ prepared: PreparedNames, ahead: Bool) {
            self.prepared = prepared
            self.ahead = ahead
            entries = prepared.entries
            rangeStart = prepared.range.lowerBound
            preparedAhead = Array(repeating: false, count: prepared.chunks.count)
        }

        /// Moves to entry `i`'s chunk (entries are visited in increasing order); returns where
        /// `i` is in it.
        @inline(__always)
        private mutating func position(_ i: Int) -> Int {
            let index = (i - rangeStart) / PreparedNames.chunkEntries
            if index != chunkIndex {
                precondition(index > chunkIndex, "PreparedNames: entries taken out of order")
                // A chunk skipped (none of its entries placed) is claimed, unprepared if it was
                // not claimed yet: ``ready(_:)`` counts on every chunk before its own being claimed.
                for skipped in chunkIndex + 1..<index where !preparedAhead[skipped] { _ = prepared.claim(skipped) }
                ready(index)
                let chunk = prepared.chunks[index]
                (hashes, spans, bytes) = (chunk.hashes, chunk.spans, chunk.bytes)
                chunkIndex = index
                first = rangeStart + index * PreparedNames.chunkEntries
            }
            return i - first
        }

        /// Makes chunk `index` ready: prepared here if no thread claimed it yet, else waited for.
        /// While it waits, it prepares the next unclaimed chunks itself (work it would do or wait
        /// for anyway), so the second thread's chunks stay in increasing order; with none left,
        /// it yields the processor: the second thread is at most one chunk's work from done.
        private mutating func ready(_ index: Int) {
            if preparedAhead[index] { return }
            if prepared.claim(index) {
                prepared.prepare(index)
                return
            }
            while !prepared.secondThreadFinished(index) {
                if let next = prepared.claimNext() {
                    prepared.prepare(next)
                    preparedAhead[next] = true
                } else {
                    sched_yield()
                }
            }
        }

        /// Entry `i`'s name's hash (``NameHash``).
        @inline(__always)
        mutating func hash(_ i: Int) -> Int {
            guard ahead else { return entries.withName(i) { NameHash.hash($0) } }
            return hashes[position(i)]
        }

        /// Lends entry `i`'s compressed bytes, nil for a name stored as it is (or not compressed ahead).
        @inline(__always)
        mutating func withEncoded<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
            guard ahead else { return body(nil) }
            let at = position(i)
            guard at < spans.count, spans[at].count > 0 else { return body(nil) }
            let span = spans[at]
            return bytes.withUnsafeBufferPointer { all in
                body(UnsafeBufferPointer(rebasing: all[Int(span.start)..<Int(span.start) + Int(span.count)]))
            }
        }
    }
}
