/// A metadata value: what an attribute holds and what a predicate compares it with.
///
/// Dates are seconds since 1970-01-01T00:00:00Z, so the index never needs a Foundation `Date`
/// per item. Integers are 64-bit; `.double` exists for literals and arguments such as `2.5`.
public enum Value: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    /// Seconds since 1970-01-01T00:00:00Z.
    case date(Double)
    case list([Value])

    /// A short description of the kind of value, for error messages ("a string").
    public var kindNoun: String {
        switch self {
        case .null: "nil"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .date: "a date"
        case .list: "a list"
        }
    }

    public var description: String { Printer.literal(self) }

    /// The numeric value of `.integer` and `.double`.
    var number: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
}

// MARK: - Ordering used by comparisons and sort descriptors

extension Value {
    /// Compares two numbers exactly, also across Int64 and Double.
    static func compareNumbers(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.integer(let x), .double(let y)):
            return compareDouble(y, withInteger: x).map { -$0 }
        case (.double(let x), .integer(let y)):
            return compareDouble(x, withInteger: y)
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return nil }
            return x < y ? -1 : (x == y ? 0 : 1)
        default:
            return nil
        }
    }

    /// Exact comparison of a Double with an Int64 (no rounding of large integers).
    private static func compareDouble(_ d: Double, withInteger i: Int64) -> Int? {
        if d.isNaN { return nil }
        if d >= 9_223_372_036_854_775_808.0 { return 1 }     // ≥ 2^63 > every Int64
        if d < -9_223_372_036_854_775_808.0 { return -1 }
        let truncated = Int64(d.rounded(.towardZero))
        if truncated != i { return truncated < i ? -1 : 1 }
        let fraction = d - d.rounded(.towardZero)
        return fraction == 0 ? 0 : (fraction < 0 ? -1 : 1)
    }
}
