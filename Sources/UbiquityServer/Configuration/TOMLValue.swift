// The document model of the TOML subset that ubiquityd.toml is written in (docs/configuration.md
// lists the subset). Every value and key keeps its position, so the configuration layer can say
// where a semantically wrong value is, not only that it is wrong.

/// A place in a TOML text: 1-based line and column; the column counts Unicode scalars.
struct TOMLPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    var line: Int
    var column: Int

    static func < (a: TOMLPosition, b: TOMLPosition) -> Bool { (a.line, a.column) < (b.line, b.column) }
    var description: String { "\(line):\(column)" }
}

/// A syntax error: where, and what was expected and found.
struct TOMLError: Error, Sendable, Hashable, CustomStringConvertible {
    var position: TOMLPosition
    var message: String
    var description: String { "\(position): \(message)" }
}

/// One TOML value and the position of its first character (for a `[table]` or `[[table]]`,
/// the position of its first header).
struct TOMLValue: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        case array([TOMLValue])
        case table(TOMLTable)
    }

    var kind: Kind
    var position: TOMLPosition

    /// "a string", "an integer", ...: for "expected X, found Y" messages.
    var typeName: String {
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

/// A table: keys in the order they were written, each with its position. Lookup is O(1), so a
/// hostile file with many keys cannot make duplicate detection quadratic.
struct TOMLTable: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var key: String
        var keyPosition: TOMLPosition
        var value: TOMLValue
    }

    private(set) var entries: [Entry] = []
    private var index: [String: Int] = [:]

    init() {}

    subscript(key: String) -> TOMLValue? { entry(key)?.value }

    func entry(_ key: String) -> Entry? { index[key].map { entries[$0] } }

    /// Appends a key; the caller has checked that it is new.
    mutating func append(_ entry: Entry) {
        precondition(index[entry.key] == nil, "duplicate TOML key appended")
        index[entry.key] = entries.count
        entries.append(entry)
    }

    /// Appends `element` to the array stored under `key` without copying the array.
    mutating func appendToArray(_ key: String, _ element: TOMLValue) {
        guard let i = index[key], case .array(var items) = entries[i].value.kind else {
            preconditionFailure("appendToArray on a key that holds no array")
        }
        entries[i].value.kind = .boolean(false)  // drop the second reference so `items` is unique
        items.append(element)
        entries[i].value.kind = .array(items)
    }
}
