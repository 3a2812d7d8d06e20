extension MetadataPredicate {
    /// Every column a predicate over columns reads (``PredicateColumns``), by index; empty for
    /// a predicate over attributes. An evaluator loads only what these need (a relationship
    /// end's related rows, say).
    public var columns: Set<Int> {
        switch self {
        case .constant: return []
        case .not(let p): return p.columns
        case .and(let ps), .or(let ps): return ps.reduce(into: []) { $0.formUnion($1.columns) }
        case .comparison(let c):
            var result: Set<Int> = []
            for side in [c.left, c.right] { if case .column(let column) = side { result.insert(column.index) } }
            return result
        }
    }
}
