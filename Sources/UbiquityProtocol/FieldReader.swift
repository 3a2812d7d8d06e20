public import UbiquityJSON

/// Reads typed fields out of a JSON object, turning every absence or type mismatch into a
/// `request.malformed` error that names the field: `field 'live' must be a boolean, found a string`.
public struct FieldReader: Sendable {
    public let object: [String: JSONValue]
    /// Where the object sits, for messages: `request`, `limits`, `results[3]`.
    let context: String

    public init(_ value: JSONValue, context: String) throws(ProtocolError) {
        guard case .object(let object) = value else {
            throw .malformed("\(context) must be a JSON object, found \(value.kindNoun)")
        }
        self.object = object
        self.context = context
    }

    public func has(_ key: String) -> Bool {
        if let value = object[key], value != .null { return true }
        return false
    }

    func mismatch(_ key: String, _ expected: String, _ found: JSONValue) -> ProtocolError {
        .malformed("field '\(key)' must be \(expected), found \(found.kindNoun)", field: key)
    }

    func missing(_ key: String, _ expected: String) -> ProtocolError {
        .malformed("field '\(key)' is missing (expected \(expected))", field: key)
    }

    public func optionalString(_ key: String) throws(ProtocolError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard case .string(let s) = value else { throw mismatch(key, "a string", value) }
        return s
    }

    public func string(_ key: String) throws(ProtocolError) -> String {
        guard let s = try optionalString(key) else { throw missing(key, "a string") }
        return s
    }

    public func optionalInt(_ key: String) throws(ProtocolError) -> Int? {
        guard let value = object[key], value != .null else { return nil }
        switch value {
        case .integer(let i): return Int(i)
        case .double(let d) where d == d.rounded() && abs(d) < 9e15: return Int(d)
        default: throw mismatch(key, "a whole number", value)
        }
    }

    public func int(_ key: String) throws(ProtocolError) -> Int {
        guard let i = try optionalInt(key) else { throw missing(key, "a whole number") }
        return i
    }

    public func optionalDouble(_ key: String) throws(ProtocolError) -> Double? {
        guard let value = object[key], value != .null else { return nil }
        switch value {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        default: throw mismatch(key, "a number", value)
        }
    }

    public func optionalBool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard case .bool(let b) = value else { throw mismatch(key, "a boolean (true or false)", value) }
        return b
    }

    public func bool(_ key: String) throws(ProtocolError) -> Bool {
        guard let b = try optionalBool(key) else { throw missing(key, "a boolean") }
        return b
    }

    public func optionalArray(_ key: String) throws(ProtocolError) -> [JSONValue]? {
        guard let value = object[key], value != .null else { return nil }
        guard case .array(let a) = value else { throw mismatch(key, "an array", value) }
        return a
    }

    public func array(_ key: String) throws(ProtocolError) -> [JSONValue] {
        guard let a = try optionalArray(key) else { throw missing(key, "an array") }
        return a
    }

    /// An array of strings; a single string is accepted as a one-element array when `orSingle`.
    public func optionalStrings(_ key: String, orSingle: Bool = false) throws(ProtocolError) -> [String]? {
        guard let value = object[key], value != .null else { return nil }
        if orSingle, case .string(let s) = value { return [s] }
        guard case .array(let items) = value else {
            throw mismatch(key, orSingle ? "a string or an array of strings" : "an array of strings", value)
        }
        var strings: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else {
                throw .malformed("field '\(key)[\(i)]' must be a string, found \(item.kindNoun)", field: key)
            }
            strings.append(s)
        }
        return strings
    }

    public func optionalObject(_ key: String) throws(ProtocolError) -> [String: JSONValue]? {
        guard let value = object[key], value != .null else { return nil }
        guard case .object(let o) = value else { throw mismatch(key, "an object", value) }
        return o
    }

    public func value(_ key: String) throws(ProtocolError) -> JSONValue {
        guard let value = object[key] else { throw missing(key, "a value") }
        return value
    }

    /// Elements of an array field decoded one by one, errors naming the element (`results[3]`).
    public func list<T>(_ key: String, _ decode: (JSONValue, String) throws(ProtocolError) -> T) throws(ProtocolError) -> [T] {
        var out: [T] = []
        for (i, element) in try array(key).enumerated() { out.append(try decode(element, "\(key)[\(i)]")) }
        return out
    }
}
