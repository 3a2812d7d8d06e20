extension MetadataPredicate: CustomStringConvertible {
    /// The canonical form, like NSPredicate's `predicateFormat`: canonical attribute names,
    /// double-quoted strings, `[cd]` modifiers, and parentheses around every `AND` inside an `OR`
    /// (and vice versa) so the reading is visible. Parsing it gives back an equal predicate.
    public var description: String { Printer.predicate(self) }
}

extension Comparison: CustomStringConvertible {
    public var description: String { Printer.comparison(self) }
}

/// The canonical printer. One place decides how every construct is spelled.
enum Printer {
    static func predicate(_ p: MetadataPredicate) -> String {
        switch p {
        case .constant(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let c): return comparison(c)
        case .not(let inner): return "NOT " + operand(inner)
        case .and(let operands): return operands.map(operand).joined(separator: " AND ")
        case .or(let operands): return operands.map(operand).joined(separator: " OR ")
        }
    }

    /// An operand of AND/OR: nested AND/OR are parenthesised so the reading is explicit.
    private static func operand(_ p: MetadataPredicate) -> String {
        switch p {
        case .and, .or: "(\(predicate(p)))"
        default: predicate(p)
        }
    }

    static func comparison(_ c: Comparison) -> String {
        let quantifier = c.quantifier == .single ? "" : c.quantifier.rawValue + " "
        let options = c.options.isEmpty ? "" : "[\(c.options.letters)]"
        return "\(quantifier)\(expression(c.left)) \(c.op.rawValue)\(options) \(expression(c.right))"
    }

    static func expression(_ e: Operand) -> String {
        switch e {
        case .attribute(let a): return a.canonicalName
        case .column(let c): return column(c.name)
        case .constant(let v): return literal(v)
        case .relativeDate(let r):
            return "$time.\(r.anchor.rawValue)" + (r.offset == 0 ? "" : "(\(r.offset))")
        case .aggregate(let items): return "{" + items.map(expression).joined(separator: ", ") + "}"
        }
    }

    /// A column's name, written `#name` when it would read as a keyword.
    static func column(_ name: String) -> String {
        let upper = name.uppercased()
        let keywords: Set<String> = ["TRUE", "YES", "FALSE", "NO", "NIL", "NULL"]
        return Parser.reservedWords.contains(upper) || keywords.contains(upper) ? "#" + name : name
    }

    static func literal(_ v: Value) -> String {
        switch v {
        case .null: return "nil"
        case .bool(let b): return b ? "TRUE" : "FALSE"
        case .integer(let i): return String(i)
        case .double(let d):
            // Swift prints the shortest text that reads back as the same Double.
            let text = String(d)
            return text.contains(where: { $0 == "." || $0 == "e" || $0 == "n" || $0 == "i" }) ? text : text + ".0"
        case .string(let s): return quoted(s)
        case .date(let seconds):
            if ISODate.formatsExactly(seconds) { return "$time.iso(\(ISODate.format(seconds)))" }
            return "CAST(\(literal(.double(seconds - ISODate.referenceDateOffset))), \"NSDate\")"
        case .list(let items): return "{" + items.map(literal).joined(separator: ", ") + "}"
        }
    }

    /// A double-quoted string literal that the lexer reads back to the same value.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.properties.generalCategory == .format
                    || scalar.properties.generalCategory == .lineSeparator
                    || scalar.properties.generalCategory == .paragraphSeparator {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
