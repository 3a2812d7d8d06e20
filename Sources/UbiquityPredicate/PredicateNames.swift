/// Where the parser looks up the names a predicate uses: the metadata attribute registry
/// (``Attribute``), or one table's columns (``PredicateColumns``).
enum PredicateNames: Sendable {
    case metadata
    case columns(PredicateColumns)

    /// The operand `name` stands for; nil when it names nothing here.
    func resolve(_ name: String) -> Operand? {
        switch self {
        case .metadata: Attribute.named(name).map(Operand.attribute)
        case .columns(let columns): columns.named(name).map(Operand.column)
        }
    }

    /// Resolves `name` or says, with a "did you mean", that it names nothing.
    func field(_ name: String, at offset: Int, argument: Int? = nil) throws(MetadataPredicateError) -> Operand {
        if let operand = resolve(name) { return operand }
        switch self {
        case .metadata:
            let hint = Attribute.suggestion(for: name).map { "; did you mean '\($0)'?" } ?? ""
            let which = argument.map { " (argument \($0 + 1) for %K)" } ?? ""
            throw MetadataPredicateError(.unknownAttribute, at: offset, "unknown attribute '\(name)'\(which)\(hint)")
        case .columns(let columns):
            throw columns.unknown(name, at: offset, argument: argument)
        }
    }
}
