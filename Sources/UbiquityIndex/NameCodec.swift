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
    /// The encoder's index: the codes of the symbols starting with byte `b` are
    /// `codesByFirst[firstStarts[b]..<firstStarts[b + 1]]`, longest first.
    private let firstStarts: [Int]
    private let codesByFirst: [UInt8]

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
        var byFirst = [[UInt8]](repeating: [], count: 256)
        for code in table.indices { byFirst[Int(table[code][0])].append(UInt8(code)) }
        var starts = [0]
        var codes: [UInt8] = []
        for var list in byFirst {
            list.sort { table[Int($0)].count > table[Int($1)].count }
            codes.append(contentsOf: list)
            starts.append(codes.count)
        }
        firstStarts = starts
        codesByFirst = codes
    }

    /// A table trained on a sample of names: the bytes of `sample`, name `i` ending at `ends[i]`.
    convenience init(trainingOn sample: [UInt8], ends: [Int]) {
        self.init(symbols: Self.train(sample, ends: ends))
    }

    deinit {
        symbols.deallocate()
        lengths.deallocate()
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
            base.initialize(repeating: 0, count: Self.decodeCapacity)
            if let source = name.baseAddress { base.update(from: source, count: name.count) }
            return firstStarts.withUnsafeBufferPointer { starts in
                codesByFirst.withUnsafeBufferPointer { codes in
                    var i = 0, o = 0
                    let n = name.count
                    while i < n {
                        let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                        let first = Int(base[i])
                        var matched = false
                        for k in starts[first]..<starts[first + 1] {
                            let code = codes[k]
                            let length = Int(lengths[Int(code)])
                            guard length <= n - i, word & Self.mask(length) == symbols[Int(code)] else { continue }
                            out[o] = code
                            o += 1
                            i += length
                            matched = true
                            break
                        }
                        if !matched {
                            out[o] = Self.escape
                            out[o + 1] = base[i]
                            o += 2
                            i += 1
                        }
                    }
                    return o
                }
            }
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
            let symbolOf = { (s: Int) -> [UInt8] in s >= 256 ? [UInt8(s - 256)] : codec.symbol(UInt8(s)) }
            var gains: [Candidate: Int] = [:]
            for s in 0..<512 where singles[s] > 0 {
                let symbol = symbolOf(s)
                gains[Candidate(word: word(symbol[...]), length: symbol.count), default: 0] += singles[s] * symbol.count
            }
            for s in 0..<512 where singles[s] > 0 {
                let first = symbolOf(s)
                for t in 0..<512 where pairs[s << 9 | t] > 1 {
                    let second = symbolOf(t)
                    let joined = first + second
                    guard joined.count <= maxSymbolLength else { continue }
                    gains[Candidate(word: word(joined[...]), length: joined.count), default: 0] += Int(pairs[s << 9 | t]) * joined.count
                }
            }
            let best = gains.sorted { a, b in
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
