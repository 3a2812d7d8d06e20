/// Whether a text is JSON by the letter of RFC 8259, checked before Foundation's decoder reads it.
///
/// Foundation's decoder is lenient where JSON is not: it lets raw control characters inside
/// strings and a comma before `}` or `]` through, and it checks escapes and numbers only in the
/// values it decodes — the value of a repeated key (the first counts) is never decoded, so
/// `{"a":1,"a":0x}` was taken. The clients' one-pass reader refuses all of these, and two readers
/// of one protocol must not disagree about what a line is (a line one of them takes and the other
/// refuses is a way to tell them different things). Found by the `server-message` fuzz target.
///
/// The rules are the one-pass reader's: strings without raw control characters, with only
/// `\" \\ \/ \b \f \n \r \t \uXXXX` escapes and no lone UTF-16 surrogate; numbers
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` that a double can hold; nesting at most
/// ``maxDepth`` deep; whitespace only around the value. UTF-8 validity is checked by the caller.
enum JSONGrammar {
    /// As deep as the one-pass reader reads (and as Foundation's decoder).
    static let maxDepth = 512

    /// - Throws: what is wrong and at which byte.
    static func validate<Bytes: Collection>(_ bytes: Bytes) throws(JSONTextError) where Bytes.Element == UInt8 {
        let text = Array(bytes)
        var reader = Reader(text: text)
        reader.skipWhitespace()
        try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == text.count else { throw reader.failure("text after the value") }
    }

    private struct Reader {
        let text: [UInt8]
        var index = 0

        func failure(_ what: String) -> JSONTextError {
            JSONTextError("the request is not valid JSON: \(what) (byte \(index))")
        }

        var next: UInt8? { index < text.count ? text[index] : nil }

        mutating func skipWhitespace() {
            while let byte = next, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(JSONTextError) {
            guard next == byte else { throw failure("expected \(what)") }
            index += 1
        }

        mutating func value(depth: Int) throws(JSONTextError) {
            switch next {
            case UInt8(ascii: "{")?: try sequence(closing: UInt8(ascii: "}"), depth: depth, keyed: true)
            case UInt8(ascii: "[")?: try sequence(closing: UInt8(ascii: "]"), depth: depth, keyed: false)
            case UInt8(ascii: "\"")?: try string()
            case UInt8(ascii: "t")?: try literal("true")
            case UInt8(ascii: "f")?: try literal("false")
            case UInt8(ascii: "n")?: try literal("null")
            case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte): try number()
            case nil: throw failure("the text ended where a value was expected")
            default: throw failure("expected a value")
            }
        }

        /// An object (`keyed`) or an array, from its opening bracket to `closing`.
        mutating func sequence(closing: UInt8, depth: Int, keyed: Bool) throws(JSONTextError) {
            guard depth < JSONGrammar.maxDepth else { throw failure("values nested deeper than \(JSONGrammar.maxDepth)") }
            index += 1
            skipWhitespace()
            if next == closing {
                index += 1
                return
            }
            while true {
                if keyed {
                    guard next == UInt8(ascii: "\"") else {
                        throw failure(next == closing ? "a comma before '\(Character(Unicode.Scalar(closing)))'" : "expected a key")
                    }
                    try string()
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"), "':' after a key")
                    skipWhitespace()
                }
                if !keyed, next == closing { throw failure("a comma before '\(Character(Unicode.Scalar(closing)))'") }
                try value(depth: depth + 1)
                skipWhitespace()
                guard let byte = next else { throw failure("the text ended inside \(keyed ? "an object" : "an array")") }
                index += 1
                if byte == closing { return }
                guard byte == UInt8(ascii: ",") else { throw failure("expected ',' or '\(Character(Unicode.Scalar(closing)))'") }
                skipWhitespace()
            }
        }

        mutating func literal(_ word: StaticString) throws(JSONTextError) {
            let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard text.count - index >= bytes.count, text[index..<(index + bytes.count)].elementsEqual(bytes) else {
                throw failure("expected \(word)")
            }
            index += bytes.count
        }

        mutating func string() throws(JSONTextError) {
            index += 1      // the opening quote
            // A high surrogate's \u escape must be followed at once by a low one's.
            var highSurrogateOpen = false
            while true {
                guard let byte = next else { throw failure("the text ended inside a string") }
                if highSurrogateOpen, byte != UInt8(ascii: "\\") { throw failure("a lone UTF-16 surrogate in a \\u escape") }
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return
                case 0x00..<0x20: throw failure("a control character inside a string must be escaped")
                case UInt8(ascii: "\\"):
                    guard let escaped = next else { throw failure("the text ended inside a string") }
                    if highSurrogateOpen, escaped != UInt8(ascii: "u") { throw failure("a lone UTF-16 surrogate in a \\u escape") }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        break
                    case UInt8(ascii: "u"):
                        var unit: UInt32 = 0
                        for _ in 0..<4 {
                            guard let digit = next?.hexDigitValue else { throw failure("\\u must be followed by four hexadecimal digits") }
                            unit = unit << 4 | digit
                            index += 1
                        }
                        switch unit {
                        case 0xD800...0xDBFF:
                            guard !highSurrogateOpen else { throw failure("a lone UTF-16 surrogate in a \\u escape") }
                            highSurrogateOpen = true
                        case 0xDC00...0xDFFF:
                            guard highSurrogateOpen else { throw failure("a lone UTF-16 surrogate in a \\u escape") }
                            highSurrogateOpen = false
                        default:
                            guard !highSurrogateOpen else { throw failure("a lone UTF-16 surrogate in a \\u escape") }
                        }
                    default:
                        throw failure("an unknown escape '\\\(Character(Unicode.Scalar(escaped)))' in a string")
                    }
                default: break
                }
            }
        }

        mutating func number() throws(JSONTextError) {
            let start = index
            if next == UInt8(ascii: "-") { index += 1 }
            guard next.map(isDigit) == true else { throw failure("expected a digit") }
            if next == UInt8(ascii: "0") { index += 1 } else { skipDigits() }
            if next == UInt8(ascii: ".") {
                index += 1
                guard next.map(isDigit) == true else { throw failure("expected a digit after '.'") }
                skipDigits()
            }
            if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
                index += 1
                if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { index += 1 }
                guard next.map(isDigit) == true else { throw failure("expected a digit in the exponent") }
                skipDigits()
            }
            guard let double = Double(String(decoding: text[start..<index], as: UTF8.self)), double.isFinite else {
                throw failure("a number too large for a double")
            }
        }

        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

        mutating func skipDigits() {
            while let byte = next, isDigit(byte) { index += 1 }
        }
    }
}

extension UInt8 {
    /// The value of `0-9`, `a-f` or `A-F`; nil for any other byte.
    fileprivate var hexDigitValue: UInt32? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(self - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(self - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(self - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
