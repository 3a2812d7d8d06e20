/// A value as SQLite stores it: one of its five storage classes.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The integer, or nil for any other storage class.
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The text, or nil for any other storage class.
    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes, or nil for any other storage class.
    public var blob: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }
}

extension SQLiteValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
}
