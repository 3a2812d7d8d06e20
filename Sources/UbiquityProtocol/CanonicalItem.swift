import Glibc
import UbiquityJSON

/// Recognises a result item written exactly as the client would write back the item it reads
/// from it (``WireItem/writeJSON(path:oldPath:attributes:to:)``): `{"attributes":{…},"oldPath":"…",
/// "path":"…"}`, compact, keys in order, strings escaped as ``JSONLine`` escapes them. The daemon
/// writes every item so (no attribute is a fractional number), which lets a client keep an item
/// as its bytes and print it without reading and writing it again.
///
/// The test is strict and never throws: anything else — whitespace, another escape (`\/`, `\b`,
/// `\u00E9`), a raw U+2028, `1.0` (read as the integer 1), keys out of order or repeated, a missing
/// or `null` member, invalid UTF-8, any malformation — is "not canonical", and the caller reads the
/// item as before (``JSONScanner``), with the same value or the same error. So what it accepts is
/// valid JSON that ``JSONScanner`` reads to an item whose writing gives these bytes back
/// (`CanonicalItemTests` check both on the daemon's items and on mutations of them).
struct CanonicalItem {
    /// Nesting allowed inside `attributes` (lists of tags are one level); deeper is left to the
    /// scanner, which also keeps its own depth limit.
    static let maxDepth = 16

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index: Int

    private init(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) {
        self.bytes = bytes
        self.index = index
    }

    /// Where the canonical item starting at `start` ends (one past its `}`); nil when the bytes
    /// there are not one.
    static func end(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        check(in: bytes, from: start).end
    }

    /// ``end(in:from:)``, and where the check stopped when the bytes are not a canonical item. A
    /// check looks at most ``lookahead`` bytes past where it stops, so an item of a line still
    /// arriving that stopped further than that from the last byte received will never be one;
    /// one that stopped closer may only be cut short (``ItemListScan``).
    static func check(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int?, stoppedAt: Int) {
        guard start >= 0, start <= bytes.count else { return (nil, start) }
        var reader = CanonicalItem(bytes, start)
        let accepted = reader.item()
        return (accepted ? reader.index : nil, reader.index)
    }

    /// The longest literal, `{"attributes":`, is 14 bytes; an escape, 6.
    static let lookahead = 16

    private mutating func item() -> Bool {
        guard literal(#"{"attributes":"#), object(depth: 0) else { return false }
        if literal(#","oldPath":"#) {
            guard string() else { return false }
        }
        return literal(#","path":"#) && string() && take(UInt8(ascii: "}"))
    }

    // MARK: - Values

    private mutating func value(depth: Int) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "{"): return depth < CanonicalItem.maxDepth && object(depth: depth + 1)
        case UInt8(ascii: "["): return depth < CanonicalItem.maxDepth && array(depth: depth + 1)
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return false
        }
    }

    /// `{}` or `{"k":v,…}` with keys in strictly increasing order, as ``JSONLine`` sorts them.
    /// Keys are plain ASCII without escapes (attribute names are), so that order is byte order.
    private mutating func object(depth: Int) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        var previous: Range<Int>?
        while true {
            guard let key = key() else { return false }
            if let previous, !precedes(previous, key) { return false }
            previous = key
            guard take(UInt8(ascii: ":")), value(depth: depth) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "}"))
        }
    }

    private mutating func array(depth: Int) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        while true {
            guard value(depth: depth) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]"))
        }
    }

    /// A key: the bytes between its quotes, all ASCII from 0x20 up except `"` and `\`.
    private mutating func key() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var seen: UInt64 = 0
        // The run ends at the closing quote, or at a byte no key holds (a control character, `\`,
        // 0xE2); a non-ASCII byte inside it shows in `seen`. Such a key stops the check a little
        // further on than a byte-by-byte look would, which only holds an item over longer.
        JSONLine.skipPlainWords(bytes, from: &index, seen: &seen)
        guard seen & 0x80 == 0, index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        return start..<(index - 1)
    }

    /// Byte order, a prefix first: `String`'s `<` on ASCII text.
    private func precedes(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        var i = a.lowerBound, j = b.lowerBound
        while i < a.upperBound, j < b.upperBound {
            if bytes[i] != bytes[j] { return bytes[i] < bytes[j] }
            i += 1
            j += 1
        }
        return i == a.upperBound && j < b.upperBound
    }

    // MARK: - Strings

    /// A string with only the escapes ``JSONLine/writeString(_:to:)`` writes (`\"`, `\\`, `\n`,
    /// `\r`, `\t`, `\u00xx` in lower case for the other control characters, `\u2028`, `\u2029`) and
    /// no raw byte it would escape; valid UTF-8.
    private mutating func string() -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        let start = index
        // Every byte read, or'ed: its high bit says whether the string needs a UTF-8 check.
        var seen: UInt64 = 0
        while true {
            // Sixteen bytes at a time while none needs a look (the scanner's loop).
            JSONLine.skipPlainWords(bytes, from: &index, seen: &seen)
            guard index < bytes.count else { return false }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let end = index
                index += 1
                return seen & 0x8080_8080_8080_8080 == 0 || CanonicalItem.isValidUTF8(bytes, start..<end)
            case UInt8(ascii: "\\"):
                guard escape() else { return false }
            case 0x00..<0x20:
                return false
            case 0xE2:
                // A raw U+2028 or U+2029 is written escaped.
                if index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 {
                    return false
                }
                seen |= UInt64(byte)
                index += 1
            default:
                seen |= UInt64(byte)
                index += 1
            }
        }
    }

    /// At `\`: one of the escapes the writer writes, and nothing else.
    private mutating func escape() -> Bool {
        guard index + 1 < bytes.count else { return false }
        switch bytes[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
            return true
        case UInt8(ascii: "u"):
            guard index + 6 <= bytes.count else { return false }
            let d = (bytes[index + 2], bytes[index + 3], bytes[index + 4], bytes[index + 5])
            let zero = UInt8(ascii: "0")
            if d.0 == UInt8(ascii: "2"), d.1 == zero, d.2 == UInt8(ascii: "2"), d.3 == UInt8(ascii: "8") || d.3 == UInt8(ascii: "9") {
                index += 6
                return true
            }
            // \u0000-\u001f, lower-case hex, except the three with short escapes.
            guard d.0 == zero, d.1 == zero, d.2 == zero || d.2 == UInt8(ascii: "1") else { return false }
            let low: UInt8
            switch d.3 {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): low = d.3 - zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): low = d.3 - UInt8(ascii: "a") + 10
            default: return false
            }
            let scalar = (d.2 - zero) << 4 | low
            guard scalar != 0x09, scalar != 0x0A, scalar != 0x0D else { return false }
            index += 6
            return true
        default:
            return false
        }
    }

    /// Well-formed UTF-8 as `String(validating:)` takes it: no overlong forms, no surrogates,
    /// nothing past U+10FFFF, no sequence cut short.
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var i = range.lowerBound
        let end = range.upperBound
        guard i >= 0, end <= bytes.count else { return false }
        func continuation(_ at: Int) -> Bool { at < end && bytes[at] & 0xC0 == 0x80 }
        while i < end {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            switch lead {
            case 0xC2...0xDF:
                guard continuation(i + 1) else { return false }
                i += 2
            case 0xE0...0xEF:
                guard i + 1 < end else { return false }
                let second = bytes[i + 1]
                let range: ClosedRange<UInt8> = lead == 0xE0 ? 0xA0...0xBF : lead == 0xED ? 0x80...0x9F : 0x80...0xBF
                guard range.contains(second), continuation(i + 2) else { return false }
                i += 3
            case 0xF0...0xF4:
                guard i + 1 < end else { return false }
                let second = bytes[i + 1]
                let range: ClosedRange<UInt8> = lead == 0xF0 ? 0x90...0xBF : lead == 0xF4 ? 0x80...0x8F : 0x80...0xBF
                guard range.contains(second), continuation(i + 2), continuation(i + 3) else { return false }
                i += 4
            default:
                return false
            }
        }
        return true
    }

    // MARK: - Numbers

    /// A number as ``JSONLine`` writes the value the scanner reads from it: an integer without a
    /// leading zero or `-0` that fits 64 bits; any other number only when writing what it reads
    /// to gives these bytes again (`1.5` does, `1.0` and `1e2` are read as integers and do not).
    private mutating func number() -> Bool {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        guard skipDigits() else { return false }
        let digits = index - digitsStart
        let isFraction = index < bytes.count && (bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e")
            || bytes[index] == UInt8(ascii: "E"))
        if !isFraction {
            // "0", or digits not starting with 0 (`01` is not JSON).
            if bytes[digitsStart] == UInt8(ascii: "0") { return digits == 1 && !negative }
            if digits < 19 { return true }
            if digits > 19 { return false }
            return !CanonicalItem.exceeds(bytes, digitsStart, limit: negative ? "9223372036854775808" : "9223372036854775807")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() else { return false }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            guard skipDigits() else { return false }
        }
        // Rare (attributes are integers, strings and dates): read it and write it back.
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        var scanner = JSONScanner(text)
        guard let value = try? scanner.document() else { return false }
        var written: [UInt8] = []
        JSONLine.write(value, to: &written)
        return written.elementsEqual(text)
    }

    /// Skips one or more digits; false when there is none.
    private mutating func skipDigits() -> Bool {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }

    /// Whether the 19 digits at `start` are greater than `limit` (19 digits too).
    private static func exceeds(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, limit: StaticString) -> Bool {
        limit.withUTF8Buffer { limit in
            for k in 0..<limit.count where bytes[start + k] != limit[k] { return bytes[start + k] > limit[k] }
            return false
        }
    }

    // MARK: - Bytes

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        assert(text.hasPointerRepresentation, "a literal is text, not one scalar")
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count, let base = bytes.baseAddress else { return false }
        guard memcmp(base + index, text.utf8Start, count) == 0 else { return false }
        index += count
        return true
    }
}
