/// A token of predicate text with its 0-based character offset.
struct Token: Sendable {
    enum Kind: Sendable, Equatable {
        /// A bare word: an attribute name or a keyword (keywords are matched case-insensitively).
        case word(String)
        /// `#word`: a word forced to be an attribute name even if it is a keyword.
        case escapedWord(String)
        /// A quoted string, with Spotlight's trailing modifiers (`'Item_*'cd`) if any.
        case string(String, trailing: ComparisonOptions)
        case integer(Int64)
        case double(Double)
        /// Punctuation and symbolic operators: `( ) { } [ ] ,` `== = != <> < <= =< > >= => && || !`.
        case symbol(String)
        /// `%K`, `%@`, `%d`, `%f` ...: the letters after `%`.
        case format(String)
        /// `$NAME` or `$time.today`: the text after `$`.
        case variable(String)
        /// `$time.iso(...)`: the raw text between the parentheses.
        case isoDate(String)
        case end
    }

    let kind: Kind
    let offset: Int
    /// The source text of the token, for "found ..." in error messages.
    let text: String
    /// Words in ASCII upper case (keywords are case-insensitive); computed once per token.
    let keyword: String

    init(kind: Kind, offset: Int, text: String) {
        self.kind = kind
        self.offset = offset
        self.text = text
        if case .word(let w) = kind, w.utf8.count <= 16 {
            var upper = ""
            for byte in w.utf8 {
                upper.unicodeScalars.append(Unicode.Scalar(byte >= 97 && byte <= 122 ? byte - 32 : byte))
            }
            keyword = upper
        } else {
            keyword = ""
        }
    }

    /// How the token reads in an error message: `'AND'`, `string "abc"`, `end of predicate`.
    var found: String {
        switch kind {
        case .end: "end of predicate"
        case .string(let s, _): "string \(Printer.quoted(s))"
        case .integer, .double: "number \(text)"
        default: "'\(text)'"
        }
    }
}
