import FoundationEssentials
public import UbiquityJSON

/// One stored value, typed as NSUbiquitousKeyValueStore's property-list values are.
///
/// On the wire and in the store's files a value is plain JSON, except two types JSON lacks, each
/// an object with one reserved key: data `{"$data": "<base64>"}` and dates
/// `{"$date": "2026-05-01T12:00:00.000Z"}`. A dictionary's own keys therefore may not begin with
/// `$`. JSON keeps no difference between `1` and `1.0`: a whole double may read back as an integer.
public indirect enum KVValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case data([UInt8])
    /// Milliseconds since 1970-01-01T00:00:00Z (``KVDate``).
    case date(Int64)
    case array([KVValue])
    case dictionary([String: KVValue])

    /// Arrays and dictionaries nest at most this deep.
    public static let maxDepth = 32

    /// The type's name in messages and in `ubiq kv`'s output.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .double: "double"
        case .bool: "bool"
        case .data: "data"
        case .date: "date"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }

    /// Reads a value from its wire form. `path` names where it sits, for messages (`value[2].when`).
    public init(wire: JSONValue, path: String = "value") throws(KeyValueError) {
        try self.init(wire: wire, path: path, depth: 0)
    }

    private init(wire: JSONValue, path: String, depth: Int) throws(KeyValueError) {
        func invalid(_ message: String) -> KeyValueError {
            KeyValueError(.invalidValue, message, details: ["field": .string(path)])
        }
        guard depth <= KVValue.maxDepth else {
            throw invalid("\(path) nests deeper than \(KVValue.maxDepth) arrays or dictionaries")
        }
        switch wire {
        case .null: throw invalid("\(path) is null: a key has no null value; remove the key instead (kv.remove)")
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .array(let items):
            var values: [KVValue] = []
            values.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { values.append(try KVValue(wire: item, path: "\(path)[\(i)]", depth: depth + 1)) }
            self = .array(values)
        case .object(let object):
            if object.count == 1, let (key, member) = object.first, key.hasPrefix("$") {
                switch (key, member) {
                case ("$data", .string(let text)):
                    guard let bytes = Data(base64Encoded: text) else { throw invalid("\(path).$data is not base64 (RFC 4648, with padding)") }
                    self = .data([UInt8](bytes))
                    return
                case ("$date", .string(let text)):
                    guard let millis = KVDate.parse(text) else {
                        throw invalid("\(path).$date '\(text)' is not a date of the form 2026-05-01T12:00:00.000Z (UTC, at most 3 fraction digits)")
                    }
                    self = .date(millis)
                    return
                case ("$data", _), ("$date", _):
                    throw invalid("\(path).\(key) must be a string, found \(member.kindNoun)")
                default: break
                }
            }
            var values: [String: KVValue] = [:]
            for (key, member) in object {
                guard !key.hasPrefix("$") else {
                    throw invalid("\(path) has the key '\(key)': dictionary keys may not begin with '$' (reserved for {\"$data\": …} and {\"$date\": …})")
                }
                values[key] = try KVValue(wire: member, path: "\(path).\(key)", depth: depth + 1)
            }
            self = .dictionary(values)
        }
    }

    /// The wire form (see the type's documentation).
    public var wire: JSONValue {
        switch self {
        case .string(let s): .string(s)
        case .integer(let i): .integer(i)
        case .double(let d): .double(d)
        case .bool(let b): .bool(b)
        case .data(let bytes): .object(["$data": .string(Data(bytes).base64EncodedString())])
        case .date(let millis): .object(["$date": .string(KVDate.format(millis))])
        case .array(let items): .array(items.map(\.wire))
        case .dictionary(let values): .object(values.mapValues(\.wire))
        }
    }
}
