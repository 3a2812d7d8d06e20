// The document model of the TOML subset that ubiquityd.toml is written in (docs/configuration.md
// lists the subset). Every value and key keeps its position, so the configuration layer can say
// where a semantically wrong value is, not only that it is wrong.

/// One TOML value and the position of its first character (for a `[table]` or `[[table]]`,
/// the position of its first header).
public struct TOMLValue: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        case array([TOMLValue])
        case table(TOMLTable)
    }

    public var kind: Kind
    public var position: TOMLPosition

    public init(kind: Kind, position: TOMLPosition) {
        self.kind = kind
        self.position = position
    }

    /// "a string", "an integer", ...: for "expected X, found Y" messages.
    public var typeName: String {
        switch kind {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .array(let items):
            items.allSatisfy { if case .table = $0.kind { true } else { false } } && !items.isEmpty
                ? "an array of tables" : "an array"
        case .table: "a table"
        }
    }
}
