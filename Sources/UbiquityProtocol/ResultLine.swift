import UbiquityPredicate

/// One line that carries a whole result set (`query.gatheringFinished`, `query.reset`, the
/// `query.results` response), written a piece at a time.
///
/// An answer of 100k items is tens of megabytes. Written whole, it is a buffer of that size,
/// freshly mapped (and zeroed by the kernel page by page) for every answer, and the client
/// reads nothing until the last item is encoded. Written in pieces, the server encodes the next
/// piece while the socket carries the last one, and reuses the same few small buffers.
///
/// The line is its head (`{…,"results":[`), the rows, and its tail (`]}` and the newline):
/// ``write(to:atLeast:)`` appends the next bytes in that order; ``whole()`` writes it all at once.
///
/// ```swift
/// var line = encoder.gatheringFinished(query: 3, rows: rows, fresh: nil, clock: token)
/// var chunk: [UInt8] = []
/// while !line.isFinished {
///     chunk.removeAll(keepingCapacity: true)
///     line.write(to: &chunk, atLeast: 64 << 10)
///     send(chunk)
/// }
/// ```
public struct ResultLine<Rows: ResultRows> {
    private let head: [UInt8]
    private let rows: Rows
    private let keys: [ResultKey]
    private let tail: [UInt8]
    /// The next row to write; `rows.count` once every row is written.
    private var next = 0
    private var headWritten = false
    public private(set) var isFinished = false
    /// How many rows ahead ``ResultRows/prefetch(_:)`` is asked for.
    private static var prefetchDistance: Int { 8 }
    /// About how many bytes the whole line takes (room to reserve for ``whole()``): counted
    /// only when asked, as it reads every row's path length.
    public var estimatedBytes: Int { head.count + tail.count + Self.estimate(rows, keys) }

    init(head: [UInt8], rows: Rows, keys: [ResultKey], tail: [UInt8]) {
        self.head = head
        self.rows = rows
        self.keys = keys
        self.tail = tail
    }

    /// Appends the line's next bytes to `out` until `out` holds at least `atLeast` bytes (the
    /// row that crosses it is written whole) or the line ends.
    public mutating func write(to out: inout [UInt8], atLeast: Int) {
        guard !isFinished else { return }
        if !headWritten {
            out.append(contentsOf: head)
            headWritten = true
        }
        let count = max(rows.count, 0)
        let plain = rows.textNeedsNoEscaping
        while next < count && out.count < atLeast {
            // Rows are read in result order, scattered in their buffer: ask for the bytes of a
            // row a few ahead so that its cache misses overlap the writing of these.
            if next + Self.prefetchDistance < count { rows.prefetch(next + Self.prefetchDistance) }
            if next > 0 { out.append(UInt8(ascii: ",")) }
            write(row: next, plain: plain, to: &out)
            next += 1
        }
        if next >= count {
            out.append(contentsOf: tail)
            isFinished = true
        }
    }

    /// The rest of the line in one buffer, room reserved once and advised for huge pages.
    public mutating func whole() -> [UInt8] {
        var out = JSONObjectWriter.reservedBuffer(estimatedBytes)
        write(to: &out, atLeast: .max)
        return out
    }

    /// Row `i` as `{"attributes":{…},"path":"…"}`, the attributes in ``keys``' order; `plain`:
    /// its path and name need no escaping.
    private func write(row i: Int, plain: Bool, to out: inout [UInt8]) {
        func text(_ utf8: UnsafeBufferPointer<UInt8>) {
            guard plain else { return JSONLine.writeString(utf8: utf8, to: &out) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: utf8)
            out.append(UInt8(ascii: "\""))
        }
        out.append(contentsOf: #"{"attributes":{"#.utf8)
        var written = 0
        for key in keys {
            if key.attribute == .name, let _ = rows.withName(i, { name in
                if written > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: key.bytes)
                text(name)
                written += 1
            }) { continue }
            guard let value = rows.value(i, key.attribute) else { continue }
            if written > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: key.bytes)
            ResultKey.write(value, to: &out)
            written += 1
        }
        out.append(contentsOf: #"},"path":"#.utf8)
        rows.withPath(i) { text($0) }
        out.append(UInt8(ascii: "}"))
    }

    /// The rows' bytes, from the bytes of their paths: each row's path, its name (at most as
    /// long), its keys, a few dozen bytes for any other value, and room for escapes.
    private static func estimate(_ rows: Rows, _ keys: [ResultKey]) -> Int {
        let count = min(max(rows.count, 0), 1 << 24)
        let keyBytes = keys.reduce(0) { $0 + $1.bytes.count + ($1.attribute == .name ? 1 : 32) }
        let path = min(max(rows.pathBytes, 0), 1 << 32)
        let name = keys.contains { $0.attribute == .name } ? path : 0
        return count * (32 + keyBytes) + path + name + (path + name) / 8
    }
}

extension ResultLine: Sendable where Rows: Sendable {}
