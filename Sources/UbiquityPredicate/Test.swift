/// One compiled comparison. A final class so that evaluation never copies its parts.
@usableFromInline
final class Test: Sendable {
    @usableFromInline
    enum Side: Sendable {
        case attribute(Attribute)
        case column(Int)
        case value(Value)

        @inlinable
        func value<P: AttributeProvider>(in item: P) -> Value? {
            switch self {
            case .attribute(let a): return item.value(of: a)
            case .column(let index): return item.value(ofColumn: index)
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
            var fx = options.isEmpty ? x : Folding.fold(x, options)
            var fy = options.isEmpty ? y : Folding.fold(y, options)
            // Canonical order, not `String`'s `<`: in Swift 6.3 that is no order for some pairs
            // (`"e\u{301}"` and `"\u{E9}5"`: neither is `<` the other, nor `==`), and a sort
            // by name with both spellings in it had no right answer.
            return fx.withUTF8 { a in fy.withUTF8 { b in NameOrder.compare(a, b).signum() } }
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
