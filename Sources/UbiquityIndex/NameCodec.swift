/// A static symbol table that compresses long names (``NameColumn``): up to 255 symbols of 1–8
/// bytes, each written as a one-byte code, and an escape code (255) followed by one byte as it is
/// for any byte no symbol starts with (the idea of FSST, Boncz, Neumann and Leis, VLDB 2020).
///
/// Encoding is greedy: at each byte, the longest symbol that matches there, else an escape. The
/// table is fixed once trained, so a name always encodes to the same bytes under it. Decoding is a
/// table lookup per code: the code's symbol is stored as one 8-byte word and the output advances
/// by the symbol's length, into a buffer with 8 bytes of room past the longest name
/// (``decodeCapacity``).
///
/// ```
/// symbols:  0 "0000"  1 "日"  2 "é"  3 "Item_000"  ...
/// "Item_00001234-日é" ─encode─▶ [3, 9, 10, 11, 12, 13, 1, 2]   (codes of "0", "1", "2", ... )
/// ```
///
/// Training (``init(trainingOn:ends:)``) runs five rounds over a sample of names: each round
/// encodes the sample with the table so far, counts how often each symbol (and each escaped byte)
/// and each pair of neighbouring symbols occurs, and keeps the 255 candidates — the symbols, the
/// escaped bytes and the pairs joined, up to 8 bytes — that cover the most bytes (count × length).
///
/// Limits: a name of at most ``maxNameBytes`` (255, a file name's limit) is encoded; an encoding
/// is at most twice the name (every byte escaped).
final class NameCodec {
    /// The code followed by a byte written as it is.
    static let escape: UInt8 = 255
    /// Longest symbol.
    static let maxSymbolLength = 8
    /// Longest name encoded and decoded.
    static let maxNameBytes = 255
    /// Room for a decoded name: the longest and a symbol's word stored past its end.
    static let decodeCapacity = maxNameBytes + maxSymbolLength
    /// Room for an encoded name: every byte escaped.
    static let encodeCapacity = 2 * maxNameBytes
    /// Rounds of training.
    static let trainingRounds = 5

    /// Code `c`'s symbol, little-endian, zero past its length (256 entries; 255 unused).
    private let symbols: UnsafeMutablePointer<UInt64>
    /// Code `c`'s symbol's length in bytes (0 for an unused code).
    private let lengths: UnsafeMutablePointer<UInt8>
    /// The encoder's index of symbols of 3–8 bytes, by their first byte and the low 6 bits of
    /// their second (``bucket(_:_:)``): bucket `k`'s symbols are
    /// `bucketEntries[bucketStarts[k]..<bucketStarts[k + 1]]`, longest first, each with its code
    /// beside it (one load fewer on the path from a byte to the next). A few symbols to try at a
    /// byte, where one list per first byte held a dozen (the Latin letters after 0xC3, the CJK
    /// ideographs after 0xE6). 20 KiB.
    private let bucketStarts: UnsafeMutablePointer<UInt8>
    private let bucketEntries: UnsafeMutablePointer<Entry>

    /// A symbol of the encoder's index: its word, length and code.
    private struct Entry {
        var word: UInt64 = 0
        var length: UInt32 = 0
        var code: UInt32 = 0
    }
    /// The code of the 1-byte symbol of each byte, or 256 for none.
    private let singleCodes: UnsafeMutablePointer<UInt16>
    /// What the encoder writes for the two bytes at a position (the first in the low byte) when
    /// no longer symbol matches there: the 2-byte symbol's code with ``pairFlag``, else the first
    /// byte's 1-byte symbol's code, else 256 (an escape). One load for most of a name's bytes,
    /// where a bucket's list was searched for them. 128 KiB.
    private let pairCodes: UnsafeMutablePointer<UInt16>
    private static let pairFlag: UInt16 = 1 << 9
    private static let bucketCount = 256 << 6

    /// How many symbols the table has.
    let symbolCount: Int

    /// The table of `symbols` (each 1–8 bytes; at most 255, no two equal), code `i` for
    /// `symbols[i]`.
    init(symbols table: [[UInt8]]) {
        precondition(table.count <= Int(Self.escape), "\(table.count) symbols for at most \(Self.escape) codes")
        symbols = .allocate(capacity: 256)
        symbols.initialize(repeating: 0, count: 256)
        lengths = .allocate(capacity: 256)
        lengths.initialize(repeating: 0, count: 256)
        for (code, symbol) in table.enumerated() {
            precondition((1...Self.maxSymbolLength).contains(symbol.count), "a symbol of \(symbol.count) bytes")
            symbols[code] = Self.word(symbol[...])
            lengths[code] = UInt8(symbol.count)
        }
        symbolCount = table.count
        singleCodes = .allocate(capacity: 256)
        singleCodes.initialize(repeating: 256, count: 256)
        var longer: [(bucket: Int, length: Int, code: Int)] = []
        var doubles: [(UInt8, UInt8, Int)] = []
        for (code, symbol) in table.enumerated() {
            switch symbol.count {
            case 1: singleCodes[Int(symbol[0])] = UInt16(code)
            case 2: doubles.append((symbol[0], symbol[1], code))
            default: longer.append((Self.bucket(symbol[0], symbol[1]), symbol.count, code))
            }
        }
        // By bucket; in a bucket longest first, equal lengths by code, so the order is the table's.
        // (One sort of at most 255 symbols: training makes a codec per round, and a dictionary
        // of buckets looked up for each of the 16,384 was most of that.)
        longer.sort { ($0.bucket, $1.length, $0.code) < ($1.bucket, $0.length, $1.code) }
        pairCodes = .allocate(capacity: 1 << 16)
        for pair in 0..<(1 << 16) { (pairCodes + pair).initialize(to: singleCodes[pair & 0xFF]) }
        for (first, second, code) in doubles { pairCodes[Int(first) | Int(second) << 8] = UInt16(code) | Self.pairFlag }
        bucketStarts = .allocate(capacity: Self.bucketCount + 1)
        bucketEntries = .allocate(capacity: Swift.max(table.count, 1))
        bucketEntries.initialize(repeating: Entry(), count: Swift.max(table.count, 1))
        var next = 0
        for k in 0..<Self.bucketCount {
            bucketStarts[k] = UInt8(next)
            while next < longer.count && longer[next].bucket == k {
                let code = longer[next].code
                bucketEntries[next] = Entry(word: symbols[code], length: UInt32(lengths[code]), code: UInt32(code))
                next += 1
            }
        }
        bucketStarts[Self.bucketCount] = UInt8(next)
    }

    /// The encoder's bucket of a symbol of 3 bytes or more starting with bytes `first` and `second`.
    @inline(__always)
    private static func bucket(_ first: UInt8, _ second: UInt8) -> Int { Int(first) << 6 | Int(second & 0x3F) }

    /// A table trained on a sample of names: the bytes of `sample`, name `i` ending at `ends[i]`.
    convenience init(trainingOn sample: [UInt8], ends: [Int]) {
        self.init(symbols: Self.train(sample, ends: ends))
    }

    deinit {
        symbols.deallocate()
        lengths.deallocate()
        bucketStarts.deallocate()
        bucketEntries.deallocate()
        singleCodes.deallocate()
        pairCodes.deallocate()
    }

    /// The symbols, code by code.
    var table: [[UInt8]] { (0..<symbolCount).map { symbol(UInt8($0)) } }

    func symbol(_ code: UInt8) -> [UInt8] {
        let word = symbols[Int(code)]
        return (0..<Int(lengths[Int(code)])).map { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) }
    }

    /// What reads names with this table (``NameColumn/Reader``): its storage, without a
    /// reference to it; valid while the codec lives.
    var decoder: Decoder { Decoder(symbols: symbols, lengths: lengths) }

    /// Encodes `name` (at most ``maxNameBytes``) into `out` (room for ``encodeCapacity``);
    /// returns the encoding's length.
    func encode(_ name: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        precondition(name.count <= Self.maxNameBytes, "a name of \(name.count) bytes to encode")
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.decodeCapacity) { padded in
            // The name and zeros after it: 8 bytes are read at any position.
            let base = padded.baseAddress!
            let n = name.count
            if let source = name.baseAddress { base.initialize(from: source, count: n) }
            (base + n).initialize(repeating: 0, count: Self.maxSymbolLength)
            // The tables in locals: a store to `out` could alias the codec's fields, which would
            // be read again after each one.
            let pairCodes = self.pairCodes, singleCodes = self.singleCodes
            let bucketStarts = self.bucketStarts, bucketEntries = self.bucketEntries
            var i = 0, o = 0
            encoding: while i < n {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                let k = Int(truncatingIfNeeded: (word & 0xFF) << 6 | (word >> 8) & 0x3F)
                for c in Int(bucketStarts[k])..<Int(bucketStarts[k + 1]) {
                    let entry = bucketEntries[c]
                    let length = Int(entry.length)
                    guard length <= n - i, word & Self.mask(length) == entry.word else { continue }
                    out[o] = UInt8(truncatingIfNeeded: entry.code)
                    o += 1
                    i += length
                    continue encoding
                }
                var pair = pairCodes[Int(truncatingIfNeeded: word & 0xFFFF)]
                // A 2-byte symbol over the padding after the last byte is no match: the first byte's.
                if pair & Self.pairFlag != 0 && n - i < 2 { pair = singleCodes[Int(truncatingIfNeeded: word & 0xFF)] }
                if pair < 256 {
                    out[o] = UInt8(truncatingIfNeeded: pair)
                    o += 1
                    i += 1
                } else if pair & Self.pairFlag != 0 {
                    out[o] = UInt8(truncatingIfNeeded: pair)
                    o += 1
                    i += 2
                } else {
                    out[o] = Self.escape
                    out[o + 1] = base[i]
                    o += 2
                    i += 1
                }
            }
            return o
        }
    }

    /// The low `length` bytes of a word.
    @inline(__always)
    static func mask(_ length: Int) -> UInt64 { length >= 8 ? ~0 : (1 << (8 * UInt64(length))) - 1 }

    /// Up to 8 bytes as a little-endian word.
    static func word(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var word: UInt64 = 0
        for (k, byte) in bytes.enumerated() { word |= UInt64(byte) << (8 * UInt64(k)) }
        return word
    }

    /// A codec's tables for decoding, two pointers: what a reader of many names keeps.
    struct Decoder {
        let symbols: UnsafePointer<UInt64>
        let lengths: UnsafePointer<UInt8>

        init(symbols: UnsafeMutablePointer<UInt64>, lengths: UnsafeMutablePointer<UInt8>) {
            self.symbols = UnsafePointer(symbols)
            self.lengths = UnsafePointer(lengths)
        }

        /// Decodes `encoded` into `out` (room for ``NameCodec/decodeCapacity``), stopping once at
        /// least `limit` bytes are out; returns how many are, and whether that is the whole name.
        @inline(__always)
        func decode(_ encoded: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
                    limit: Int = NameCodec.maxNameBytes) -> (count: Int, isWhole: Bool) {
            var i = 0, o = 0
            let n = encoded.count
            let raw = UnsafeMutableRawPointer(out)
            while i < n && o < limit {
                let code = encoded[i]
                i += 1
                if code == NameCodec.escape {
                    // The encoder never ends on an escape; a stored name is one it wrote.
                    guard i < n else { break }
                    out[o] = encoded[i]
                    i += 1
                    o += 1
                } else {
                    (raw + o).storeBytes(of: symbols[Int(code)], as: UInt64.self)
                    o += Int(lengths[Int(code)])
                }
            }
            return (o, i >= n)
        }

        /// Lends `encoded`'s decoded bytes from a buffer on the stack.
        @inline(__always)
        func withDecoded<R>(_ encoded: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: NameCodec.decodeCapacity) { buffer in
                let count = decode(encoded, into: buffer.baseAddress!).count
                return try body(UnsafeBufferPointer(start: buffer.baseAddress!, count: count))
            }
        }
    }
}

extension NameCodec {
    /// A symbol being considered: up to 8 bytes in a word, and its length.
    private struct Candidate: Hashable {
        let word: UInt64
        let length: Int
    }

    /// The symbols of a table trained on `sample` (names end to end, name `i` ending at
    /// `ends[i]`), by count × length over ``trainingRounds`` rounds; deterministic.
    static func train(_ sample: [UInt8], ends: [Int]) -> [[UInt8]] {
        var table: [[UInt8]] = []
        // Symbols 0..<256 are codes, 256 + b the escaped byte b.
        var singles = [Int](repeating: 0, count: 512)
        var pairs = [UInt32](repeating: 0, count: 512 * 512)
        var out = [UInt8](repeating: 0, count: encodeCapacity)
        for _ in 0..<trainingRounds {
            let codec = NameCodec(symbols: table)
            for k in singles.indices { singles[k] = 0 }
            for k in pairs.indices { pairs[k] = 0 }
            sample.withUnsafeBufferPointer { bytes in
                out.withUnsafeMutableBufferPointer { out in
                    var start = 0
                    for end in ends {
                        let name = UnsafeBufferPointer(rebasing: bytes[start..<Swift.min(end, start + maxNameBytes)])
                        start = end
                        let count = codec.encode(name, into: out.baseAddress!)
                        var previous = -1
                        var i = 0
                        while i < count {
                            let symbol = out[i] == escape ? 256 + Int(out[i + 1]) : Int(out[i])
                            i += out[i] == escape ? 2 : 1
                            singles[symbol] += 1
                            if previous >= 0 { pairs[previous << 9 | symbol] &+= 1 }
                            previous = symbol
                        }
                    }
                }
            }
            // Each symbol as a candidate: a code's word and length, or an escaped byte.
            let candidateOf = { (s: Int) -> Candidate in
                s >= 256 ? Candidate(word: UInt64(s - 256), length: 1)
                         : Candidate(word: codec.symbols[s], length: Int(codec.lengths[s]))
            }
            var gains: [Candidate: Int] = [:]
            gains.reserveCapacity(1 << 13)
            for s in 0..<512 where singles[s] > 0 {
                let symbol = candidateOf(s)
                gains[symbol, default: 0] += singles[s] * symbol.length
            }
            for s in 0..<512 where singles[s] > 0 {
                let first = candidateOf(s)
                for t in 0..<512 where pairs[s << 9 | t] > 1 {
                    let second = candidateOf(t)
                    let length = first.length + second.length
                    guard length <= maxSymbolLength else { continue }
                    let joined = Candidate(word: first.word | second.word << (8 * UInt64(first.length)), length: length)
                    gains[joined, default: 0] += Int(pairs[s << 9 | t]) * length
                }
            }
            // Only the candidates that can be among the best are sorted: those whose gain is at
            // least the 255th largest (sorting every candidate, thousands of them, each round was
            // most of the training).
            var values = Array(gains.values)
            values.sort(by: >)
            let least = values.count > Int(escape) ? values[Int(escape) - 1] : Int.min
            let best = gains.filter { $0.value >= least }.sorted { a, b in
                a.value != b.value ? a.value > b.value : a.key.length != b.key.length ? a.key.length > b.key.length : a.key.word < b.key.word
            }.prefix(Int(escape))
            table = best.map { candidate in
                (0..<candidate.key.length).map { UInt8(truncatingIfNeeded: candidate.key.word >> (8 * UInt64($0))) }
            }
        }
        return table
    }
}

// Immutable once made: its tables are written in `init` only and read by any thread after.
extension NameCodec: @unchecked Sendable {}
