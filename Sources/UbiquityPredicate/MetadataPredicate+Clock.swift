extension MetadataPredicate {
    /// Whether the predicate names a date relative to the evaluation clock (`$time.today(-1)`
    /// and friends): compiled at two different moments, it may match different items, so two
    /// live queries written the same way but started apart do not ask the same thing.
    public var readsTheClock: Bool {
        switch self {
        case .constant: false
        case .not(let p): p.readsTheClock
        case .and(let ps), .or(let ps): ps.contains { $0.readsTheClock }
        case .comparison(let c): c.left.readsTheClock || c.right.readsTheClock
        }
    }
}

extension Operand {
    var readsTheClock: Bool {
        switch self {
        case .relativeDate: true
        case .aggregate(let operands): operands.contains { $0.readsTheClock }
        case .attribute, .column, .constant: false
        }
    }
}
