// The parser behind TOML.parse: one pass over the bytes, positions tracked incrementally.

struct TOMLParser {
    let bytes: [UInt8]
    var offset = 0
    var line = 1
    var lineStart = 0
    var depth = 0
    /// Column bookkeeping: `column` is the column of byte `columnOffset` on the current line, so
    /// positions cost amortised O(1) even on a 1 MiB single-line array.
    var columnOffset = 0
    var column = 1

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3; lineStart = 3 }  // a UTF-8 BOM is not content
    }

    // MARK: - Positions and messages

    var atEnd: Bool { offset >= bytes.count }
    var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }
    func peek(_ distance: Int) -> UInt8? { offset + distance < bytes.count ? bytes[offset + distance] : nil }

    /// Position of `at` (default: the current byte), which must lie on the current line.
    mutating func position(_ at: Int? = nil) -> TOMLPosition {
        let end = min(at ?? offset, bytes.count)
        if columnOffset < lineStart || columnOffset > end { columnOffset = lineStart; column = 1 }
        while columnOffset < end {
            if bytes[columnOffset] & 0xC0 != 0x80 { column += 1 }  // count scalars, not UTF-8 continuation bytes
            columnOffset += 1
        }
        return TOMLPosition(line: line, column: column)
    }

    mutating func error(_ message: String, at: Int? = nil) -> TOMLError { TOMLError(position: position(at), message: message) }

    /// What stands at the current position, for "found ..." (never more than one character).
    var found: String {
        guard let byte = current else { return "end of file" }
        switch byte {
        case 0x0A: return "end of line"
        case 0x0D: return peek(1) == 0x0A ? "end of line" : "a carriage return without a line feed"
        case 0x23: return "a comment"
        case 0x20, 0x09: return "whitespace"
        case 0x27: return "\"'\""
        case 0x00..<0x20, 0x7F: return "control character " + Self.unicodeName(UInt32(byte))
        case 0x80...:
            var iterator = bytes[offset...].makeIterator()
            var parser = Unicode.UTF8.ForwardParser()
            if case .valid(let encoded) = parser.parseScalar(from: &iterator) {
                return "'\(Character(Unicode.UTF8.decode(encoded)))'"
            }
            return "an invalid byte"
        default: return "'\(Character(Unicode.Scalar(byte)))'"
        }
    }

    static func unicodeName(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Refuses invalid UTF-8 up front, so every later `String(decoding:)` is lossless.
    mutating func checkUTF8() throws(TOMLError) {
        var iterator = bytes[offset...].makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var at = offset
        var scanLine = 1, scanLineStart = lineStart
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1 && encoded.first == 0x0A { scanLine += 1; scanLineStart = at + 1 }
                at += encoded.count
            case .emptyInput:
                return
            case .error:
                line = scanLine
                lineStart = scanLineStart
                throw error("the file is not valid UTF-8 (invalid byte 0x\(String(bytes[at], radix: 16, uppercase: true)))", at: at)
            }
        }
    }

    // MARK: - Whitespace, comments, line ends

    mutating func skipSpaces() {
        while let byte = current, byte == 0x20 || byte == 0x09 { offset += 1 }
    }

    /// At `#`: skips to (not past) the end of the line.
    mutating func skipComment() throws(TOMLError) {
        while let byte = current, byte != 0x0A {
            if byte == 0x0D && peek(1) == 0x0A { return }
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F {
                throw error("control character \(Self.unicodeName(UInt32(byte))) is not allowed in a comment")
            }
            offset += 1
        }
    }

    /// Consumes `\n` or `\r\n` if it is next; true when it did.
    mutating func newline() -> Bool {
        if current == 0x0A { offset += 1 } else if current == 0x0D && peek(1) == 0x0A { offset += 2 } else { return false }
        line += 1
        lineStart = offset
        return true
    }

    /// After a key/value pair or a header: spaces, an optional comment, then a line end or the end.
    mutating func endOfLine(after what: String) throws(TOMLError) {
        skipSpaces()
        if current == 0x23 { try skipComment() }
        if atEnd || newline() { return }
        throw error("expected end of line after \(what), found \(found)")
    }

    /// Inside arrays: spaces, comments and line ends in any number.
    mutating func skipBlank() throws(TOMLError) {
        while true {
            skipSpaces()
            if current == 0x23 { try skipComment() }
            if !newline() { return }
        }
    }

    // MARK: - Document

    enum Section { case root, table(String), arrayElement(String) }

    mutating func document() throws(TOMLError) -> TOMLTable {
        var root = TOMLTable()
        var section = Section.root
        var sectionTable = TOMLTable()
        var sectionPosition = TOMLPosition(line: 1, column: 1)
        var arraysOfTables: Set<String> = []  // names made by [[...]]: only those may grow

        func flush(into root: inout TOMLTable) {
            switch section {
            case .root: root = sectionTable
            case .table(let name):
                root.append(.init(key: name, keyPosition: sectionPosition,
                                  value: TOMLValue(kind: .table(sectionTable), position: sectionPosition)))
            case .arrayElement(let name):
                let element = TOMLValue(kind: .table(sectionTable), position: sectionPosition)
                if root.entry(name) == nil {
                    root.append(.init(key: name, keyPosition: sectionPosition,
                                      value: TOMLValue(kind: .array([element]), position: sectionPosition)))
                } else {
                    root.appendToArray(name, element)
                }
            }
        }

        while true {
            skipSpaces()
            guard let byte = current else { break }
            if byte == 0x23 { try skipComment() }
            if newline() || atEnd { continue }
            if current == 0x5B {  // '['
                let start = offset
                let header = try tableHeader()
                flush(into: &root)
                if let existing = root.entry(header.name) {
                    if header.isArray && arraysOfTables.contains(header.name) {
                        // another element of the same array of tables
                    } else if header.isArray, case .array = existing.value.kind {
                        throw error("cannot append to '\(header.name)' with [[\(header.name)]]: it is a static array defined at line \(existing.keyPosition.line)", at: start)
                    } else if case .table = existing.value.kind, !header.isArray {
                        throw error("table [\(header.name)] is defined twice (first at line \(existing.keyPosition.line))", at: start)
                    } else {
                        throw error("'\(header.name)' is already defined at line \(existing.keyPosition.line) as \(existing.value.typeName); it cannot also be \(header.isArray ? "an array of tables" : "a table")", at: start)
                    }
                }
                if header.isArray { arraysOfTables.insert(header.name) }
                section = header.isArray ? .arrayElement(header.name) : .table(header.name)
                sectionTable = TOMLTable()
                sectionPosition = header.position
                try endOfLine(after: "the table header")
                continue
            }
            try keyValue(into: &sectionTable)
            try endOfLine(after: "the value")
        }
        flush(into: &root)
        return root
    }

    /// `[name]` or `[[name]]`, from its first `[`.
    mutating func tableHeader() throws(TOMLError) -> (name: String, isArray: Bool, position: TOMLPosition) {
        let position = self.position()
        offset += 1
        let isArray = current == 0x5B
        if isArray { offset += 1 }
        skipSpaces()
        let (name, _) = try key(context: isArray ? "after '[['" : "after '['")
        skipSpaces()
        if current == 0x2E {
            throw error("nested table names such as [a.b] are not supported; this subset has one level of tables")
        }
        if isArray {
            guard current == 0x5D && peek(1) == 0x5D else {
                if current == 0x5D { offset += 1 }  // point past the lone ']' at what is missing
                throw error("expected ']]' to close the header [[\(name)]], found \(found)")
            }
            offset += 2
        } else {
            guard current == 0x5D else { throw error("expected ']' to close the header [\(name)], found \(found)") }
            offset += 1
        }
        return (name, isArray, position)
    }

    /// `key = value`, added to `table`; duplicates are errors.
    mutating func keyValue(into table: inout TOMLTable, keyContext: String = "at the start of a line") throws(TOMLError) {
        let (name, keyPosition) = try key(context: keyContext)
        skipSpaces()
        if current == 0x2E {
            throw error("dotted keys such as a.b = ... are not supported; use a [table] header or an inline table")
        }
        guard current == 0x3D else { throw error("expected '=' after the key '\(name)', found \(found)") }
        offset += 1
        skipSpaces()
        let value = try self.value(context: "after '='")
        if let first = table.entry(name) {
            throw TOMLError(position: keyPosition,
                            message: "duplicate key '\(name)' (first defined at line \(first.keyPosition.line))")
        }
        table.append(.init(key: name, keyPosition: keyPosition, value: value))
    }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x5F || byte == 0x2D
    }

    mutating func key(context: String) throws(TOMLError) -> (String, TOMLPosition) {
        let position = self.position()
        switch current {
        case 0x22:
            if peek(1) == 0x22 && peek(2) == 0x22 { throw error("a key cannot be a multi-line string") }
            return (try basicString(), position)
        case 0x27:
            if peek(1) == 0x27 && peek(2) == 0x27 { throw error("a key cannot be a multi-line string") }
            return (try literalString(), position)
        case let byte? where Self.isBareKeyByte(byte):
            let start = offset
            while let byte = current, Self.isBareKeyByte(byte) { offset += 1 }
            return (String(decoding: bytes[start..<offset], as: UTF8.self), position)
        default:
            throw error("expected a key \(context), found \(found)")
        }
    }

    // MARK: - Values

    mutating func value(context: String) throws(TOMLError) -> TOMLValue {
        let position = self.position()
        guard let byte = current else { throw error("expected a value \(context), found \(found)") }
        switch byte {
        case 0x22:
            if peek(1) == 0x22 && peek(2) == 0x22 { throw error("multi-line strings (\"\"\") are not supported") }
            return TOMLValue(kind: .string(try basicString()), position: position)
        case 0x27:
            if peek(1) == 0x27 && peek(2) == 0x27 { throw error("multi-line literal strings (''') are not supported") }
            return TOMLValue(kind: .string(try literalString()), position: position)
        case 0x5B:
            return TOMLValue(kind: .array(try array()), position: position)
        case 0x7B:
            return TOMLValue(kind: .table(try inlineTable()), position: position)
        case 0x30...0x39, 0x2B, 0x2D:
            return TOMLValue(kind: try number(), position: position)
        case let byte where Self.isBareKeyByte(byte):
            let start = offset
            while let byte = current, Self.isBareKeyByte(byte) || byte == 0x2E { offset += 1 }
            let word = String(decoding: bytes[start..<offset], as: UTF8.self)
            switch word {
            case "true": return TOMLValue(kind: .boolean(true), position: position)
            case "false": return TOMLValue(kind: .boolean(false), position: position)
            case "inf", "nan": throw error("inf and nan are not supported", at: start)
            default:
                throw error("expected a value \(context), found '\(word)' (strings must be quoted: \"\(word)\")", at: start)
            }
        default:
            throw error("expected a value \(context), found \(found)")
        }
    }

    /// Enters an array or inline table, refusing nesting that could exhaust the stack.
    mutating func enter() throws(TOMLError) {
        depth += 1
        if depth > TOML.maxDepth { throw error("arrays and inline tables nest deeper than \(TOML.maxDepth) levels") }
    }

    mutating func array() throws(TOMLError) -> [TOMLValue] {
        try enter()
        defer { depth -= 1 }
        offset += 1
        var items: [TOMLValue] = []
        while true {
            try skipBlank()
            if current == 0x5D { offset += 1; return items }
            items.append(try value(context: items.isEmpty ? "or ']' in the array" : "after ',' in the array"))
            try skipBlank()
            switch current {
            case 0x2C: offset += 1
            case 0x5D: offset += 1; return items
            default: throw error("expected ',' or ']' in the array, found \(found)")
            }
        }
    }

    mutating func inlineTable() throws(TOMLError) -> TOMLTable {
        try enter()
        defer { depth -= 1 }
        offset += 1
        var table = TOMLTable()
        skipSpaces()
        if current == 0x7D { offset += 1; return table }
        while true {
            skipSpaces()
            if current == 0x7D && !table.entries.isEmpty {
                throw error("a trailing comma is not allowed in an inline table")
            }
            if current == 0x0A || current == 0x0D {
                throw error("expected a key in the inline table, found end of line (an inline table must fit on one line)")
            }
            try keyValue(into: &table, keyContext: table.entries.isEmpty ? "after '{'" : "after ','")
            skipSpaces()
            switch current {
            case 0x2C: offset += 1
            case 0x7D: offset += 1; return table
            default: throw error("expected ',' or '}' in the inline table, found \(found)")
            }
        }
    }

    /// A basic string from its opening `"`; single-line, with escapes.
    mutating func basicString() throws(TOMLError) -> String {
        offset += 1
        var out: [UInt8] = []
        while true {
            guard let byte = current, byte != 0x0A, !(byte == 0x0D && peek(1) == 0x0A) else {
                throw error("unterminated string: expected '\"' before \(found)")
            }
            switch byte {
            case 0x22:
                offset += 1
                return String(decoding: out, as: UTF8.self)
            case 0x5C:
                out.append(contentsOf: try escape())
            case 0x00..<0x20 where byte != 0x09, 0x7F:
                throw error("control character \(Self.unicodeName(UInt32(byte))) must be escaped in a string")
            default:
                out.append(byte)
                offset += 1
            }
        }
    }

    /// An escape sequence from its `\`; returns its UTF-8 bytes.
    mutating func escape() throws(TOMLError) -> [UInt8] {
        let start = offset
        offset += 1
        guard let letter = current, letter != 0x0A, letter != 0x0D else {
            throw error("unterminated string: expected '\"' before \(found)")
        }
        offset += 1
        switch letter {
        case 0x62: return [0x08]
        case 0x74: return [0x09]
        case 0x6E: return [0x0A]
        case 0x66: return [0x0C]
        case 0x72: return [0x0D]
        case 0x22: return [0x22]
        case 0x5C: return [0x5C]
        case 0x75, 0x55:
            let count = letter == 0x75 ? 4 : 8
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let byte = current, let digit = Self.hexDigit(byte) else {
                    throw error("expected \(count) hexadecimal digits after \\\(letter == 0x75 ? "u" : "U"), found \(found)")
                }
                value = value << 4 | UInt32(digit)
                offset += 1
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw error("\\\(letter == 0x75 ? "u" : "U")\(String(value, radix: 16, uppercase: true)) is not a Unicode scalar value", at: start)
            }
            return Array(String(Character(scalar)).utf8)
        default:
            offset -= 1
            throw error("invalid escape sequence '\\\(found.trimmingQuotes)'; valid: \\\" \\\\ \\b \\t \\n \\f \\r \\uXXXX \\UXXXXXXXX", at: start)
        }
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// A literal string from its opening `'`: no escapes, single-line.
    mutating func literalString() throws(TOMLError) -> String {
        offset += 1
        let start = offset
        while true {
            guard let byte = current, byte != 0x0A, !(byte == 0x0D && peek(1) == 0x0A) else {
                throw error("unterminated literal string: expected \"'\" before \(found)")
            }
            if byte == 0x27 {
                offset += 1
                return String(decoding: bytes[start..<(offset - 1)], as: UTF8.self)
            }
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F {
                throw error("control character \(Self.unicodeName(UInt32(byte))) is not allowed in a literal string")
            }
            offset += 1
        }
    }

    /// An integer or float. The token is everything that could belong to a number, a date or a
    /// word, so `12abc` is one bad number rather than a number followed by garbage.
    mutating func number() throws(TOMLError) -> TOMLValue.Kind {
        let start = offset
        while let byte = current, Self.isBareKeyByte(byte) || byte == 0x2B || byte == 0x2E || byte == 0x3A { offset += 1 }
        let token = Array(bytes[start..<offset])
        let text = String(decoding: token, as: UTF8.self)
        let startPosition = position(start)
        let bad = { (why: String) in TOMLError(position: startPosition, message: "invalid number '\(text)': \(why)") }

        if token.contains(0x3A) || (token.count >= 5 && token[0..<4].allSatisfy(Self.isDigit) && token[4] == 0x2D) {
            throw error("dates and times are not supported (found '\(text)'); write a string or a number", at: start)
        }
        var body = token[...]
        var negative = false
        if let sign = body.first, sign == 0x2B || sign == 0x2D { negative = sign == 0x2D; body = body.dropFirst() }
        if body.elementsEqual("inf".utf8) || body.elementsEqual("nan".utf8) {
            throw error("inf and nan are not supported", at: start)
        }

        // Hexadecimal, octal and binary integers are valid TOML, but no configuration key wants one.
        if body.count >= 2, body.first == 0x30, [UInt8(0x78), 0x6F, 0x62].contains(body[body.startIndex + 1]) {
            throw bad("hexadecimal, octal and binary integers are not supported; write a decimal number")
        }

        // Decimal: int-part [ '.' digits ]. Exponents are valid TOML but not supported here.
        if body.contains(where: { $0 == 0x65 || $0 == 0x45 }) {
            throw bad("exponents are not supported; write the number out (1500, 0.001)")
        }
        let dotAt = body.firstIndex(of: 0x2E)
        let integerPart = dotAt.map { body[..<$0] } ?? body
        let intDigits = try Self.digits(integerPart, bad: bad)
        if intDigits.count > 1 && intDigits.first == 0x30 { throw bad("leading zeros are not allowed") }
        var normalized = intDigits
        if let dotAt {
            let fraction = body[(dotAt + 1)...]
            guard !fraction.isEmpty else { throw bad("expected digits after '.'") }
            normalized += [0x2E] + (try Self.digits(fraction, bad: bad))
        }
        let signed = (negative ? "-" : "") + String(decoding: normalized, as: UTF8.self)
        if dotAt == nil {
            guard let value = Int64(signed) else { throw bad("out of range (integers are 64-bit)") }
            return .integer(value)
        }
        guard let value = Double(signed), value.isFinite else { throw bad("out of range for a 64-bit float") }
        return .float(value)
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// The decimal digits of `part` without its `_` separators; each `_` must sit between two digits.
    static func digits(_ part: ArraySlice<UInt8>, bad: (String) -> TOMLError) throws(TOMLError) -> [UInt8] {
        guard !part.isEmpty else { throw bad("expected digits") }
        var out: [UInt8] = []
        var previousWasDigit = false
        for byte in part {
            if byte == 0x5F {
                guard previousWasDigit else { throw bad("'_' must sit between two digits") }
                previousWasDigit = false
                continue
            }
            guard isDigit(byte) else { throw bad("'\(Character(Unicode.Scalar(byte)))' is not a decimal digit") }
            out.append(byte)
            previousWasDigit = true
        }
        guard previousWasDigit else { throw bad("'_' must sit between two digits") }
        return out
    }
}

extension String {
    /// `'x'` → `x`, for reusing ``TOMLParser/found`` inside other quotes.
    fileprivate var trimmingQuotes: String {
        hasPrefix("'") && hasSuffix("'") && count >= 3 ? String(dropFirst().dropLast()) : self
    }
}
