public import UbiquityJSON

/// A request's `id`: a number or a string, echoed unchanged in its response.
public enum RequestID: Sendable, Hashable, CustomStringConvertible {
    case number(Int64)
    case text(String)

    public var json: JSONValue {
        switch self {
        case .number(let n): .integer(n)
        case .text(let s): .string(s)
        }
    }

    public init?(json: JSONValue) {
        switch json {
        case .integer(let n): self = .number(n)
        case .string(let s): self = .text(s)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .number(let n): String(n)
        case .text(let s): s
        }
    }
}
