/// What a predicate implies about the names of the items it can match, so an index can look
/// names up instead of scanning every item.
///
/// Every item that matches the predicate has a name satisfying at least one constraint.
/// `kMDItemFSName LIKE 'Item_*'` gives `[.prefix("Item_")]`; `name IN {'a', 'b'}` gives
/// `[.exact("a"), .exact("b")]`. With `caseInsensitive`, compare lowercased names.
public struct NameHint: Sendable, Hashable, CustomStringConvertible {
    public enum Constraint: Sendable, Hashable {
        case exact(String)
        case prefix(String)
    }

    public var constraints: [Constraint]
    public var caseInsensitive: Bool

    public init(_ constraints: [Constraint], caseInsensitive: Bool = false) {
        self.constraints = constraints
        self.caseInsensitive = caseInsensitive
    }

    public var description: String {
        let parts = constraints.map { c -> String in
            switch c {
            case .exact(let s): "name == \(Printer.quoted(s))"
            case .prefix(let s): "name BEGINSWITH \(Printer.quoted(s))"
            }
        }
        return parts.joined(separator: " OR ") + (caseInsensitive ? " (case-insensitive)" : "")
    }

    /// A rough cost: fewer, exact, longer constraints are cheaper to look up.
    var cost: Int {
        constraints.reduce(0) { total, c in
            switch c {
            case .exact: total + 1
            case .prefix(let p): total + 1_000 / max(1, p.count)
            }
        } + (caseInsensitive ? 1 : 0)
    }
}

extension MetadataPredicate {
    /// The name constraints this predicate implies, or `nil` when it could match any name.
    ///
    /// Derived from `==` (exact, or a prefix when the value has wildcards), `LIKE`, `BEGINSWITH`
    /// and `IN {...}` on `kMDItemFSName`, through `AND` (the cheaper side) and `OR` (the union,
    /// when every side has a hint). `NOT`, `[d]` and `w` give no hint.
    public var nameHint: NameHint? {
        switch self {
        case .constant, .not: return nil
        case .comparison(let c): return c.nameHint
        case .and(let operands):
            return operands.compactMap(\.nameHint).min { $0.cost < $1.cost }
        case .or(let operands):
            var union = NameHint([])
            for operand in operands {
                guard let hint = operand.nameHint else { return nil }
                union.constraints.append(contentsOf: hint.constraints)
                union.caseInsensitive = union.caseInsensitive || hint.caseInsensitive
            }
            return union
        }
    }
}

extension MetadataPredicate {
    /// True when ``nameHint`` says everything the predicate does: the items whose names satisfy
    /// the hint are exactly the matches (`name LIKE 'Item_*'`, `name BEGINSWITH 'a'`,
    /// `name == 'x'`, `name IN {...}`), so an index need not evaluate the predicate again.
    public var nameHintIsComplete: Bool {
        guard case .comparison(let c) = self, c.nameHint != nil, case .attribute(.name) = c.left,
              case .constant = c.right else { return false }
        switch c.op {
        case .beginsWith, .in: return true
        case .equal:
            guard case .constant(.string(let s)) = c.right else { return false }
            return Comparison.isLiteralPrefixGlob(s) || !StringMatcher.hasWildcard(s)
        case .like:
            guard case .constant(.string(let s)) = c.right else { return false }
            return Comparison.isLiteralPrefixGlob(s) || !StringMatcher.hasWildcard(s)
        default: return false
        }
    }
}

extension Comparison {
    /// `literal*` with no other unescaped wildcard (and no escapes, to keep it simple).
    static func isLiteralPrefixGlob(_ pattern: String) -> Bool {
        guard pattern.hasSuffix("*"), !pattern.contains("\\") else { return false }
        return !pattern.dropLast().contains { $0 == "*" || $0 == "?" }
    }

    var nameHint: NameHint? {
        guard quantifier == .single, !options.contains(.diacriticInsensitive), !options.contains(.wordBased) else {
            return nil
        }
        var value = right
        if case .attribute(.name) = left {
        } else if case .attribute(.name) = right, op == .equal {
            value = left
        } else {
            return nil
        }
        let ci = options.contains(.caseInsensitive)
        switch (op, value) {
        case (.equal, .constant(.string(let s))):
            if !StringMatcher.hasWildcard(s) { return NameHint([.exact(s)], caseInsensitive: ci) }
            return Comparison.globHint(s, caseInsensitive: ci)
        case (.like, .constant(.string(let s))):
            return Comparison.globHint(s, caseInsensitive: ci)
        case (.beginsWith, .constant(.string(let s))):
            return s.isEmpty ? nil : NameHint([.prefix(s)], caseInsensitive: ci)
        case (.in, .aggregate(let items)):
            var names: [NameHint.Constraint] = []
            for item in items {
                guard case .constant(.string(let s)) = item else { return nil }
                names.append(.exact(s))
            }
            return NameHint(names, caseInsensitive: ci)
        default:
            return nil
        }
    }

    /// The literal text before the first unescaped wildcard of a LIKE pattern.
    static func globHint(_ pattern: String, caseInsensitive: Bool) -> NameHint? {
        var literal = ""
        var escaped = false
        for c in pattern {
            if escaped { literal.append(c); escaped = false; continue }
            if c == "\\" { escaped = true; continue }
            if c == "*" || c == "?" {
                return literal.isEmpty ? nil : NameHint([.prefix(literal)], caseInsensitive: caseInsensitive)
            }
            literal.append(c)
        }
        if escaped { literal.append("\\") }
        return NameHint([.exact(literal)], caseInsensitive: caseInsensitive)
    }
}

extension MetadataPredicate {
    /// Every attribute the predicate reads. A query whose predicate reads `kMDItemFSInvisible`
    /// sees hidden items; an engine can skip changes that touch none of these attributes.
    public var attributes: Set<Attribute> {
        switch self {
        case .constant: return []
        case .not(let p): return p.attributes
        case .and(let ps), .or(let ps): return ps.reduce(into: []) { $0.formUnion($1.attributes) }
        case .comparison(let c):
            var result = Set<Attribute>()
            for side in [c.left, c.right] { if case .attribute(let a) = side { result.insert(a) } }
            return result
        }
    }
}
