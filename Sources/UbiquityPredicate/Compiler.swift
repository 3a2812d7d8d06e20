/// Turns the checked AST into ``Node``s.
struct Compiler {
    let context: EvaluationContext

    func node(_ p: MetadataPredicate) -> Node {
        switch p {
        case .constant(let b): return .constant(b)
        case .not(let inner): return .not(node(inner))
        case .and(let ps): return .and(ps.map(node))
        case .or(let ps): return .or(ps.map(node))
        case .comparison(let c): return .test(test(c))
        }
    }

    func value(_ e: Operand) -> Value {
        switch e {
        case .constant(let v): return v
        case .relativeDate(let r): return .date(context.resolve(r))
        case .aggregate(let items): return .list(items.map(value))
        case .attribute, .column: return .null    // not reached: callers handle attributes and columns
        }
    }

    func side(_ e: Operand) -> Test.Side {
        switch e {
        case .attribute(let a): return .attribute(a)
        case .column(let c): return .column(c.index)
        default: return .value(value(e))
        }
    }

    func test(_ c: Comparison) -> Test {
        var left = c.left, right = c.right, op = c.op
        // Put an attribute on the left where the operator allows it.
        if isAttribute(right), !isAttribute(left) {
            switch op {
            case .equal, .notEqual: swap(&left, &right)
            case .less: swap(&left, &right); op = .greater
            case .lessOrEqual: swap(&left, &right); op = .greaterOrEqual
            case .greater: swap(&left, &right); op = .less
            case .greaterOrEqual: swap(&left, &right); op = .lessOrEqual
            default: break
            }
        }
        let leftIsList = left.isMultiValued

        // Membership: `tags CONTAINS 'x'`, `'x' IN tags`.
        if op == .contains, leftIsList, c.quantifier == .single, case .string(let s) = value(right) {
            return Test(left: side(left), mode: .list, kernel: .membership(Folding.fold(s, c.options), c.options))
        }
        if op == .in, right.isMultiValued, case .string(let s) = value(left) {
            return Test(left: side(right), mode: .list, kernel: .membership(Folding.fold(s, c.options), c.options))
        }

        // `tags == nil` asks whether the list is there at all, not about its elements.
        let isNilTest = (op == .equal || op == .notEqual) && !isAttribute(right) && value(right) == .null
        let mode: Test.Mode = (c.quantifier != .single || (leftIsList && !isNilTest)) ? .elements(c.quantifier) : .scalar
        let kernel: Test.Kernel
        let rightIsConstant = !isAttribute(right)
        let rightValue = rightIsConstant ? value(right) : .null
        switch op {
        case .equal where rightIsConstant && rightValue == .null,
             .notEqual where rightIsConstant && rightValue == .null:
            kernel = .isNull(op == .equal)
        case .like, .matches, .beginsWith, .endsWith, .contains, .equal, .notEqual:
            if rightIsConstant, case .string(let pattern) = rightValue {
                kernel = .string(StringMatcher(op: op, pattern: pattern, options: c.options), negated: op == .notEqual)
            } else {
                kernel = .compare(op, side(right), c.options)
            }
        case .in:
            if case .list(let items) = rightValue {
                var strings: Set<String>? = Set<String>()
                for item in items {
                    if case .string(let s) = item { strings?.insert(Folding.fold(s, c.options)) } else { strings = nil }
                }
                kernel = .oneOf(items, strings: strings, c.options)
            } else {
                kernel = .compare(op, side(right), c.options)
            }
        case .between:
            if case .list(let bounds) = rightValue, bounds.count == 2 {
                kernel = .between(bounds[0], bounds[1], c.options)
            } else {
                kernel = .compare(op, side(right), c.options)
            }
        default:
            kernel = .compare(op, side(right), c.options)
        }
        return Test(left: side(left), mode: mode, kernel: kernel)
    }

    private func isAttribute(_ e: Operand) -> Bool { e.isField }
}
