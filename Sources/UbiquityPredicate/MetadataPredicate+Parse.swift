import FoundationEssentials

extension MetadataPredicate {
    /// Parses and type-checks NSPredicate / Spotlight format text.
    ///
    /// - Parameters:
    ///   - text: the format string, e.g. `kMDItemFSName LIKE[c] 'item_*' AND size > %d`.
    ///   - arguments: values for `%K` (a string naming an attribute), `%@`, `%d`, `%f`, in order.
    ///   - variables: values for `$NAME` (without the `$`).
    /// - Throws: ``MetadataPredicateError`` naming what was expected, what was found and where.
    ///
    /// Precedence, tightest first: `NOT`, `AND`, `OR`; `a OR b AND c` is `a OR (b AND c)`.
    public init(parsing text: String, arguments: [Value] = [], variables: [String: Value] = [:]) throws(MetadataPredicateError) {
        guard text.utf8.count <= PredicateLimits.maxLength else {
            throw MetadataPredicateError(.tooComplex, at: 0,
                "predicate is \(text.utf8.count) bytes long; the limit is \(PredicateLimits.maxLength)")
        }
        var parser = Parser(tokens: try Lexer.tokenize(text), arguments: arguments, variables: variables)
        self = try parser.parseWhole()
    }

    /// Parses and type-checks a predicate over a table's columns: every name is one of
    /// `columns` (no metadata attribute), and each column's type decides what it may be
    /// compared with, as an attribute's does (docs/predicates.md, "Types"). The syntax, the
    /// limits and the errors are those of ``init(parsing:arguments:variables:)``.
    public init(parsing text: String, columns: PredicateColumns, arguments: [Value] = [],
                variables: [String: Value] = [:]) throws(MetadataPredicateError) {
        guard text.utf8.count <= PredicateLimits.maxLength else {
            throw MetadataPredicateError(.tooComplex, at: 0,
                "predicate is \(text.utf8.count) bytes long; the limit is \(PredicateLimits.maxLength)")
        }
        var parser = Parser(tokens: try Lexer.tokenize(text), arguments: arguments, variables: variables, names: .columns(columns))
        self = try parser.parseWhole()
    }
}
