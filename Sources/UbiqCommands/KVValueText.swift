import FoundationEssentials
import UbiquityKeyValue
import UbiquityJSON
import UbiquityProtocol

/// How `ubiq kv` shows and reads values: a string as itself, anything else as its JSON wire form
/// (`{"$data":…}`, `{"$date":…}` for data and dates).
enum KVValueText {
    /// The types `ubiq kv set --type` accepts.
    static let types = ["string", "integer", "double", "bool", "data", "date", "json"]

    static func show(_ value: KVValue) -> String {
        if case .string(let s) = value { return s }
        return JSONLine.encode(value.wire)
    }

    /// Reads `text` as a value of `type`; the error says what was expected.
    static func parse(_ text: String, as type: String) throws -> KVValue {
        func fail(_ expected: String) -> KVValueTextError { KVValueTextError("'\(text)' is not \(expected)") }
        switch type {
        case "string": return .string(text)
        case "integer":
            guard let i = Int64(text) else { throw fail("a whole number between -9223372036854775808 and 9223372036854775807") }
            return .integer(i)
        case "double":
            guard let d = Double(text), d.isFinite else { throw fail("a finite number") }
            return .double(d)
        case "bool":
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw fail("true or false")
            }
        case "data":
            guard let bytes = Data(base64Encoded: text) else { throw fail("base64 (RFC 4648, with padding)") }
            return .data([UInt8](bytes))
        case "date":
            guard let millis = KVDate.parse(text) else { throw fail("a UTC date like 2026-05-01T12:00:00Z") }
            return .date(millis)
        default:
            let wire: JSONValue
            do { wire = try JSONLine.decode(Array(text.utf8)) } catch { throw fail("JSON (\(error.message.hasPrefix("the request ") ? String(error.message.dropFirst("the request ".count)) : error.message))") }
            return try KVValue(wire: wire)
        }
    }
}
