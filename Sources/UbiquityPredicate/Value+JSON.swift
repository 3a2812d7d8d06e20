public import UbiquityJSON

extension Value {
    /// Converts JSON to a value of the attribute's type: dates from ISO-8601 strings or seconds
    /// since 1970, lists from arrays of strings (or one comma-separated string).
    public init(json: JSONValue, for attribute: Attribute) throws(AttributeDecodingError) {
        let key = attribute.canonicalName
        func fail(_ expected: String) -> AttributeDecodingError {
            AttributeDecodingError(key: key, message: "expected \(expected), found \(json.kindNoun)")
        }
        switch (attribute.type, json) {
        case (_, .null): self = .null
        case (.string, .string(let s)): self = .string(s)
        case (.integer, .integer(let i)): self = .integer(i)
        case (.integer, .double(let d)):
            guard d == d.rounded(), abs(d) < 9.2e18 else { throw fail("a whole number") }
            self = .integer(Int64(d))
        case (.bool, .bool(let b)): self = .bool(b)
        case (.bool, .integer(let i)) where i == 0 || i == 1: self = .bool(i == 1)
        case (.date, .string(let s)):
            guard let seconds = ISODate.parse(s) else {
                throw AttributeDecodingError(key: key,
                    message: "expected an ISO-8601 date such as \"2026-11-22T10:00:00Z\", found \(Printer.quoted(s))")
            }
            self = .date(seconds)
        case (.date, .integer(let i)): self = .date(Double(i))
        case (.date, .double(let d)): self = .date(d)
        case (.stringList, .array(let items)):
            var strings: [Value] = []
            for item in items {
                guard case .string(let s) = item else { throw fail("an array of strings") }
                strings.append(.string(s))
            }
            self = .list(strings)
        case (.stringList, .string(let s)):
            self = .list(s.split(separator: ",").map { .string(String($0).trimmingSpaces()) })
        default:
            throw fail(attribute.type.noun)
        }
    }

    /// The JSON form used on the wire and by `--json` output (dates as ISO-8601 strings).
    public var json: JSONValue {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .integer(let i): .integer(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .date(let d): .string(ISODate.format(d))
        case .list(let items): .array(items.map(\.json))
        }
    }

    /// A value from a JSON argument with no attribute to guide it (`%@` arguments from JSON).
    public init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .array(let a): self = .list(a.map(Value.init(json:)))
        case .object: self = .null
        }
    }
}

extension AttributeDictionary {
    /// Reads `{"name": "Item_1", "size": 12, "modified": "2026-11-22T10:00:00Z", "tags": ["a"]}`;
    /// keys may use any attribute spelling.
    public init(json object: [String: JSONValue]) throws(AttributeDecodingError) {
        var values: [Attribute: Value] = [:]
        for key in object.keys.sorted() {
            guard let attribute = Attribute.named(key) else {
                let hint = Attribute.suggestion(for: key).map { "; did you mean '\($0)'?" } ?? ""
                throw AttributeDecodingError(key: key, message: "unknown attribute\(hint)")
            }
            values[attribute] = try Value(json: object[key]!, for: attribute)
        }
        self.init(values)
    }
}
