import CUbiquityBytes
import UbiquityJSON

/// One line that carries a whole result set (`query.gatheringFinished`, `query.reset`, the
/// `query.results` response), written a piece at a time.
///
/// An answer of 100k items is tens of megabytes. Written whole, it is a buffer of that size,
/// freshly mapped (and zeroed by the kernel page by page) for every answer, and the client
/// reads nothing until the last item is encoded. Written in pieces, the server encodes the next
/// piece while the socket carries the last one, and reuses the same few small buffers.
///
/// The line is its head (`{…,"results":[`), the rows, and its tail (`]}` and the newline):
/// ``write(into:)`` writes the next bytes in that order straight into a buffer the socket is
/// handed, ``write(to:atLeast:)`` appends them to an array; ``whole()`` writes it all at once.
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
    private let columns: ResultColumns
    private let keys: [ResultKey]
    private let tail: [UInt8]
    /// Paths and names need no escaping.
    private let plain: Bool
    /// Every row has one form, copied without a look at its bytes (``write(into:)``):
    /// `{"attributes":{` and `}`, with the name under ``nameKey`` between them, then the path.
    private let rowsAreCopied: Bool
    /// `"kMDItemFSName":` when the name is the one attribute of a copied row; empty when the
    /// query asked for no attribute.
    private let nameKey: [UInt8]
    /// What a copied row starts with: `,{"attributes":{`, then ``nameKey`` and `"` when the name
    /// is asked for (the first row leaves out the comma).
    private let lead: [UInt8]
    /// What comes between a copied row's attributes and its directory's path: `"},"path":"`
    /// (`},"path":"` when no attribute is asked for).
    private let middleOpening: [UInt8]
    /// The next row to write; `rows.count` once every row is written.
    private var next = 0
    private var headWritten = false
    public private(set) var isFinished = false
    /// About how many bytes the whole line takes (room to reserve for ``whole()``): counted
    /// only when asked, as it reads every row.
    public var estimatedBytes: Int { head.count + tail.count + Self.estimate(columns, keys) }

    init(head: [UInt8], rows: Rows, keys: [ResultKey], tail: [UInt8]) {
        self.head = head
        self.rows = rows
        self.columns = rows.columns
        self.keys = keys
        self.tail = tail
        plain = rows.textNeedsNoEscaping
        let nameOnly = keys.count == 1 && keys[0].attribute == .name && rows.namesFromPaths
        rowsAreCopied = plain && (keys.isEmpty || nameOnly)
        nameKey = nameOnly ? keys[0].bytes : []
        lead = Array(#",{"attributes":{"#.utf8) + (nameOnly ? nameKey + [UInt8(ascii: "\"")] : [])
        middleOpening = Array((nameOnly ? #""},"path":""# : #"},"path":""#).utf8)
    }

    /// Appends the line's next bytes to `out` until `out` holds at least `atLeast` bytes (the
    /// row that crosses it is written whole) or the line ends.
    public mutating func write(to out: inout [UInt8], atLeast: Int) {
        guard !isFinished else { return }
        if !headWritten {
            out.append(contentsOf: head)
            headWritten = true
        }
        let count = columns.count
        columns.withView { view in
            while next < count && out.count < atLeast {
                if next > 0 { out.append(UInt8(ascii: ",")) }
                write(row: next, view, to: &out)
                next += 1
            }
        }
        if next >= count {
            out.append(contentsOf: tail)
            isFinished = true
        }
    }

    /// Writes the line's next bytes into `buffer`, as many whole rows (and the head and tail) as
    /// fit: straight into the buffer the socket is given, with no piece copied on the way.
    ///
    /// - Returns: The bytes written; 0 when the next row does not fit even an empty buffer of
    ///   this size (``write(to:atLeast:)`` writes any row, however long).
    public mutating func write(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !isFinished, let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        let capacity = buffer.count
        var at = 0
        @inline(__always) func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress else { return }
            ubq_copy(base + at, source, bytes.count)
            at += bytes.count
        }
        @inline(__always) func copy(_ byte: UInt8) {
            base[at] = byte
            at += 1
        }
        if !headWritten {
            guard head.count <= capacity else { return 0 }
            head.withUnsafeBufferPointer { copy($0) }
            headWritten = true
        }
        let count = columns.count
        columns.withView { view in
            if rowsAreCopied {
                // A row is four copies and two bytes: the lead (`,` and `{"attributes":{`, with
                // the name's key and quote when it is asked for), the name, the middle (the
                // quote and brace that close the attributes, `,"path":"` and the directory's
                // path, made once per directory), the name again, and `"}`.
                let withName = !nameKey.isEmpty
                var middle: [UInt8] = []
                var middleDirectory: Int32?
                lead.withUnsafeBufferPointer { lead in
                    while next < count {
                        let name = view.name(next), directory = view.rowDirectories[next]
                        if directory != middleDirectory {
                            middle.removeAll(keepingCapacity: true)
                            middle.append(contentsOf: middleOpening)
                            middle.append(contentsOf: view.directory(of: next))
                            middleDirectory = directory
                        }
                        let leadBytes = next > 0 ? lead : UnsafeBufferPointer(rebasing: lead.dropFirst())
                        let size = leadBytes.count + (withName ? name.count : 0) + middle.count + name.count + 2
                        guard at + size <= capacity else { break }
                        copy(leadBytes)
                        if withName { copy(name) }
                        middle.withUnsafeBufferPointer { copy($0) }
                        copy(name)
                        copy(UInt8(ascii: "\""))
                        copy(UInt8(ascii: "}"))
                        next += 1
                    }
                }
            } else {
                var row: [UInt8] = []
                while next < count {
                    row.removeAll(keepingCapacity: true)
                    if next > 0 { row.append(UInt8(ascii: ",")) }
                    write(row: next, view, to: &row)
                    guard at + row.count <= capacity else { break }
                    row.withUnsafeBufferPointer { copy($0) }
                    next += 1
                }
            }
        }
        if next >= count && at + tail.count <= capacity {
            tail.withUnsafeBufferPointer { copy($0) }
            isFinished = true
        }
        return at
    }

    /// The rest of the line in one buffer, room reserved once and advised for huge pages.
    public mutating func whole() -> [UInt8] {
        var out = JSONObjectWriter.reservedBuffer(estimatedBytes)
        write(to: &out, atLeast: .max)
        return out
    }

    /// Row `i` as `{"attributes":{…},"path":"…"}`, the attributes in ``keys``' order.
    private func write(row i: Int, _ view: ResultColumns.View, to out: inout [UInt8]) {
        func text(_ utf8: UnsafeBufferPointer<UInt8>) {
            if plain { out.append(contentsOf: utf8) } else { JSONLine.writeEscaped(utf8: utf8, to: &out) }
        }
        out.append(contentsOf: #"{"attributes":{"#.utf8)
        var written = 0
        for key in keys {
            if key.attribute == .name && rows.namesFromPaths {
                if written > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: key.bytes)
                out.append(UInt8(ascii: "\""))
                text(view.name(i))
                out.append(UInt8(ascii: "\""))
                written += 1
                continue
            }
            guard let value = rows.value(i, key.attribute) else { continue }
            if written > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: key.bytes)
            ResultKey.write(value, to: &out)
            written += 1
        }
        out.append(contentsOf: #"},"path":""#.utf8)
        text(view.directory(of: i))
        text(view.name(i))
        out.append(contentsOf: #""}"#.utf8)
    }

    /// The rows' bytes: each row's path, its name (at most as long), its keys, a few dozen
    /// bytes for any other value, and room for escapes.
    private static func estimate(_ columns: ResultColumns, _ keys: [ResultKey]) -> Int {
        let count = min(max(columns.count, 0), 1 << 24)
        let keyBytes = keys.reduce(0) { $0 + $1.bytes.count + ($1.attribute == .name ? 1 : 32) }
        let path = min(max(columns.pathBytes, 0), 1 << 32)
        let name = keys.contains { $0.attribute == .name } ? path : 0
        return count * (32 + keyBytes) + path + name + (path + name) / 8
    }
}

extension ResultLine: Sendable where Rows: Sendable {}
