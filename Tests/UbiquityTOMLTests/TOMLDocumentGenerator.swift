import UbiquityTesting

/// Random TOML documents inside the subset UbiquityTOML accepts (see UbiquityTOML.swift): keys
/// bare or quoted, every string escape, decimal integers and floats with signs and `_`,
/// booleans, nested arrays (multi-line, comments, trailing commas), inline tables, `[table]` and
/// `[[array]]` sections, comments, blank lines, LF or CRLF line ends. Every document is valid
/// TOML 1.0: keys are unique within their table and section names never clash.
struct TOMLDocumentGenerator {
    var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    // MARK: - Documents

    mutating func document() -> String {
        let newline = random.chance(0.2) ? "\r\n" : "\n"
        var lines: [String] = []
        var rootKeys: Set<String> = []
        if random.chance(0.3) { lines.append("# " + commentText()) }
        for _ in 0..<random.int(0...5) { lines.append(pair(into: &rootKeys, depth: 0)) }
        var sectionNames = rootKeys
        for _ in 0..<random.int(0...3) {
            let (_, header) = freshKey(avoiding: &sectionNames)
            let isArray = random.chance(0.4)
            for _ in 0..<(isArray ? random.int(1...3) : 1) {
                if random.chance(0.3) { lines.append("") }
                let inside = random.pick(["", " "])
                lines.append(isArray ? "[[\(inside)\(header)\(inside)]]" : "[\(inside)\(header)\(inside)]" + comment())
                var keys: Set<String> = []
                for _ in 0..<random.int(0...4) { lines.append(pair(into: &keys, depth: 0)) }
            }
        }
        return lines.joined(separator: newline) + (random.chance(0.7) ? newline : "")
    }

    /// `key = value` with a key new to `keys`, optionally indented and commented.
    mutating func pair(into keys: inout Set<String>, depth: Int) -> String {
        let (_, key) = freshKey(avoiding: &keys)
        return random.pick(["", "  ", "\t"]) + key + random.pick([" = ", "=", "  =  "]) + value(depth: depth) + comment()
    }

    // MARK: - Keys

    /// A key not yet in `keys` (which it joins): its decoded name and how it is written.
    mutating func freshKey(avoiding keys: inout Set<String>) -> (name: String, written: String) {
        while true {
            let (name, written) = key()
            if keys.insert(name).inserted { return (name, written) }
        }
    }

    mutating func key() -> (name: String, written: String) {
        switch random.int(0...9) {
        case 0: let name = stringContent(maxLength: 6); return (name, basicString(name))
        case 1:
            let name = literalContent(maxLength: 6)
            return (name, "'" + name + "'")
        default:
            let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
            let name = String((0..<random.int(1...8)).map { _ in random.pick(alphabet) })
            return (name, name)
        }
    }

    // MARK: - Values

    mutating func value(depth: Int) -> String {
        switch random.int(depth >= 3 ? 0...5 : 0...7) {
        case 0, 1:
            if random.chance(0.3) {
                let content = literalContent(maxLength: 12)
                return "'" + content + "'"
            }
            return basicString(stringContent(maxLength: 12))
        case 2: return integer()
        case 3: return float()
        case 4: return random.chance(0.5) ? "true" : "false"
        case 5: return integer()
        case 6: return array(depth: depth + 1)
        default: return inlineTable(depth: depth + 1)
        }
    }

    mutating func integer() -> String {
        let magnitude: UInt64 = switch random.int(0...3) {
        case 0: UInt64(random.int(0...9))
        case 1: UInt64(random.int(0...100_000))
        case 2: random.next() >> 1
        default: UInt64(Int64.max)
        }
        let negative = random.chance(0.3)
        let digits = negative && magnitude == UInt64(Int64.max) && random.chance(0.5)
            ? "9223372036854775808" : String(magnitude)  // Int64.min
        return (negative ? "-" : random.chance(0.1) ? "+" : "") + separated(digits)
    }

    mutating func float() -> String {
        let integerPart = random.chance(0.3) ? "0" : String(random.int(1...999_999))
        let fraction = String((0..<random.int(1...8)).map { _ in Character(String(random.int(0...9))) })
        return random.pick(["", "-", "+"]) + separated(integerPart) + "." + separated(fraction)
    }

    /// Digits with `_` inserted between some of them.
    mutating func separated(_ digits: String) -> String {
        guard random.chance(0.3) else { return digits }
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0 && random.chance(0.3) { out.append("_") }
            out.append(digit)
        }
        return out
    }

    mutating func array(depth: Int) -> String {
        let count = random.int(0...4)
        let multiLine = random.chance(0.3)
        var items: [String] = []
        for _ in 0..<count { items.append(value(depth: depth)) }
        if !multiLine {
            let trailing = count > 0 && random.chance(0.2) ? "," : ""
            return "[" + random.pick(["", " "]) + items.joined(separator: random.pick([",", ", ", " , "])) + trailing + "]"
        }
        // Comments and line ends inside are allowed; LF here even in a CRLF document is still TOML.
        var out = "[\n"
        for item in items {
            if random.chance(0.3) { out += "  # " + commentText() + "\n" }
            out += "  " + item + "," + comment() + "\n"
        }
        return out + "]"
    }

    mutating func inlineTable(depth: Int) -> String {
        var keys: Set<String> = []
        let pairs = (0..<random.int(0...3)).map { _ -> String in
            let (_, key) = freshKey(avoiding: &keys)
            return key + " = " + inlineValue(depth: depth)
        }
        return pairs.isEmpty ? random.pick(["{}", "{ }"]) : "{ " + pairs.joined(separator: ", ") + " }"
    }

    /// A value inside an inline table, which must stay on one line (no multi-line arrays).
    mutating func inlineValue(depth: Int) -> String {
        while true {
            let candidate = value(depth: depth)
            if !candidate.contains("\n") { return candidate }
        }
    }

    // MARK: - Strings and comments

    /// Characters that stress escaping and the line/column logic.
    static let stringAlphabet: [Character] = Array("abcXYZ019 _-.=#[]{},") + [
        "é", "ß", "中", "😀", "\"", "\\", "'", "\t", "\n", "\r", "\u{08}", "\u{0C}", "\u{07}", "\u{1F}", "\u{7F}",
    ]

    mutating func stringContent(maxLength: Int) -> String {
        String((0..<random.int(0...maxLength)).map { _ in random.pick(Self.stringAlphabet) })
    }

    /// Content a literal string can hold as written: no `'`, no line end, no control character but tab.
    mutating func literalContent(maxLength: Int) -> String {
        String(stringContent(maxLength: maxLength).filter { character in
            character != "'" && character.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }
        })
    }

    /// `content` as a basic string, with every escape TOML 1.0 has, chosen at random where several fit.
    mutating func basicString(_ content: String) -> String {
        var out = "\""
        for scalar in content.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\t": out += random.chance(0.5) ? "\\t" : "\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += unicodeEscape(scalar, long: false)
            default:
                if random.chance(0.1) { out += unicodeEscape(scalar, long: random.chance(0.5) || scalar.value > 0xFFFF) }
                else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    mutating func unicodeEscape(_ scalar: Unicode.Scalar, long: Bool) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: random.chance(0.5))
        let width = long ? 8 : 4
        return (long ? "\\U" : "\\u") + String(repeating: "0", count: width - hex.count) + hex
    }

    mutating func commentText() -> String {
        String((0..<random.int(0...10)).map { _ in random.pick(Array("comment # = [ ] \" ' é😀\t")) })
    }

    mutating func comment() -> String { random.chance(0.2) ? random.pick([" ", "\t", ""]) + "#" + commentText() : "" }
}
