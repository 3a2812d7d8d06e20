import FoundationEssentials

/// Recursive-descent parser with NSPredicate precedence. Depth is bounded by ``PredicateLimits``.
struct Parser {
    private let tokens: [Token]
    private var position = 0
    private let arguments: [Value]
    private var nextArgument = 0
    private let variables: [String: Value]
    /// Where names are looked up: the metadata attributes, or a table's columns.
    private let names: PredicateNames
    private var depth = 0
    private var comparisons = 0
    /// Compiled instructions of every MATCHES pattern so far (``PredicateLimits/maxTotalRegexInstructions``).
    private var regexInstructions = 0

    init(tokens: [Token], arguments: [Value], variables: [String: Value], names: PredicateNames = .metadata) {
        self.tokens = tokens
        self.arguments = arguments
        self.variables = variables
        self.names = names
    }

    private var current: Token { tokens[position] }
    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private func isWord(_ token: Token, _ keyword: String) -> Bool {
        if case .word = token.kind { return token.keyword == keyword }
        return false
    }
    private func isSymbol(_ token: Token, _ symbol: String) -> Bool {
        token.kind == .symbol(symbol)
    }

    mutating func parseWhole() throws(MetadataPredicateError) -> MetadataPredicate {
        if current.kind == .end {
            throw MetadataPredicateError(.syntax, at: 0, "expected a predicate, found an empty string")
        }
        let predicate = try parseOr()
        guard current.kind == .end else {
            if isSymbol(current, ")") {
                throw MetadataPredicateError(.syntax, at: current.offset, "unbalanced ')': no '(' before it")
            }
            throw MetadataPredicateError(.syntax, at: current.offset,
                "expected AND, OR or end of predicate, found \(current.found)")
        }
        if nextArgument < arguments.count {
            throw MetadataPredicateError(.argument, at: current.offset,
                "\(arguments.count) arguments given but the predicate uses only \(nextArgument)")
        }
        return predicate
    }

    private mutating func enter(_ offset: Int) throws(MetadataPredicateError) {
        depth += 1
        if depth > PredicateLimits.maxDepth {
            throw MetadataPredicateError(.tooComplex, at: offset,
                "predicate nests deeper than \(PredicateLimits.maxDepth) levels")
        }
    }

    // MARK: - Logical layer

    private mutating func parseOr() throws(MetadataPredicateError) -> MetadataPredicate {
        var operands = [try parseAnd()]
        while isWord(current, "OR") || isSymbol(current, "||") {
            advance()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    private mutating func parseAnd() throws(MetadataPredicateError) -> MetadataPredicate {
        var operands = [try parseNot()]
        while isWord(current, "AND") || isSymbol(current, "&&") {
            advance()
            operands.append(try parseNot())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    private mutating func parseNot() throws(MetadataPredicateError) -> MetadataPredicate {
        if isWord(current, "NOT") || isSymbol(current, "!") {
            let offset = current.offset
            advance()
            try enter(offset)
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(MetadataPredicateError) -> MetadataPredicate {
        let token = current
        if isSymbol(token, "(") {
            advance()
            try enter(token.offset)
            defer { depth -= 1 }
            let inner = try parseOr()
            guard isSymbol(current, ")") else {
                throw MetadataPredicateError(.syntax, at: current.offset,
                    "expected ')' to close '(' at \(token.offset), found \(current.found)")
            }
            advance()
            return inner
        }
        if isWord(token, "TRUEPREDICATE") { advance(); return .constant(true) }
        if isWord(token, "FALSEPREDICATE") { advance(); return .constant(false) }
        if token.kind == .end || isSymbol(token, ")") || isWord(token, "AND") || isWord(token, "OR")
            || isSymbol(token, "&&") || isSymbol(token, "||") {
            let after = position > 0 ? " after \(tokens[position - 1].found)" : ""
            throw MetadataPredicateError(.syntax, at: token.offset, "expected a comparison\(after), found \(token.found)")
        }
        return .comparison(try parseComparison())
    }

    // MARK: - Comparisons

    private mutating func parseComparison() throws(MetadataPredicateError) -> Comparison {
        comparisons += 1
        if comparisons > PredicateLimits.maxComparisons {
            throw MetadataPredicateError(.tooComplex, at: current.offset,
                "predicate has more than \(PredicateLimits.maxComparisons) comparisons")
        }
        let start = current
        if isWord(start, "INRANGE"), isSymbol(tokens[position + 1], "(") {
            return try parseInRange()
        }
        var quantifier = Quantifier.single
        for (word, q) in [("ANY", Quantifier.any), ("SOME", .any), ("ALL", .all), ("NONE", .noElement)]
        where isWord(start, word) {
            // `ANY` is a quantifier only when a value follows it, not an operator.
            quantifier = q
            advance()
            break
        }
        let left = try parseOperand(after: quantifier == .single ? nil : start.text)
        let opToken = current
        guard let op = parseOperatorToken() else {
            throw MetadataPredicateError(.syntax, at: opToken.offset,
                "expected an operator (==, !=, <, >, LIKE, MATCHES, BEGINSWITH, ENDSWITH, CONTAINS, IN, BETWEEN) "
                + "after \(left.text), found \(opToken.found)")
        }
        advance()
        var options = try parseBracketOptions(op: op, opToken: opToken)
        let right = try parseOperand(after: opToken.text.uppercased())
        options.formUnion(right.trailing)
        if !left.trailing.isEmpty { options.formUnion(left.trailing) }
        return try TypeChecker.check(quantifier: quantifier, left: left, op: op, opOffset: opToken.offset,
                                     right: right, options: options, regexInstructions: &regexInstructions)
    }

    private func parseOperatorToken() -> ComparisonOperator? {
        switch current.kind {
        case .symbol(let s):
            switch s {
            case "==", "=": return .equal
            case "!=", "<>": return .notEqual
            case "<": return .less
            case "<=", "=<": return .lessOrEqual
            case ">": return .greater
            case ">=", "=>": return .greaterOrEqual
            default: return nil
            }
        case .word:
            switch current.keyword {
            case "LIKE": return .like
            case "MATCHES": return .matches
            case "BEGINSWITH": return .beginsWith
            case "ENDSWITH": return .endsWith
            case "CONTAINS": return .contains
            case "IN": return .in
            case "BETWEEN": return .between
            default: return nil
            }
        default:
            return nil
        }
    }

    /// `[c]`, `[d]`, `[cd]`; `n` and `l` are accepted and have no effect; `w` is Spotlight's word mode.
    private mutating func parseBracketOptions(op: ComparisonOperator, opToken: Token) throws(MetadataPredicateError) -> ComparisonOptions {
        guard isSymbol(current, "[") else { return [] }
        let open = current
        advance()
        guard case .word(let letters) = current.kind else {
            throw MetadataPredicateError(.syntax, at: current.offset,
                "expected modifier letters c, d (or n, l, w) inside '[' after \(opToken.text), found \(current.found)")
        }
        var options: ComparisonOptions = []
        for (i, letter) in letters.enumerated() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "w": options.insert(.wordBased)
            case "n", "l": break
            default:
                throw MetadataPredicateError(.syntax, at: current.offset + i,
                    "unknown modifier '\(letter)' in [\(letters)]; use c (case-insensitive), d (diacritic-insensitive)")
            }
        }
        advance()
        guard isSymbol(current, "]") else {
            throw MetadataPredicateError(.syntax, at: current.offset,
                "expected ']' to close '[' at \(open.offset), found \(current.found)")
        }
        advance()
        return options
    }

    /// `InRange(attr, lo, hi)`: Spotlight's inclusive range, the same as `attr BETWEEN {lo, hi}`.
    private mutating func parseInRange() throws(MetadataPredicateError) -> Comparison {
        let nameToken = current
        advance()   // InRange
        advance()   // (
        let attribute = try parseOperand(after: "InRange(")
        try expect(",", after: "the attribute of InRange")
        let low = try parseOperand(after: ",")
        try expect(",", after: "the lower bound of InRange")
        let high = try parseOperand(after: ",")
        try expect(")", after: "the upper bound of InRange")
        let range = ParsedOperand(expression: .aggregate([low.expression, high.expression]), offset: low.offset,
                            argumentIndex: nil, trailing: [], text: "InRange")
        return try TypeChecker.check(quantifier: .single, left: attribute, op: .between, opOffset: nameToken.offset,
                                     right: range, options: [], rangeParts: [low, high], regexInstructions: &regexInstructions)
    }

    private mutating func expect(_ symbol: String, after what: String) throws(MetadataPredicateError) {
        guard isSymbol(current, symbol) else {
            throw MetadataPredicateError(.syntax, at: current.offset, "expected '\(symbol)' after \(what), found \(current.found)")
        }
        advance()
    }

    // MARK: - Operands

    /// - Parameter after: what came before, for "expected a value after LIKE".
    private mutating func parseOperand(after: String?) throws(MetadataPredicateError) -> ParsedOperand {
        let token = current
        func operand(_ e: Operand, argument: Int? = nil, trailing: ComparisonOptions = []) -> ParsedOperand {
            ParsedOperand(expression: e, offset: token.offset, argumentIndex: argument, trailing: trailing, text: token.text)
        }
        func expectedValue() -> MetadataPredicateError {
            let context = after.map { " after \($0)" } ?? ""
            return MetadataPredicateError(.syntax, at: token.offset, "expected a value\(context), found \(token.found)")
        }
        switch token.kind {
        case .string(let s, let trailing):
            advance()
            return operand(.constant(.string(s)), trailing: trailing)
        case .integer(let i):
            advance()
            return operand(.constant(.integer(i)))
        case .double(let d):
            advance()
            return operand(.constant(.double(d)))
        case .escapedWord(let name):
            advance()
            return operand(try names.field(name, at: token.offset))
        case .word(let word):
            switch token.keyword {
            case "TRUE", "YES": advance(); return operand(.constant(.bool(true)))
            case "FALSE", "NO": advance(); return operand(.constant(.bool(false)))
            case "NIL", "NULL": advance(); return operand(.constant(.null))
            case "CAST" where isSymbol(tokens[position + 1], "("):
                return try parseCast()
            default:
                if let field = names.resolve(word) {
                    advance()
                    return operand(field)
                }
                if Parser.reservedWords.contains(token.keyword) { throw expectedValue() }
                _ = try names.field(word, at: token.offset)
                throw expectedValue()
            }
        case .symbol("{"):
            return try parseAggregate()
        case .format(let spec):
            advance()
            return try substitute(spec, token: token)
        case .variable(let name):
            advance()
            if name.lowercased().hasPrefix("time.") {
                return operand(.relativeDate(try relativeDate(name, token: token)))
            }
            guard let value = variables[name] else {
                throw MetadataPredicateError(.unboundVariable, at: token.offset,
                    "variable $\(name) has no value; bind it (ubiq: --var \(name)=VALUE)")
            }
            var bound = operand(Parser.expression(for: value))
            bound.isSubstituted = true
            return bound
        case .isoDate(let text):
            advance()
            guard let seconds = ISODate.parse(text) else {
                throw MetadataPredicateError(.syntax, at: token.offset,
                    "invalid date '\(text)' in $time.iso(...); write it as 2026-11-22T10:00:00Z")
            }
            return operand(.constant(.date(seconds)))
        default:
            throw expectedValue()
        }
    }

    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME", "IN", "LIKE", "MATCHES", "BEGINSWITH", "ENDSWITH",
        "CONTAINS", "BETWEEN", "TRUEPREDICATE", "FALSEPREDICATE", "CAST", "INRANGE",
    ]

    private mutating func parseAggregate() throws(MetadataPredicateError) -> ParsedOperand {
        let open = current
        advance()
        try enter(open.offset)
        defer { depth -= 1 }
        var elements: [Operand] = []
        var parts: [ParsedOperand] = []
        if isSymbol(current, "}") {
            advance()
            return ParsedOperand(expression: .aggregate([]), offset: open.offset, argumentIndex: nil, trailing: [], text: "{}")
        }
        while true {
            let element = try parseOperand(after: elements.isEmpty ? "'{'" : "','")
            if let name = element.expression.fieldName {
                let what = if case .column = element.expression { "column" } else { "attribute" }
                throw MetadataPredicateError(.syntax, at: element.offset,
                    "an aggregate {...} holds values only, found \(what) \(name)")
            }
            elements.append(element.expression)
            parts.append(element)
            if elements.count > PredicateLimits.maxAggregateCount {
                throw MetadataPredicateError(.tooComplex, at: element.offset,
                    "aggregate has more than \(PredicateLimits.maxAggregateCount) elements")
            }
            if isSymbol(current, ",") { advance(); continue }
            if isSymbol(current, "}") { advance(); break }
            throw MetadataPredicateError(.syntax, at: current.offset,
                "expected ',' or '}' in the aggregate opened at \(open.offset), found \(current.found)")
        }
        return ParsedOperand(expression: .aggregate(elements), offset: open.offset, argumentIndex: nil, trailing: [],
                             text: "{...}", parts: parts)
    }

    /// `CAST(value, 'NSDate')` (a number is seconds since 2001-01-01, as in NSPredicate),
    /// `CAST(value, 'NSNumber')`, `CAST(value, 'NSString')`.
    private mutating func parseCast() throws(MetadataPredicateError) -> ParsedOperand {
        let castToken = current
        advance()   // CAST
        advance()   // (
        let value = try parseOperand(after: "CAST(")
        try expect(",", after: "the value of CAST")
        let typeToken = current
        guard case .string(let typeName, _) = typeToken.kind else {
            throw MetadataPredicateError(.syntax, at: typeToken.offset,
                "expected a type name such as 'NSDate' in CAST, found \(typeToken.found)")
        }
        advance()
        try expect(")", after: "the type of CAST")
        guard case .constant(let v) = value.expression else {
            throw MetadataPredicateError(.type, at: value.offset, "CAST takes a literal value, found \(value.text)")
        }
        let result: Value
        switch (typeName, v) {
        case ("NSDate", .string(let s)):
            guard let seconds = ISODate.parse(s) else {
                throw MetadataPredicateError(.type, at: value.offset,
                    "CAST to NSDate needs an ISO-8601 date such as '2026-11-22T10:00:00Z', found \(Printer.quoted(s))")
            }
            result = .date(seconds)
        case ("NSDate", .integer), ("NSDate", .double):
            result = .date(ISODate.quantize(v.number! + ISODate.referenceDateOffset))
        case ("NSDate", .date):
            result = v
        case ("NSNumber", .string(let s)):
            if let i = Int64(s) { result = .integer(i) }
            else if let d = Double(s), d.isFinite { result = .double(d) }
            else {
                throw MetadataPredicateError(.type, at: value.offset, "CAST to NSNumber needs a number, found \(Printer.quoted(s))")
            }
        case ("NSNumber", .integer), ("NSNumber", .double):
            result = v
        case ("NSNumber", .date(let d)):
            result = .double(d - ISODate.referenceDateOffset)
        case ("NSString", .string):
            result = v
        case ("NSString", .integer), ("NSString", .double):
            result = .string(Printer.literal(v))
        case ("NSDate", _), ("NSNumber", _), ("NSString", _):
            throw MetadataPredicateError(.type, at: value.offset, "cannot CAST \(v.kindNoun) to \(typeName)")
        default:
            throw MetadataPredicateError(.type, at: typeToken.offset,
                "CAST supports 'NSDate', 'NSNumber' and 'NSString', found \(Printer.quoted(typeName))")
        }
        return ParsedOperand(expression: .constant(result), offset: castToken.offset, argumentIndex: value.argumentIndex,
                       trailing: [], text: "CAST")
    }

    private mutating func substitute(_ spec: String, token: Token) throws(MetadataPredicateError) -> ParsedOperand {
        let index = nextArgument
        guard index < arguments.count else {
            throw MetadataPredicateError(.argument, at: token.offset,
                "no argument for %\(spec) (argument \(index + 1); \(arguments.count) given)")
        }
        nextArgument += 1
        let argument = arguments[index]
        func fail(_ message: String) -> MetadataPredicateError {
            MetadataPredicateError(.argument, at: token.offset, "argument \(index + 1) for %\(spec): \(message)")
        }
        let expression: Operand
        switch spec {
        case "K":
            guard case .string(let name) = argument else {
                throw fail("expected an attribute name, found \(argument.kindNoun)")
            }
            expression = try names.field(name, at: token.offset, argument: index)
        case "@":
            if case .double(let d) = argument, !d.isFinite { throw fail("\(d) is not a finite number") }
            expression = Parser.expression(for: argument)
        case "f", "lf", "g", "e":
            switch argument {
            case .integer(let i): expression = .constant(.double(Double(i)))
            case .double(let d) where d.isFinite: expression = .constant(.double(d))
            case .string(let s):
                guard let d = Double(s), d.isFinite else { throw fail("expected a number, found \(Printer.quoted(s))") }
                expression = .constant(.double(d))
            default: throw fail("expected a finite number, found \(argument)")
            }
        default:   // %d and its integer cousins
            switch argument {
            case .integer: expression = .constant(argument)
            case .double(let d) where d == d.rounded() && abs(d) < 9.2e18: expression = .constant(.integer(Int64(d)))
            case .bool(let b): expression = .constant(.integer(b ? 1 : 0))
            case .string(let s):
                guard let i = Int64(s) else { throw fail("expected an integer, found \(Printer.quoted(s))") }
                expression = .constant(.integer(i))
            default: throw fail("expected an integer, found \(argument)")
            }
        }
        return ParsedOperand(expression: expression, offset: token.offset, argumentIndex: index, trailing: [],
                       text: token.text, isSubstituted: true)
    }

    static func expression(for value: Value) -> Operand {
        switch value {
        case .list(let items): return .aggregate(items.map { expression(for: $0) })
        case .date(let x): return .constant(.date(ISODate.quantize(x)))
        default: return .constant(value)
        }
    }

    /// `$time.now`, `$time.today(-1)`, ... ; `token` is the variable token, the offset may follow.
    private mutating func relativeDate(_ name: String, token: Token) throws(MetadataPredicateError) -> RelativeDate {
        let key = String(name.dropFirst("time.".count)).lowercased()
        guard let anchor = RelativeDate.Anchor(rawValue: key) else {
            throw MetadataPredicateError(.syntax, at: token.offset,
                "unknown date '$\(name)'; use $time.now, today, yesterday, this_week, this_month, this_year or iso(...)")
        }
        var offset: Int64 = 0
        if isSymbol(current, "(") {
            let open = current
            advance()
            guard case .integer(let value) = current.kind else {
                throw MetadataPredicateError(.syntax, at: current.offset,
                    "expected a whole-number offset in $\(name)(...), found \(current.found)")
            }
            let limit: Int64 = anchor == .now ? 100_000_000_000 : 1_000_000
            guard abs(value) <= limit else {
                throw MetadataPredicateError(.tooComplex, at: current.offset,
                    "offset \(value) in $\(name)(...) is beyond ±\(limit)")
            }
            offset = value
            advance()
            guard isSymbol(current, ")") else {
                throw MetadataPredicateError(.syntax, at: current.offset,
                    "expected ')' to close '(' at \(open.offset), found \(current.found)")
            }
            advance()
        }
        return RelativeDate(anchor, offset: offset)
    }
}
