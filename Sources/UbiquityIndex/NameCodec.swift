/// A static symbol table that compresses long names (``NameColumn``): up to 255 symbols of 1–8
/// bytes, each written as a one-byte code, and an escape code (255) followed by one byte as it is
/// for any byte no symbol starts with (the idea of FSST, Boncz, Neumann and Leis, VLDB 2020).
///
/// Encoding takes, at each position, the longest of three: the one symbol of 3–8 bytes that may
/// start there (the table keeps one per hash of a position's first three bytes, the first in the
/// table's order), the 2-byte symbol of the position's two bytes, its byte's 1-byte symbol; else
/// an escape. The table is fixed once trained, so a name always encodes to the same bytes under
/// it. Decoding is a table lookup per code: the code's symbol is stored as one 8-byte word and
/// the output advances by the symbol's length, into a buffer with 8 bytes of room past the
/// longest name (``decodeCapacity``).
///
/// Why one candidate and no branch: each step's position depends on the table entries read at
/// the one before, so a step waits for those loads (a walk through a long name doing only that
/// took 510 ns, the same loads with independent positions 80). The encoder takes every step with
/// the same instructions, and ``encode(count:lendingName:encoded:)`` steps four names in turn, so that
/// their loads overlap: about 480 ns a name of the benchmark's long names, where searching a
/// bucket of longer symbols at every position, then branching on the 2-byte table's answer,
/// took 890; with a table trained for it, its output is 1.5% shorter too (training counts what
/// the encoder takes, so a symbol it would never take is not kept).
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
    /// What to write for the two bytes at a position (the first in the low byte) when the
    /// position's candidate of 3–8 bytes does not match: in the low byte, the 2-byte symbol's
    /// code (with ``stepPair``), else the first byte's 1-byte symbol's code, else ``escape`` (with
    /// ``stepEscape``: the byte follows). 128 KiB.
    private let steps: UnsafeMutablePointer<UInt16>
    /// The same for a position's last byte (no 2-byte symbol fits): by that byte.
    private let lastSteps: UnsafeMutablePointer<UInt16>
    private static let stepEscape: UInt16 = 1 << 8
    private static let stepPair: UInt16 = 1 << 9
    /// The symbols of 3–8 bytes by ``slot(_:)`` of their first three bytes, one each; an empty
    /// slot never matches (a mask of 0 against a word of 1). 48 KiB.
    private let candidates: UnsafeMutablePointer<LongSymbol>
    private static let slotBits = 11

    /// A symbol of 3–8 bytes: its word, the mask of its length, its length and code.
    private struct LongSymbol {
        var word: UInt64 = 1
        var mask: UInt64 = 0
        var length: UInt32 = 0
        var code: UInt32 = 0
    }

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
        var singles = [UInt16](repeating: UInt16(Self.escape) | Self.stepEscape, count: 256)
        var pairs: [UInt16: UInt16] = [:]
        candidates = .allocate(capacity: 1 << Self.slotBits)
        candidates.initialize(repeating: LongSymbol(), count: 1 << Self.slotBits)
        for (code, symbol) in table.enumerated() {
            switch symbol.count {
            case 1: singles[Int(symbol[0])] = UInt16(code)
            case 2: pairs[UInt16(symbol[0]) | UInt16(symbol[1]) << 8] = UInt16(code) | Self.stepPair
            default:
                // The first in the table's order keeps a slot (training puts the symbols that
                // cover most bytes first).
                let word = symbols[code], slot = Self.slot(word)
                guard candidates[slot].mask == 0 else { continue }
                candidates[slot] = LongSymbol(word: word, mask: Self.mask(symbol.count), length: UInt32(symbol.count), code: UInt32(code))
            }
        }
        lastSteps = .allocate(capacity: 256)
        lastSteps.initialize(from: singles, count: 256)
        steps = .allocate(capacity: 1 << 16)
        for pair in 0..<(1 << 16) { (steps + pair).initialize(to: singles[pair & 0xFF]) }
        for (pair, step) in pairs { steps[Int(pair)] = step }
    }

    /// The slot of the candidate for a position whose next bytes are `word`: a hash of its
    /// first three.
    @inline(__always)
    private static func slot(_ word: UInt64) -> Int {
        Int(truncatingIfNeeded: (UInt32(truncatingIfNeeded: word & 0xFF_FFFF) &* 0x9E37_79B1) >> (32 - UInt32(slotBits)))
    }

    /// A table trained on a sample of names: the bytes of `sample`, name `i` ending at `ends[i]`.
    convenience init(trainingOn sample: [UInt8], ends: [Int]) {
        self.init(symbols: Self.train(sample, ends: ends))
    }

    deinit {
        symbols.deallocate()
        lengths.deallocate()
        steps.deallocate()
        lastSteps.deallocate()
        candidates.deallocate()
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
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.decodeCapacity) { padded in
            var lane = Lane(padded: padded.baseAddress!, out: out)
            lane.load(name, index: 0)
            return finish(&lane)
        }
    }

    /// Encodes names `0..<count` (each lent by `lendingName(k, use)` to `use` for the call, at
    /// most ``maxNameBytes``), four at a time with their steps in turn, and hands each encoding
    /// to `encoded(k, bytes)` as it is done (not in order); the same bytes as ``encode(_:into:)``.
    func encode(count: Int, lendingName: (_ k: Int, _ use: (UnsafeBufferPointer<UInt8>) -> Void) -> Void,
                encoded: (_ k: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Void) {
        let stride = Self.decodeCapacity + Self.encodeCapacity
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4 * stride) { buffer in
            let base = buffer.baseAddress!
            func lane(_ k: Int) -> Lane { Lane(padded: base + k * stride, out: base + k * stride + Self.decodeCapacity) }
            var lanes = (lane(0), lane(1), lane(2), lane(3))
            var next = 0
            /// Finishes the lane's name, if it holds one, and hands its encoding back.
            func handBack(_ lane: inout Lane) {
                guard lane.index >= 0 else { return }
                encoded(lane.index, UnsafeBufferPointer(start: lane.out, count: finish(&lane)))
                lane.index = -1
            }
            /// Finishes a lane whose name has fewer than 8 bytes left, and loads the next name:
            /// false when there is none.
            func refill(_ lane: inout Lane) -> Bool {
                while lane.i &+ Self.maxSymbolLength > lane.n {
                    handBack(&lane)
                    guard next < count else { return false }
                    lendingName(next) { lane.load($0, index: next) }
                    next &+= 1
                }
                return true
            }
            while refill(&lanes.0) && refill(&lanes.1) && refill(&lanes.2) && refill(&lanes.3) {
                step(&lanes.0)
                step(&lanes.1)
                step(&lanes.2)
                step(&lanes.3)
            }
            // No name left to load: what the lanes hold is finished one by one.
            handBack(&lanes.0)
            handBack(&lanes.1)
            handBack(&lanes.2)
            handBack(&lanes.3)
        }
    }

    /// A name being encoded: its bytes and 8 zeros after them, its output, and how far each is.
    private struct Lane {
        let padded: UnsafeMutablePointer<UInt8>
        let out: UnsafeMutablePointer<UInt8>
        var n = 0, i = 0, o = 0
        /// Which name (for ``encode(count:lendingName:encoded:)``); -1 for none.
        var index = -1

        init(padded: UnsafeMutablePointer<UInt8>, out: UnsafeMutablePointer<UInt8>) {
            self.padded = padded
            self.out = out
        }

        mutating func load(_ name: UnsafeBufferPointer<UInt8>, index: Int) {
            precondition(name.count <= NameCodec.maxNameBytes, "a name of \(name.count) bytes to encode")
            if let source = name.baseAddress { padded.initialize(from: source, count: name.count) }
            (padded + name.count).initialize(repeating: 0, count: NameCodec.maxSymbolLength)
            (n, i, o, self.index) = (name.count, 0, 0, index)
        }

        /// The 8 bytes at the position.
        var word: UInt64 { UnsafeRawPointer(padded + i).loadUnaligned(as: UInt64.self) }
    }

    /// One step where 8 bytes or more are left (every symbol fits): the same instructions
    /// whatever it writes. The byte after the code is written always, and kept only after an
    /// escape.
    @inline(__always)
    private func step(_ lane: inout Lane) {
        let word = lane.word
        let candidate = candidates[Self.slot(word)]
        let step = steps[Int(truncatingIfNeeded: word & 0xFFFF)]
        let long = word & candidate.mask == candidate.word
        lane.out[lane.o] = long ? UInt8(truncatingIfNeeded: candidate.code) : UInt8(truncatingIfNeeded: step)
        lane.out[lane.o &+ 1] = UInt8(truncatingIfNeeded: word)
        lane.o &+= long ? 1 : 1 &+ Int(truncatingIfNeeded: step >> 8 & 1)
        lane.i &+= long ? Int(truncatingIfNeeded: candidate.length) : 1 &+ Int(truncatingIfNeeded: step >> 9 & 1)
    }

    /// Encodes the rest of the lane's name; returns the encoding's length. The last 7 bytes are
    /// stepped checking that a symbol fits before the name's end.
    private func finish(_ lane: inout Lane) -> Int {
        while lane.i &+ Self.maxSymbolLength <= lane.n { step(&lane) }
        while lane.i < lane.n {
            let word = lane.word, left = lane.n &- lane.i
            let candidate = candidates[Self.slot(word)]
            var step = steps[Int(truncatingIfNeeded: word & 0xFFFF)]
            if word & candidate.mask == candidate.word && Int(candidate.length) <= left {
                lane.out[lane.o] = UInt8(truncatingIfNeeded: candidate.code)
                lane.o &+= 1
                lane.i &+= Int(candidate.length)
                continue
            }
            if left < 2 { step = lastSteps[Int(truncatingIfNeeded: word & 0xFF)] }
            lane.out[lane.o] = UInt8(truncatingIfNeeded: step)
            lane.out[lane.o &+ 1] = UInt8(truncatingIfNeeded: word)
            lane.o &+= 1 &+ Int(truncatingIfNeeded: step >> 8 & 1)
            lane.i &+= 1 &+ Int(truncatingIfNeeded: step >> 9 & 1)
        }
        return lane.o
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
