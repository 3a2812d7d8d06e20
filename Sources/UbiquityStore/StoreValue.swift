public import UbiquityJSON

/// One column's value in a row, or null.
public enum StoreValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case string(String)
    case integer(Int64)
    /// Finite only (``ColumnType/double``).
    case double(Double)
    case bool(Bool)
    /// Milliseconds since 1970-01-01T00:00:00Z.
    case date(Int64)
    case data([UInt8])
    case json(JSONValue)

    /// The column type this value fits; nil for null, which fits a nullable column of any type.
    public var type: ColumnType? {
        switch self {
        case .null: nil
        case .string: .string
        case .integer: .integer
        case .double: .double
        case .bool: .bool
        case .date: .date
        case .data: .data
        case .json: .json
        }
    }

    /// What the value is, in words, for error messages ("a string", "null").
    public var kindNoun: String {
        switch self {
        case .null: "null"
        case .string: "a string"
        case .integer: "an integer"
        case .double: "a double"
        case .bool: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .json: "JSON"
        }
    }

    public var description: String {
        switch self {
        case .null: "null"
        case .string(let s): "\"\(s)\""
        case .integer(let i): "\(i)"
        case .double(let d): "\(d)"
        case .bool(let b): "\(b)"
        case .date(let ms): "date(\(ms))"
        case .data(let bytes): "data(\(bytes.count) bytes)"
        case .json(let value): JSONLine.encode(value)
        }
    }
}
