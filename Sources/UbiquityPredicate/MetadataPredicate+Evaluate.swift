/// Anything that can answer attribute values: an index entry, a JSON object, a test fixture.
///
/// Return `nil` (or `.null`) for a missing attribute. Multi-valued attributes return `.list`.
public protocol AttributeProvider {
    func value(of attribute: Attribute) -> Value?
}

/// A plain attribute → value table; handy for tests, the CLI and clients.
public struct AttributeDictionary: AttributeProvider, Sendable, Hashable {
    public var values: [Attribute: Value]
    public init(_ values: [Attribute: Value] = [:]) { self.values = values }
    public func value(of attribute: Attribute) -> Value? { values[attribute] }
    public subscript(attribute: Attribute) -> Value? {
        get { values[attribute] }
        set { values[attribute] = newValue }
    }
}

extension MetadataPredicate {
    /// Prepares the predicate for fast repeated evaluation: resolves `$time.*` against
    /// `context`, compiles string patterns, and builds lookup sets for `IN`.
    ///
    /// A compiled predicate is immutable and `Sendable`. Recompile when the clock matters
    /// (`$time.today` moves at midnight).
    public func compiled(_ context: EvaluationContext = EvaluationContext()) -> CompiledPredicate {
        CompiledPredicate(root: Compiler(context: context).node(self))
    }

    /// Evaluates once; prefer ``compiled(_:)`` for many items.
    public func evaluate(_ item: some AttributeProvider, context: EvaluationContext = EvaluationContext()) -> Bool {
        compiled(context).evaluate(item)
    }
}

/// A predicate ready to test items, millions per second.
///
/// Semantics (docs/predicates.md): a comparison with a missing attribute is false — except
/// `attr == nil`, which is true; a multi-valued attribute that is missing is an empty list.
public struct CompiledPredicate: Sendable {
    @usableFromInline let root: Node
    /// The most common query — one string test on one attribute, such as
    /// `kMDItemFSName LIKE 'Item_*'` — evaluated without walking the tree.
    @usableFromInline let singleMatcher: StringMatcher?
    @usableFromInline let singleAttribute: Attribute
    @usableFromInline let singleNegated: Bool

    init(root: Node) {
        self.root = root
        if case .test(let test) = root, case .attribute(let attribute) = test.left, case .scalar = test.mode,
           case .string(let matcher, let negated) = test.kernel {
            (singleMatcher, singleAttribute, singleNegated) = (matcher, attribute, negated)
        } else {
            (singleMatcher, singleAttribute, singleNegated) = (nil, .name, false)
        }
    }

    /// - Complexity: linear in the predicate's size for each item, plus pattern matching,
    ///   which is O(text × pattern) at worst (never exponential).
    ///
    /// Inlinable so that callers' loops are specialised for their item type: the tree walk
    /// below runs with direct calls to the provider (a 2-3× difference on 1M items).
    @inlinable
    public func evaluate<P: AttributeProvider>(_ item: P) -> Bool {
        if let singleMatcher {
            guard case .string(let s)? = item.value(of: singleAttribute) else { return false }
            return singleMatcher.matches(s) != singleNegated
        }
        return root.evaluate(item)
    }
}

@usableFromInline
indirect enum Node: Sendable {
    case constant(Bool)
    case not(Node)
    case and([Node])
    case or([Node])
    case test(Test)

    @inlinable
    func evaluate<P: AttributeProvider>(_ item: P) -> Bool {
        switch self {
        case .constant(let b): return b
        case .not(let n): return !n.evaluate(item)
        case .and(let nodes):
            for n in nodes where !n.evaluate(item) { return false }
            return true
        case .or(let nodes):
            for n in nodes where n.evaluate(item) { return true }
            return false
        case .test(let t): return t.evaluate(item)
        }
    }
}

/// One compiled comparison. A final class so that evaluation never copies its parts.
@usableFromInline
final class Test: Sendable {
    @usableFromInline
    enum Side: Sendable {
        case attribute(Attribute)
        case value(Value)

        @inlinable
        func value<P: AttributeProvider>(in item: P) -> Value? {
            switch self {
            case .attribute(let a): return item.value(of: a)
            case .value(let v): return v
            }
        }
    }

    @usableFromInline
    enum Kernel: Sendable {
        /// A string test against a constant pattern; `negated` for `!=`.
        case string(StringMatcher, negated: Bool)
        /// `== nil` (true) or `!= nil` (false).
        case isNull(Bool)
        /// Any other comparison, with the right side read per item.
        case compare(ComparisonOperator, Side, ComparisonOptions)
        /// `IN {...}`; `strings` holds folded strings for a fast lookup when every element is one.
        case oneOf([Value], strings: Set<String>?, ComparisonOptions)
        case between(Value, Value, ComparisonOptions)
        /// A list contains the value (`tags CONTAINS 'x'`, `'x' IN tags`).
        case membership(String, ComparisonOptions)
    }

    @usableFromInline
    enum Mode: Sendable {
        case scalar
        /// Apply the kernel to each element of a list (`ANY`, `ALL`, `NONE`, or Spotlight's implicit ANY).
        case elements(Quantifier)
        /// Apply the kernel to the whole list (membership).
        case list
    }

    @usableFromInline let left: Side
    @usableFromInline let mode: Mode
    @usableFromInline let kernel: Kernel

    init(left: Side, mode: Mode, kernel: Kernel) {
        self.left = left
        self.mode = mode
        self.kernel = kernel
    }

    @inlinable
    func evaluate<P: AttributeProvider>(_ item: P) -> Bool {
        let value = left.value(in: item)
        switch mode {
        case .scalar:
            let isNull: Bool
            switch value {
            case .none, .some(.null): isNull = true
            default: isNull = false
            }
            if case .isNull(let wantNull) = kernel { return isNull == wantNull }
            guard !isNull, let value else { return false }
            return apply(value, item)
        case .elements(let quantifier):
            let elements: [Value]
            switch value {
            case .none, .some(.null): elements = []
            case .some(.list(let items)): elements = items
            case .some(let scalar): elements = [scalar]
            }
            switch quantifier {
            case .single, .any: return elements.contains { apply($0, item) }
            case .all: return elements.allSatisfy { apply($0, item) }
            case .noElement: return !elements.contains { apply($0, item) }
            }
        case .list:
            guard case .membership(let needle, let options) = kernel else { return false }
            let elements: [Value]
            switch value {
            case .some(.list(let items)): elements = items
            case .some(.string(let s)): elements = [.string(s)]
            default: elements = []
            }
            return Test.contains(elements, folded: needle, options)
        }
    }

    /// Whether a list holds a string equal to `folded` (already folded with `options`).
    @usableFromInline
    static func contains(_ elements: [Value], folded: String, _ options: ComparisonOptions) -> Bool {
        elements.contains {
            if case .string(let s) = $0 { return Folding.fold(s, options) == folded }
            return false
        }
    }

    @inlinable
    func apply<P: AttributeProvider>(_ value: Value, _ item: P) -> Bool {
        switch kernel {
        case .string(let matcher, let negated):
            guard case .string(let s) = value else { return false }
            return matcher.matches(s) != negated
        case .isNull(let wantNull):
            return (value == .null) == wantNull
        case .compare(let op, let rightSide, let options):
            guard let right = rightSide.value(in: item), right != .null else { return false }
            return Test.compare(value, op, right, options)
        case .oneOf(let values, let strings, let options):
            return Test.isOneOf(value, values, strings, options)
        case .between(let low, let high, let options):
            guard let a = Test.order(value, low, options), let b = Test.order(value, high, options) else { return false }
            return a >= 0 && b <= 0
        case .membership:
            return false
        }
    }

    @usableFromInline
    static func isOneOf(_ value: Value, _ values: [Value], _ strings: Set<String>?, _ options: ComparisonOptions) -> Bool {
        if let strings, case .string(let s) = value { return strings.contains(Folding.fold(s, options)) }
        return values.contains { order(value, $0, options) == 0 }
    }

    @usableFromInline
    static func compare(_ left: Value, _ op: ComparisonOperator, _ right: Value, _ options: ComparisonOptions) -> Bool {
        switch op {
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .string(let l) = left, case .string(let r) = right else { return false }
            return StringMatcher(op: op, pattern: r, options: options).matches(l)
        case .in:
            if case .list(let items) = right { return items.contains { order(left, $0, options) == 0 } }
            return false
        case .between:
            guard case .list(let bounds) = right, bounds.count == 2,
                  let a = order(left, bounds[0], options), let b = order(left, bounds[1], options) else { return false }
            return a >= 0 && b <= 0
        default:
            guard let c = order(left, right, options) else { return false }
            switch op {
            case .equal: return c == 0
            case .notEqual: return c != 0
            case .less: return c < 0
            case .lessOrEqual: return c <= 0
            case .greater: return c > 0
            case .greaterOrEqual: return c >= 0
            default: return false
            }
        }
    }

    /// -1, 0, 1, or nil when the values cannot be compared.
    @usableFromInline
    static func order(_ a: Value, _ b: Value, _ options: ComparisonOptions) -> Int? {
        switch (a, b) {
        case (.string(let x), .string(let y)):
            let fx = options.isEmpty ? x : Folding.fold(x, options)
            let fy = options.isEmpty ? y : Folding.fold(y, options)
            return fx == fy ? 0 : (fx < fy ? -1 : 1)
        case (.date(let x), .date(let y)):
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.bool(let x), .bool(let y)):
            return x == y ? 0 : (!x ? -1 : 1)
        case (.null, .null):
            return 0
        default:
            return Value.compareNumbers(a, b)
        }
    }
}

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
        case .attribute: return .null    // not reached: callers handle attributes
        }
    }

    func side(_ e: Operand) -> Test.Side {
        if case .attribute(let a) = e { return .attribute(a) }
        return .value(value(e))
    }

    func test(_ c: Comparison) -> Test {
        var left = c.left, right = c.right, op = c.op
        // Put an attribute on the left where the operator allows it.
        if case .attribute = right, !isAttribute(left) {
            switch op {
            case .equal, .notEqual: swap(&left, &right)
            case .less: swap(&left, &right); op = .greater
            case .lessOrEqual: swap(&left, &right); op = .greaterOrEqual
            case .greater: swap(&left, &right); op = .less
            case .greaterOrEqual: swap(&left, &right); op = .lessOrEqual
            default: break
            }
        }
        let leftIsList: Bool
        if case .attribute(let a) = left { leftIsList = a.isMultiValued } else { leftIsList = false }

        // Membership: `tags CONTAINS 'x'`, `'x' IN tags`.
        if op == .contains, leftIsList, c.quantifier == .single, case .string(let s) = value(right) {
            return Test(left: side(left), mode: .list, kernel: .membership(Folding.fold(s, c.options), c.options))
        }
        if op == .in, case .attribute(let a) = right, a.isMultiValued, case .string(let s) = value(left) {
            return Test(left: .attribute(a), mode: .list, kernel: .membership(Folding.fold(s, c.options), c.options))
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

    private func isAttribute(_ e: Operand) -> Bool {
        if case .attribute = e { return true }
        return false
    }
}
