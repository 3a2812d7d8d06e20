/// The type of a column's values. Its raw value is the name schemas and docs use.
public enum ColumnType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// UTF-8 text.
    case string
    /// A signed 64-bit integer.
    case integer
    /// A finite IEEE 754 double (no NaN, no infinity: neither survives JSON or SQLite intact).
    case double
    case bool
    /// Milliseconds since 1970-01-01T00:00:00Z, UTC.
    case date
    /// Bytes.
    case data
    /// Any JSON value (the wire's JSON; ``StoreValue/json(_:)``).
    case json

    public var description: String { rawValue }
}
