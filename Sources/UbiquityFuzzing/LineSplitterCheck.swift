import NIOCore
import UbiquityKit

/// The daemon's stream — or whatever answers on its socket path — as UbiquityKit cuts it into
/// lines (``ServerLineSplitter``), a read at a time.
///
/// The first byte of the input chooses how the rest is cut into reads; the rest is the stream.
/// The lines (bytes, and where an item list taken apart was and how many items it held) and
/// whether the stream was refused as too long must be the same when the stream comes in one read,
/// a byte at a time, and in reads of 1 to 64 bytes. Lines are capped at ``maxLineBytes`` so that
/// the refusal is reached; a refusal ends the stream. Neither way may trap.
public enum LineSplitterCheck: FuzzCheck {
    public static let name = "line-splitter"

    /// The longest line the splitter is given here: short, so that short inputs reach the refusal.
    static let maxLineBytes = 1024

    /// One line as compared: its bytes, where its item list was and how many items it held.
    struct Line: Equatable {
        var bytes: [UInt8]
        var listStart: Int
        var listedCount: Int
    }

    /// The lines the splitter gives for `stream` cut into reads of `readSize` bytes (the whole
    /// stream when nil), and whether it refused a line as too long.
    static func split(_ stream: [UInt8], readSize: Int?) -> (lines: [Line], refused: Bool) {
        var splitter = ServerLineSplitter(maxLineBytes: maxLineBytes)
        var inputs: [ServerInput] = []
        var refused = false
        var start = 0
        repeat {
            let end = readSize.map { min(stream.count, start + $0) } ?? stream.count
            do { try splitter.split(ByteBuffer(bytes: stream[start..<end]), into: &inputs) } catch {
                refused = true
                break
            }
            start = end
        } while start < stream.count
        let lines = inputs.compactMap { input -> Line? in
            guard case .line(let line) = input else { return nil }
            return Line(bytes: Array(line.bytes.readableBytesView), listStart: line.listStart, listedCount: line.listedCount)
        }
        return (lines, refused)
    }

    public static func accepts(_ bytes: [UInt8]) -> Bool {
        guard bytes.count > 1 else { return false }
        let whole = split(Array(bytes.dropFirst()), readSize: nil)
        return !whole.refused && !whole.lines.isEmpty
    }

    public static func check(_ bytes: [UInt8]) -> String? {
        guard let first = bytes.first else { return nil }
        let stream = Array(bytes.dropFirst())
        let whole = split(stream, readSize: nil)
        for readSize in [1, Int(first % 64) + 1] {
            let cut = split(stream, readSize: readSize)
            if cut.refused != whole.refused {
                return "in reads of \(readSize) bytes the stream is \(cut.refused ? "" : "not ")refused; in one read it is \(whole.refused ? "" : "not ")refused"
            }
            if cut.lines != whole.lines {
                return "in reads of \(readSize) bytes the stream gives \(cut.lines.count) lines, in one read \(whole.lines.count), or other lines"
            }
        }
        return nil
    }
}
