/// Reads a request line that ``JSONGrammar`` has already accepted straight into a ``JSONValue``,
/// when it holds only what needs no judgement: objects without a repeated key, arrays, strings
/// (any escape but a UTF-16 surrogate pair), integers without a fraction or an exponent that an
/// `Int64` holds, `true`, `false` and `null`. Anything else — a fraction or an exponent (`1.0`
/// is an integer to Foundation's decoder, `1.5` a double), an integer past `Int64`, a surrogate
/// pair, a repeated key (the first counts there) — makes it give up (nil), and the line is read by
/// Foundation's decoder as before; so every line reads as it did, only sooner.
///
/// Why: Foundation's decoder tried each kind of value in turn (`JSONValue.init(from:)`), an
/// error thrown and caught per miss, for every value of every request: about a twentieth of the
/// daemon's CPU per one-shot query in a profile of repeated 10k-item answers.
struct JSONPlainReader {
    private let text: [UInt8]
    private var index = 0

    /// The value of `text`, or nil when it holds something this reader leaves to Foundation's.
    /// `text` must be JSON by the letter (``JSONGrammar/validate(_:)``) and valid UTF-8.
    static func read(_ text: [UInt8]) -> JSONValue? {
        var reader = JSONPlainReader(text: text)
        reader.skipWhitespace()
        guard let value = reader.value() else { return nil }
        reader.skipWhitespace()
        return reader.index == text.count ? value : nil
    }

    private init(text: [UInt8]) { self.text = text }

    private var next: UInt8? { index < text.count ? text[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = next, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func value() -> JSONValue? {
        switch next {
        case UInt8(ascii: "{")?: return object()
        case UInt8(ascii: "[")?: return array()
        case UInt8(ascii: "\"")?: return string().map(JSONValue.string)
        case UInt8(ascii: "t")?: return literal("true", .bool(true))
        case UInt8(ascii: "f")?: return literal("false", .bool(false))
        case UInt8(ascii: "n")?: return literal("null", .null)
        case _?: return integer()
        case nil: return nil
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard index + count <= text.count else { return nil }
        for k in 0..<count where text[index + k] != word.utf8Start[k] { return nil }
        index += count
        return value
    }

    private mutating func object() -> JSONValue? {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if next == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard next == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard next == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace()
            // A repeated key: which value counts is Foundation's decoder's to say.
            guard let value = value(), members.updateValue(value, forKey: key) == nil else { return nil }
            skipWhitespace()
            switch next {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "}")?:
                index += 1
                return .object(members)
            default: return nil
            }
        }
    }

    private mutating func array() -> JSONValue? {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if next == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            guard let element = value() else { return nil }
            elements.append(element)
            skipWhitespace()
            switch next {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "]")?:
                index += 1
                return .array(elements)
            default: return nil
            }
        }
    }

    /// A string's text, its escapes undone; `index` is at its opening quote.
    private mutating func string() -> String? {
        index += 1
        let start = index
        // Most strings have no escape: their bytes are the text.
        while let byte = next, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") { index += 1 }
        guard let stop = next else { return nil }
        if stop == UInt8(ascii: "\"") {
            index += 1
            return String(decoding: text[start..<index - 1], as: UTF8.self)
        }
        var bytes = Array(text[start..<index])
        while let byte = next {
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: bytes, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = next else { return nil }
                index += 1
                if let byte = JSONEscape.byte(after: escaped) {
                    bytes.append(byte)
                    continue
                }
                switch escaped {
                case UInt8(ascii: "u"):
                    // A surrogate (half of a pair: the grammar refuses lone ones) goes to Foundation.
                    guard let unit = hex4(), !(0xD800...0xDFFF).contains(unit), let scalar = Unicode.Scalar(unit) else { return nil }
                    bytes.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            default: bytes.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= text.count else { return nil }
        var unit: UInt32 = 0
        for _ in 0..<4 {
            let byte = text[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt32(digit)
            index += 1
        }
        return unit
    }

    /// `-?[0-9]+` that an `Int64` holds; nil for anything else (a fraction, an exponent, more).
    private mutating func integer() -> JSONValue? {
        let negative = next == UInt8(ascii: "-")
        if negative { index += 1 }
        var magnitude: Int64 = 0
        var digits = 0
        while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            let digit = Int64(byte - UInt8(ascii: "0"))
            // Built negative: Int64.min has no positive counterpart.
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.subtractingReportingOverflow(digit)
            guard !o1, !o2 else { return nil }
            magnitude = sum
            digits += 1
            index += 1
        }
        guard digits > 0, next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E") else { return nil }
        if negative { return .integer(magnitude) }
        guard magnitude != .min else { return nil }
        return .integer(-magnitude)
    }
}
