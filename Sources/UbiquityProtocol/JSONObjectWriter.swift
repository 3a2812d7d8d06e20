import CUbiquitySystem
import UbiquityJSON

/// One JSON object being written into bytes, its keys in the order the caller gives them (the
/// caller keeps them sorted, as ``JSONLine`` sorts keys). Used by ``ResultEncoder``.
struct JSONObjectWriter {
    private(set) var out: [UInt8]
    private var needsComma = false

    /// Reserves `bytes` up front (an estimate of the whole line, generous rather than short: a
    /// big buffer is mapped by the kernel page by page as it is written, so room never written
    /// costs nothing, while growing a buffer of megabytes copies it and touches twice the pages).
    init(reserving bytes: Int) {
        out = Self.reservedBuffer(bytes)
        out.append(UInt8(ascii: "{"))
    }

    /// An empty buffer with room for `bytes` (and a little more); a buffer of megabytes is
    /// advised for huge pages: one page fault per huge page rather than one per 4 KiB.
    static func reservedBuffer(_ bytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(min(max(bytes, 0), 1 << 32) + 128)
        let capacity = out.capacity
        out.withUnsafeMutableBufferPointer { ubq_prefer_huge_pages($0.baseAddress, capacity) }
        return out
    }

    private init(taking out: inout [UInt8]) {
        self.out = []
        swap(&self.out, &out)
        self.out.append(UInt8(ascii: "{"))
    }

    mutating func key(_ name: StaticString) {
        if needsComma { out.append(UInt8(ascii: ",")) }
        needsComma = true
        out.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(contentsOf: "\":".utf8)
    }

    mutating func string(_ name: StaticString, _ value: String) {
        key(name)
        JSONLine.writeString(value, to: &out)
    }

    mutating func integer(_ name: StaticString, _ number: Int) {
        value(name, .integer(Int64(number)))
    }

    mutating func value(_ name: StaticString, _ value: JSONValue) {
        key(name)
        JSONLine.write(value, to: &out)
    }

    /// A value written as it is (`true`).
    mutating func literal(_ name: StaticString, _ text: StaticString) {
        key(name)
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// A member whose value is an object, written by `body` into the same bytes (no copy).
    mutating func object(_ name: StaticString, _ body: (inout JSONObjectWriter) -> Void) {
        key(name)
        var inner = JSONObjectWriter(taking: &out)
        body(&inner)
        inner.out.append(UInt8(ascii: "}"))
        swap(&out, &inner.out)
    }

    /// Opens a member whose value is an object (`"name":{`): the members written next are its
    /// own, and whoever ends the line closes it.
    mutating func openObject(_ name: StaticString) {
        key(name)
        out.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// The bytes so far, the object left open (the rest of the line follows them); the writer
    /// is left empty.
    mutating func takeOpen() -> [UInt8] {
        var bytes: [UInt8] = []
        swap(&bytes, &out)
        return bytes
    }

    /// Lets a caller write a value of its own after ``key(_:)``.
    mutating func withBytes(_ body: (inout [UInt8]) -> Void) { body(&out) }

    /// Closes the object and ends the line, handing the bytes over (the writer is left empty).
    ///
    /// Mutating, not `consuming`: a consuming method may work on a copy of the writer, and its
    /// appends then copied the whole line (megabytes) to a new buffer.
    mutating func finish() -> [UInt8] {
        out.append(UInt8(ascii: "}"))
        out.append(0x0A)
        var line: [UInt8] = []
        swap(&line, &out)
        return line
    }
}
