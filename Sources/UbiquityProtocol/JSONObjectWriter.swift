import UbiquityPredicate

/// One JSON object being written into bytes, its keys in the order the caller gives them (the
/// caller keeps them sorted, as ``JSONLine`` sorts keys). Used by ``ResultEncoder``.
struct JSONObjectWriter {
    private(set) var out: [UInt8]
    private var needsComma = false

    /// Reserves about 160 bytes per result item (a path of a hundred bytes and a name), so a big
    /// answer grows its buffer rarely.
    init(reservingForItems items: Int) {
        out = []
        out.reserveCapacity(128 + min(max(items, 0), 1 << 24) * 160)
        out.append(UInt8(ascii: "{"))
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

    /// Lets a caller write a value of its own after ``key(_:)``.
    mutating func withBytes(_ body: (inout [UInt8]) -> Void) { body(&out) }

    /// Closes the object and ends the line.
    consuming func finish() -> [UInt8] {
        out.append(UInt8(ascii: "}"))
        out.append(0x0A)
        return out
    }
}
