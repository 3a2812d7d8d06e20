import UbiquityJSON

/// Reads JSON from the bytes of one line in one pass, without Foundation: the client's decoder
/// for what the daemon sends ([docs/protocol.md](../../docs/protocol.md)).
///
/// `JSONDecoder` into ``JSONValue`` tries each kind of value in turn and throws on every miss;
/// a 10,000-item answer took hundreds of milliseconds to read that way. This scanner decides a
/// value's kind from its first byte, and reads result items (`{"attributes":…,"oldPath":…,
/// "path":…}`) straight into ``WireItem``s, with no tree in between; an item written as the
/// daemon writes it is only checked, and kept as its bytes (``wireItems()``).
///
/// It reads values as `JSONDecoder` does into ``JSONValue``: a number that is a whole number
/// and fits 64 bits is an integer (also `1.0` and `1e2`), any other finite number a double; of
/// repeated keys the first counts; invalid UTF-8, a raw control character in a string, a lone
/// surrogate or a number too large for a double is an error. Nesting deeper than
/// ``maxDepth`` is an error rather than a deep recursion.
struct JSONScanner {
    static let maxDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0
    private var depth = 0
    /// Where result items kept as bytes refer to: the line these bytes are, or a copy made for
    /// the first such item.
    private var line: ReceivedLine?
    /// The line's first list of items, kept as they arrived; the line is without them.
    private let listed: ListedItems?

    /// These bytes are a line without the items of its first list, which arrived apart.
    var lacksListedItems: Bool { (listed?.count ?? 0) > 0 }

    /// `listed`, if any: these bytes are a line without the items of its first list.
    init(_ bytes: UnsafeBufferPointer<UInt8>, listed: ListedItems? = nil) {
        self.bytes = bytes
        self.listed = listed
    }

    /// Scans a line whose bytes result items may keep referring to; `listed` as above.
    init(_ line: ReceivedLine, listed: ListedItems? = nil) {
        self.bytes = line.bytes
        self.line = line
        self.listed = listed
    }

    /// The whole input: one value, with only whitespace around it.
    mutating func document() throws(ProtocolError) -> JSONValue {
        let value = try value()
        try end()
        return value
    }

    /// Checks that only whitespace is left.
    mutating func end() throws(ProtocolError) {
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected text after the value") }
    }

    // MARK: - Values

    mutating func value() throws(ProtocolError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw failure("the text ended where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try object())
        case UInt8(ascii: "["): return .array(try array())
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character where a value was expected")
        }
    }

    private mutating func literal(_ text: StaticString, _ value: JSONValue) throws(ProtocolError) -> JSONValue {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count,
              text.withUTF8Buffer({ $0.elementsEqual(UnsafeBufferPointer(rebasing: bytes[index..<(index + count)])) })
        else { throw failure("unexpected character where a value was expected") }
        index += count
        return value
    }

    mutating func object() throws(ProtocolError) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        try members { (scanner, key) throws(ProtocolError) in
            let value = try scanner.value()
            if object[key] == nil { object[key] = value }
        }
        return object
    }

    /// Reads `{…}`, handing each key to `member`, which must read the member's value.
    mutating func members(_ member: (inout JSONScanner, String) throws(ProtocolError) -> Void) throws(ProtocolError) {
        try sequence(opening: "{", closing: "}", of: "an object") { (scanner) throws(ProtocolError) in
            scanner.skipWhitespace()
            guard scanner.peek(UInt8(ascii: "\"")) else { throw scanner.failure("expected a key in quotes") }
            let key = try scanner.string()
            scanner.skipWhitespace()
            guard scanner.peek(UInt8(ascii: ":")) else { throw scanner.failure("expected ':' after a key") }
            scanner.index += 1
            try member(&scanner, key)
        }
    }

    mutating func array() throws(ProtocolError) -> [JSONValue] {
        var array: [JSONValue] = []
        try elements { (scanner) throws(ProtocolError) in array.append(try scanner.value()) }
        return array
    }

    /// Reads `[…]`, calling `element` to read each element.
    mutating func elements(_ element: (inout JSONScanner) throws(ProtocolError) -> Void) throws(ProtocolError) {
        try sequence(opening: "[", closing: "]", of: "an array", element)
    }

    /// An object or an array: `opening`, then entries separated by commas, each read by `entry`, then `closing`.
    private mutating func sequence(opening: Unicode.Scalar, closing: Unicode.Scalar, of kind: String,
                                   _ entry: (inout JSONScanner) throws(ProtocolError) -> Void) throws(ProtocolError) {
        try enter(opening)
        skipWhitespace()
        if peek(UInt8(ascii: closing)) {
            index += 1
            depth -= 1
            return
        }
        try entries(closing: closing, of: kind, entry)
    }

    /// The rest of a sequence already entered, from the start of an entry up to its `closing`.
    private mutating func entries(closing: Unicode.Scalar, of kind: String,
                                  _ entry: (inout JSONScanner) throws(ProtocolError) -> Void) throws(ProtocolError) {
        while true {
            try entry(&self)
            skipWhitespace()
            guard index < bytes.count else { throw failure("the text ended inside \(kind)") }
            let next = bytes[index]
            index += 1
            if next == UInt8(ascii: closing) { break }
            guard next == UInt8(ascii: ",") else { throw failure("expected ',' or '\(closing)' in \(kind)") }
        }
        depth -= 1
    }

    private mutating func enter(_ opening: Unicode.Scalar) throws(ProtocolError) {
        guard peek(UInt8(ascii: opening)) else { throw failure("expected '\(opening)'") }
        guard depth < JSONScanner.maxDepth else { throw failure("values nested deeper than \(JSONScanner.maxDepth)") }
        depth += 1
        index += 1
    }

    // MARK: - Strings

    /// Reads `"…"`. A string without escapes (nearly every path and name) is validated and
    /// copied in one go; one of ASCII only needs no validation.
    mutating func string() throws(ProtocolError) -> String {
        guard peek(UInt8(ascii: "\"")) else { throw failure("expected a string") }
        index += 1
        let start = index
        // Every byte read, or'ed: its high bit says whether any was not ASCII.
        var seen: UInt64 = 0
        while index < bytes.count {
            // Sixteen bytes at a time while none can end the plain run (nearly all of a path): the
            // encoder's test, whose false positives (0xE2) only cost a look at each byte.
            JSONLine.skipPlainWords(bytes, from: &index, seen: &seen)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
                // ASCII is valid UTF-8: the non-generic initialiser, without String(validating:)'s
                // generic metadata lookups (a tenth of a 100k-item answer's reading).
                let text = seen & 0x8080_8080_8080_8080 == 0 ? String(decoding: run, as: UTF8.self) : try utf8(run, at: start)
                index += 1
                return text
            }
            seen |= UInt64(byte)
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw failure("a control character inside a string must be escaped") }
            index += 1
        }
        throw failure("the text ended inside a string")
    }

    private mutating func escapedString(from start: Int) throws(ProtocolError) -> String {
        var decoded = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return try utf8(decoded.withUnsafeBufferPointer { $0 }, at: start)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw failure("the text ended inside a string") }
                let escape = bytes[index]
                index += 1
                if let byte = JSONEscape.byte(after: escape) {
                    decoded.append(byte)
                } else if escape == UInt8(ascii: "u") {
                    decoded.append(contentsOf: try escapedScalar().utf8)
                } else {
                    throw failure("unknown escape in a string")
                }
            case 0x00..<0x20: throw failure("a control character inside a string must be escaped")
            default: decoded.append(byte)
            }
        }
        throw failure("the text ended inside a string")
    }

    /// After `\u`: four hex digits, and a second `\uXXXX` when the first is a high surrogate.
    private mutating func escapedScalar() throws(ProtocolError) -> Unicode.Scalar {
        let first = try hex4()
        if (0xD800..<0xDC00).contains(first) {
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("a lone surrogate in a \\u escape")
            }
            index += 2
            let second = try hex4()
            guard (0xDC00..<0xE000).contains(second) else { throw failure("a lone surrogate in a \\u escape") }
            // Both are in range, so the scalar is in U+10000...U+10FFFF and exists.
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(first) else { throw failure("a lone surrogate in a \\u escape") }
        return scalar
    }

    private mutating func hex4() throws(ProtocolError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("the text ended inside a \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("expected four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private func utf8(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int) throws(ProtocolError) -> String {
        guard let text = String(validating: buffer, as: UTF8.self) else {
            throw .malformed("the line is not valid UTF-8 (in the string at byte \(offset))")
        }
        return text
    }

    // MARK: - Numbers

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. As `JSONDecoder` reads it: a number
    /// whose exact decimal value is whole and fits 64 bits is an integer (`1.0`, `2.5e1`), also
    /// when a double could not hold it exactly; a number too small for a double is the integer
    /// 0; any other finite number a double.
    private mutating func number() throws(ProtocolError) -> JSONValue {
        let start = index
        let negative = peek(UInt8(ascii: "-"))
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit") }
        let integerStart = index
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { skipDigits() }
        let integerDigits = integerStart..<index
        var fractionDigits = index..<index
        if peek(UInt8(ascii: ".")) {
            index += 1
            let fractionStart = index
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit after '.'") }
            skipDigits()
            fractionDigits = fractionStart..<index
        }
        var exponent = 0
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            let negativeExponent = peek(UInt8(ascii: "-"))
            if negativeExponent || peek(UInt8(ascii: "+")) { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit in the exponent") }
            while index < bytes.count, isDigit(bytes[index]) {
                // Clamped: past a few hundred the number is 0 or too large either way.
                exponent = min(exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")), 100_000)
                index += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        if let whole = wholeNumber(integerDigits, fractionDigits, exponent: exponent, negative: negative) { return .integer(whole) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw failure("a number too large for a double") }
        return double == 0 ? .integer(0) : .double(double)
    }

    /// The number's exact value when it is whole and fits 64 bits; nil otherwise. Never traps:
    /// every step checks for overflow.
    private func wholeNumber(_ integerDigits: Range<Int>, _ fractionDigits: Range<Int>, exponent: Int, negative: Bool) -> Int64? {
        // The digits without the point (the k-th of `count`), and the power of ten they are scaled by.
        func digit(_ k: Int) -> Int64 {
            let position = k < integerDigits.count ? integerDigits.lowerBound + k : fractionDigits.lowerBound + (k - integerDigits.count)
            return Int64(bytes[position] - UInt8(ascii: "0"))
        }
        var count = integerDigits.count + fractionDigits.count
        var scale = exponent - fractionDigits.count
        // Zeros below the units do not make a number less whole.
        while scale < 0, count > 0, digit(count - 1) == 0 {
            count -= 1
            scale += 1
        }
        guard scale >= 0 else { return nil }
        // Accumulated negatively so that Int64.min is reachable.
        var value: Int64 = 0
        for k in 0..<count {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.subtractingReportingOverflow(digit(k))
            guard !o1, !o2 else { return nil }
            value = next
        }
        if value != 0 {
            for _ in 0..<scale {
                let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                value = times10
            }
        }
        if negative { return value }
        let (positive, overflow) = Int64(0).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: - Result items

    /// Reads an array of result items straight into ``WireItem``s. Nil, with the scanner back
    /// where it started, when the array is not exactly that shape: the caller then reads it as
    /// plain JSON, so that ``WireItem/init(json:context:)`` reports what is wrong.
    ///
    /// An item written as the daemon writes it (``CanonicalItem``, every item it sends) is kept
    /// as its range of the line (``EncodedItems``), read into its fields only when asked; any
    /// other is read here, as before.
    mutating func wireItems() throws(ProtocolError) -> [WireItem]? {
        let start = index
        let startDepth = depth
        // Items read here, by position in the list; the others are kept as bytes, in order.
        var read: [(position: Int, item: WireItem)] = []
        var starts: [Int] = [], ends: [Int] = []
        var count = 0
        var wellFormed = true
        func readItem(_ scanner: inout JSONScanner) throws(ProtocolError) {
            scanner.skipWhitespace()
            if wellFormed, let end = CanonicalItem.end(in: scanner.bytes, from: scanner.index) {
                starts.append(scanner.index)
                ends.append(end)
                scanner.index = end
                count += 1
                return
            }
            guard let item = try scanner.wireItem() else {
                wellFormed = false
                return
            }
            if wellFormed {
                read.append((count, item))
                count += 1
            }
        }
        var arrived: [WireItem] = []
        if let listed, listed.listStart == start, listed.count > 0 {
            // Kept as the line arrived (ItemListScan): the line goes on at the separator after them.
            arrived = listed.items
            index += 1
            depth += 1      // inside the list, as `elements` would be; `entries` leaves it
            guard index < bytes.count else { throw failure("the text ended inside an array") }
            let separator = bytes[index]
            index += 1
            switch separator {
            case UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ","): try entries(closing: "]", of: "an array", readItem)
            default: throw failure("expected ',' or ']' in an array")
            }
        } else {
            try elements(readItem)
        }
        guard wellFormed else {
            index = start
            depth = startDepth
            return nil
        }
        if count == 0 { return arrived }
        var kept: EncodedItems?
        if !starts.isEmpty {
            let line = self.line ?? ReceivedLine(copying: bytes)
            self.line = line
            kept = EncodedItems(line: line, starts: starts, ends: ends)
        }
        var items = arrived
        items.reserveCapacity(arrived.count + count)
        var nextRead = 0
        for position in 0..<count {
            if nextRead < read.count, read[nextRead].position == position {
                items.append(read[nextRead].item)
                nextRead += 1
            } else if let kept {
                items.append(WireItem(kept, index: position - nextRead))
            }
        }
        return items
    }

    /// The list under the object's first member named one of ``WireItem/listKeys``, and the
    /// members before it (``ListHead``), for ``ItemListScan`` on the bytes of a line so far; nil
    /// when they end first, or are not an object's members, or that member is not a list.
    mutating func firstItemList() -> ListHead? {
        skipWhitespace()
        guard peek(UInt8(ascii: "{")) else { return nil }
        index += 1
        depth = 1
        var event: JSONValue?
        var query: JSONValue?
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")), let key = try? string() else { return nil }
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { return nil }
            index += 1
            skipWhitespace()
            if WireItem.listKeys.contains(key) {
                guard peek(UInt8(ascii: "[")) else { return nil }
                return ListHead(listStart: index, key: key, event: event, query: query)
            }
            guard let value = try? value() else { return nil }
            // Of repeated keys the first counts, as when the whole line is read.
            if key == "event", event == nil { event = value }
            if key == "query", query == nil { query = value }
            skipWhitespace()
            guard peek(UInt8(ascii: ",")) else { return nil }
            index += 1
        }
    }

    /// `{"attributes":{…},"oldPath":"…","path":"…"}` in any key order; nil when it is not an
    /// object or a field is missing or of another type. The value is read whole either way.
    mutating func wireItem() throws(ProtocolError) -> WireItem? {
        skipWhitespace()
        guard peek(UInt8(ascii: "{")) else {
            _ = try value()
            return nil
        }
        var path: String?
        var oldPath: String?
        var attributes: [String: JSONValue]?
        // Which of the three keys were read: of repeated keys the first counts. Flags, not a set
        // of every key: hashing each key cost more than reading it.
        var seenPath = false, seenOldPath = false, seenAttributes = false
        var wellFormed = true
        try members { (scanner, key) throws(ProtocolError) in
            scanner.skipWhitespace()
            switch key {
            case "path" where !seenPath:
                seenPath = true
                if scanner.peek(UInt8(ascii: "\"")) { path = try scanner.string() } else { wellFormed = false; _ = try scanner.value() }
            case "oldPath" where !seenOldPath:
                seenOldPath = true
                switch try scanner.value() {
                case .string(let text): oldPath = text
                case .null: break
                default: wellFormed = false
                }
            case "attributes" where !seenAttributes:
                seenAttributes = true
                switch try scanner.value() {
                case .object(let object): attributes = object
                case .null: break
                default: wellFormed = false
                }
            default:
                _ = try scanner.value()
            }
        }
        guard wellFormed, let path else { return nil }
        return WireItem(WireItem.Fields(path: path, oldPath: oldPath, attributes: attributes ?? [:]))
    }

    // MARK: - Bytes

    func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func failure(_ what: String) -> ProtocolError {
        .malformed("the line is not valid JSON: \(what) at byte \(index)")
    }
}
