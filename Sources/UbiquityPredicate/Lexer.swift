/// Splits predicate text into tokens. Works on Unicode scalars, so a combining mark can never
/// merge into a quote or backslash, and offsets count scalars (characters, for ASCII text).
struct Lexer {
    private let chars: [Unicode.Scalar]
    private var index = 0

    static let symbols2: Set<String> = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"]
    static let symbols1: Set<Unicode.Scalar> = ["(", ")", "{", "}", "[", "]", ",", "=", "<", ">", "!"]
    static let formatSpecifiers: Set<String> = [
        "K", "@", "d", "i", "u", "ld", "li", "lu", "lld", "lli", "llu", "hd", "hi", "hu", "qi", "qd",
        "f", "lf", "g", "e",
    ]

    init(_ text: String) { chars = Array(text.unicodeScalars) }

    static func tokenize(_ text: String) throws(MetadataPredicateError) -> [Token] {
        var lexer = Lexer(text)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        index + ahead < chars.count ? chars[index + ahead] : nil
    }

    private func text(from start: Int) -> String { Lexer.string(chars[start..<index]) }

    static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var s = ""
        s.unicodeScalars.append(contentsOf: scalars)
        return s
    }
    private static func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 48 && c.value <= 57 }
    private static func isHexDigit(_ c: Unicode.Scalar) -> Bool {
        isDigit(c) || (c.value >= 65 && c.value <= 70) || (c.value >= 97 && c.value <= 102)
    }
    private static func isWordStart(_ c: Unicode.Scalar) -> Bool {
        if c.value < 0x80 { return c == "_" || (c.value | 0x20 >= 0x61 && c.value | 0x20 <= 0x7A) }
        return c.properties.isAlphabetic
    }
    private static func isWordPart(_ c: Unicode.Scalar) -> Bool {
        if c.value < 0x80 { return isWordStart(c) || isDigit(c) }
        return c.properties.isAlphabetic || c.properties.numericType != nil
    }
    private static func isSpace(_ c: Unicode.Scalar) -> Bool {
        if c.value < 0x80 { return c == " " || (c.value >= 9 && c.value <= 13) }
        return c.properties.isWhitespace
    }

    mutating func next() throws(MetadataPredicateError) -> Token {
        while let c = peek(), Lexer.isSpace(c) { index += 1 }
        let start = index
        guard let c = peek() else { return Token(kind: .end, offset: start, text: "") }

        if c == "'" || c == "\"" { return try string(quote: c) }
        if Lexer.isDigit(c) || (c == "." && (peek(1).map(Lexer.isDigit) ?? false)) {
            return try number(start: start, sign: 1)
        }
        if c == "-" || c == "+", let n = peek(1), Lexer.isDigit(n) || n == "." {
            index += 1
            return try number(start: start, sign: c == "-" ? -1 : 1)
        }
        if Lexer.isWordStart(c) {
            while let n = peek(), Lexer.isWordPart(n) { index += 1 }
            return Token(kind: .word(text(from: start)), offset: start, text: text(from: start))
        }
        if c == "#" {
            index += 1
            guard let n = peek(), Lexer.isWordStart(n) else {
                throw MetadataPredicateError(.syntax, at: start, "expected an attribute name after '#'")
            }
            while let n = peek(), Lexer.isWordPart(n) { index += 1 }
            let word = Lexer.string(chars[(start + 1)..<index])
            return Token(kind: .escapedWord(word), offset: start, text: text(from: start))
        }
        if c == "$" { return try variable(start: start) }
        if c == "%" {
            index += 1
            var spec = ""
            while let n = peek(), n.properties.isAlphabetic || n == "@", spec.count < 3 {
                spec.unicodeScalars.append(n)
                index += 1
                if Lexer.formatSpecifiers.contains(spec), !(spec == "l" || spec == "ll") {
                    // Longest match: %ld vs %l..., %lld; stop once the next letter cannot extend it.
                    if let more = peek(), Lexer.formatSpecifiers.contains(spec + String(Character(more))) { continue }
                    if let more = peek(), let after = peek(1),
                       Lexer.formatSpecifiers.contains(spec + String(Character(more)) + String(Character(after))) { continue }
                    break
                }
            }
            guard Lexer.formatSpecifiers.contains(spec) else {
                throw MetadataPredicateError(.syntax, at: start,
                    "unknown format specifier '%\(spec)'; use %K for an attribute, %@ for a value, %d or %f for a number")
            }
            return Token(kind: .format(spec), offset: start, text: text(from: start))
        }
        if let n = peek(1), Lexer.symbols2.contains(String(Character(c)) + String(Character(n))) {
            index += 2
            return Token(kind: .symbol(text(from: start)), offset: start, text: text(from: start))
        }
        if Lexer.symbols1.contains(c) {
            index += 1
            return Token(kind: .symbol(String(Character(c))), offset: start, text: String(Character(c)))
        }
        throw MetadataPredicateError(.syntax, at: start, "unexpected character '\(c)'")
    }

    private mutating func string(quote: Unicode.Scalar) throws(MetadataPredicateError) -> Token {
        let start = index
        index += 1
        var value = ""
        while true {
            guard let c = peek() else {
                throw MetadataPredicateError(.syntax, at: start,
                    "unterminated string: no closing \(quote) before end of predicate")
            }
            index += 1
            if c == quote { break }
            if c != "\\" { value.unicodeScalars.append(c); continue }
            guard let e = peek() else { value.unicodeScalars.append("\\"); continue }
            index += 1
            switch e {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "'", "\"", "\\": value.unicodeScalars.append(e)
            case "u": value.unicodeScalars.append(try unicodeEscape(at: index - 2))
            // Other escapes (`\*`, `\?`, `\.`) keep their backslash for LIKE or MATCHES to
            // interpret, so `LIKE 'a\*'` and `LIKE 'a\\*'` both match a literal star.
            default: value.unicodeScalars.append("\\"); value.unicodeScalars.append(e)
            }
        }
        var trailing: ComparisonOptions = []
        var letters = 0
        while let c = peek(letters), "cdw".unicodeScalars.contains(c) { letters += 1 }
        if letters > 0, !(peek(letters).map(Lexer.isWordPart) ?? false) {
            for _ in 0..<letters {
                switch chars[index] {
                case "c": trailing.insert(.caseInsensitive)
                case "d": trailing.insert(.diacriticInsensitive)
                default: trailing.insert(.wordBased)
                }
                index += 1
            }
        }
        return Token(kind: .string(value, trailing: trailing), offset: start, text: text(from: start))
    }

    /// `\uXXXX` or `\u{X...}`; `index` is just after the `u`.
    private mutating func unicodeEscape(at escapeOffset: Int) throws(MetadataPredicateError) -> Unicode.Scalar {
        var hex = ""
        let braced = peek() == "{"
        if braced {
            index += 1
            while let c = peek(), c != "}", hex.unicodeScalars.count <= 8 { hex.unicodeScalars.append(c); index += 1 }
            guard peek() == "}" else {
                throw MetadataPredicateError(.syntax, at: escapeOffset, "expected '}' to end the \\u{...} escape")
            }
            index += 1
        } else {
            for _ in 0..<4 {
                guard let c = peek() else { break }
                hex.unicodeScalars.append(c)
                index += 1
            }
        }
        guard !hex.isEmpty, hex.unicodeScalars.allSatisfy(Lexer.isHexDigit), let code = UInt32(hex, radix: 16),
              let scalar = Unicode.Scalar(code) else {
            throw MetadataPredicateError(.syntax, at: escapeOffset,
                "invalid unicode escape '\\u\(braced ? "{" + hex + "}" : hex)'; write \\uXXXX or \\u{X...} with a valid code point")
        }
        return scalar
    }

    private mutating func number(start: Int, sign: Int) throws(MetadataPredicateError) -> Token {
        let digitsStart = index
        if peek() == "0", let x = peek(1), "xXoObB".unicodeScalars.contains(x) {
            index += 2
            let radix = "xX".unicodeScalars.contains(x) ? 16 : ("oO".unicodeScalars.contains(x) ? 8 : 2)
            let bodyStart = index
            while let c = peek(), Lexer.isHexDigit(c) || c == "_" { index += 1 }
            let body = Lexer.string(chars[bodyStart..<index]).replacingUnderscores()
            guard !body.isEmpty, let magnitude = UInt64(body, radix: radix) else {
                throw MetadataPredicateError(.syntax, at: start, "invalid number '\(text(from: start))'")
            }
            return try integerToken(magnitude: magnitude, sign: sign, start: start)
        }
        var isDouble = false
        while let c = peek(), Lexer.isDigit(c) { index += 1 }
        if peek() == ".", let n = peek(1), Lexer.isDigit(n) {
            isDouble = true
            index += 1
            while let c = peek(), Lexer.isDigit(c) { index += 1 }
        } else if peek() == ".", !(peek(1).map(Lexer.isWordPart) ?? false) {
            isDouble = true        // `2.` is a double, as in C
            index += 1
        }
        if let e = peek(), e == "e" || e == "E" {
            var look = 1
            if let s = peek(1), s == "+" || s == "-" { look = 2 }
            if let d = peek(look), Lexer.isDigit(d) {
                isDouble = true
                index += look
                while let c = peek(), Lexer.isDigit(c) { index += 1 }
            }
        }
        if let c = peek(), Lexer.isWordPart(c) {
            throw MetadataPredicateError(.syntax, at: start,
                "invalid number '\(text(from: start))\(c)': a number cannot run into a name")
        }
        let digits = Lexer.string(chars[digitsStart..<index])
        if isDouble {
            guard let value = Double(digits), value.isFinite else {
                throw MetadataPredicateError(.syntax, at: start, "invalid number '\(text(from: start))'")
            }
            return Token(kind: .double(sign < 0 ? -value : value), offset: start, text: text(from: start))
        }
        guard let magnitude = UInt64(digits) else {
            throw MetadataPredicateError(.syntax, at: start,
                "number '\(text(from: start))' is out of range (64-bit integers only)")
        }
        return try integerToken(magnitude: magnitude, sign: sign, start: start)
    }

    private func integerToken(magnitude: UInt64, sign: Int, start: Int) throws(MetadataPredicateError) -> Token {
        let limit: UInt64 = sign < 0 ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        guard magnitude <= limit else {
            throw MetadataPredicateError(.syntax, at: start,
                "number '\(text(from: start))' is out of range (64-bit integers only)")
        }
        let value: Int64 = sign < 0 ? (magnitude == limit ? Int64.min : -Int64(magnitude)) : Int64(magnitude)
        return Token(kind: .integer(value), offset: start, text: text(from: start))
    }

    private mutating func variable(start: Int) throws(MetadataPredicateError) -> Token {
        index += 1
        guard let c = peek(), Lexer.isWordStart(c) else {
            throw MetadataPredicateError(.syntax, at: start, "expected a variable name after '$'")
        }
        while let n = peek(), Lexer.isWordPart(n) || (n == "." && (peek(1).map(Lexer.isWordStart) ?? false)) {
            index += 1
        }
        let name = Lexer.string(chars[(start + 1)..<index])
        if name.lowercased() == "time.iso" {
            guard peek() == "(" else {
                throw MetadataPredicateError(.syntax, at: index,
                    "expected '(' after $time.iso, as in $time.iso(2026-11-22T10:00:00Z)")
            }
            index += 1
            let bodyStart = index
            while let c = peek(), c != ")" { index += 1 }
            guard peek() == ")" else {
                throw MetadataPredicateError(.syntax, at: start, "expected ')' to close $time.iso(")
            }
            var body = Lexer.string(chars[bodyStart..<index]).trimmingSpaces()
            index += 1
            if body.count >= 2, let q = body.first, q == "'" || q == "\"", body.last == q {
                body = String(body.dropFirst().dropLast())
            }
            return Token(kind: .isoDate(body), offset: start, text: text(from: start))
        }
        return Token(kind: .variable(name), offset: start, text: text(from: start))
    }
}

extension String {
    func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s = s.dropFirst() }
        while s.last?.isWhitespace == true { s = s.dropLast() }
        return String(s)
    }
}
