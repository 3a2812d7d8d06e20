package import UbiquityProtocol

/// A long answer line from the daemon — or from whatever listens on its socket path — as the
/// clients read it while it arrives: its first item list taken a read at a time (``ItemListScan``),
/// the rest of the line read after.
///
/// The line read so, in reads of several sizes, is the same message as the line read whole, or
/// both are refused with the same error. Neither may trap, and the scan holds no more than its
/// lookahead (64 KiB) of an item it has not recognised.
///
/// The input is `[read size] line`, where the line's byte `0xFF` is a run: `0xFF n` repeats the
/// byte before it `n × 512` times (`0xFF 0` is `0xFF` itself). So short inputs make items and
/// strings of more than 64 KiB, and reach the lookahead's end.
public enum ItemListScanCheck: FuzzCheck {
    public static let name = "item-list-scan"

    /// The longest line an input expands to: past the lookahead twice, and no more, so that every
    /// input is read in milliseconds.
    static let maxLineBytes = ItemListScan.lookahead * 5 / 2

    /// The line an input describes, its runs expanded (at most 255 × 512 bytes each), cut at
    /// ``maxLineBytes``.
    static func line(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var line: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex, line.count < maxLineBytes {
            let byte = bytes[index]
            index += 1
            guard byte == 0xFF else {
                line.append(byte)
                continue
            }
            guard index < bytes.endIndex else { break }
            let times = Int(bytes[index]) * 512
            index += 1
            if times == 0 {
                line.append(0xFF)
            } else if let last = line.last {
                line.append(contentsOf: repeatElement(last, count: min(times, maxLineBytes - line.count)))
            }
        }
        return Array(line.prefix(maxLineBytes))
    }

    /// One read's bytes, which stay where they are as long as this object lives (as a NIO
    /// buffer's storage does for the items kept from it).
    package final class Read: @unchecked Sendable {
        // @unchecked: `bytes` is written once, here, and only read afterwards.
        package let bytes: UnsafeMutableRawBufferPointer

        package init(_ bytes: ArraySlice<UInt8>) {
            self.bytes = .allocate(byteCount: bytes.count, alignment: 1)
            bytes.withUnsafeBytes { self.bytes.copyMemory(from: $0) }
        }

        deinit { bytes.deallocate() }
    }

    /// What the client's reader leaves of `line` when it arrives in reads of the sizes `reads`
    /// gives (called with the read's number) after the list's `[`: the line without the items
    /// kept, those items, the scan, and the most bytes of an item it held over between reads.
    package static func taken(_ line: [UInt8], reads: (Int) -> Int)
        -> (bytes: [UInt8], listed: ListedItems?, scan: ItemListScan, mostCarried: Int) {
        var scan = ItemListScan()
        guard let head = line.withUnsafeBytes({ ItemListScan.head(of: $0) }) else { return (line, nil, scan, 0) }
        var mostCarried = 0
        var pieces: [EncodedItems] = []
        var position = head.listStart + 1
        var rest: [UInt8]?
        var round = 0
        while rest == nil, position < line.count {
            let size = min(line.count - position, max(1, reads(round)))
            round += 1
            let read = Read(line[position..<(position + size)])
            if let end = scan.take(UnsafeRawBufferPointer(read.bytes), keptBy: read) {
                rest = end.prefix + Array(line[(position + end.index)...])
            }
            pieces += scan.takePieces()
            mostCarried = max(mostCarried, scan.carriedBytes)
            position += size
        }
        // A line that ends inside its list: the reader ends the scan where it is.
        let tail = rest ?? scan.end()
        let listed = scan.count > 0 ? ListedItems(listStart: head.listStart, pieces: pieces, count: scan.count) : nil
        return (Array(line[...head.listStart]) + tail, listed, scan, mostCarried)
    }

    /// `bytes` read as the clients read a line, with the items `listed` taken from it before.
    package static func message(_ bytes: [UInt8], listed: ListedItems? = nil) -> Result<ServerMessage, ProtocolError> {
        bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ProtocolError) in try ServerMessage(line: buffer, listed: listed) }
        }
    }

    public static func accepts(_ bytes: [UInt8]) -> Bool {
        guard bytes.count > 1 else { return false }
        let line = line(bytes.dropFirst())
        return line.withUnsafeBytes { ItemListScan.head(of: $0) } != nil && (try? message(line).get()) != nil
    }

    public static func check(_ bytes: [UInt8]) -> String? {
        guard let first = bytes.first else { return nil }
        let line = line(bytes.dropFirst())
        let whole = message(line)
        // Small reads (cutting items and their escapes), a read of the size the first byte says,
        // and reads past the lookahead, in turn.
        let sizes = [Int(first % 8) + 1, Int(first) * 61 + 1, ItemListScan.lookahead + 7]
        let (rest, listed, _, mostCarried) = taken(line) { sizes[$0 % sizes.count] }
        if mostCarried >= ItemListScan.lookahead {
            return "the scan held \(mostCarried) bytes of an item, past its lookahead of \(ItemListScan.lookahead)"
        }
        switch (message(rest, listed: listed), whole) {
        case (.success(let read), .success(let expected)):
            return read == expected ? nil : "read as it arrives the line is \(read), read whole \(expected)"
        case (.failure(let read), .failure(let expected)):
            return read.message == expected.message ? nil : "read as it arrives the line is refused with '\(read.message)', read whole with '\(expected.message)'"
        case (.success, .failure(let expected)):
            return "read as it arrives the line is read; read whole it is refused: \(expected.message)"
        case (.failure(let read), .success):
            return "read as it arrives the line is refused ('\(read.message)'); read whole it is read"
        }
    }
}
