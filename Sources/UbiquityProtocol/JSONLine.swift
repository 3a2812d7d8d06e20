import Foundation
public import UbiquityPredicate

/// One JSON object per line: the protocol's framing (SPEC §8).
///
/// Encoding is done here rather than by `JSONEncoder` so that output is compact, keys are
/// sorted (stable for tests and diffs), `/` is not escaped, and no Foundation boxing happens on
/// the daemon's hot path. Decoding validates UTF-8 first so the error can name the byte.
public enum JSONLine {
    /// The value as one line of JSON text, without the trailing `\n`.
    public static func encode(_ value: JSONValue) -> String {
        var out = ""
        out.reserveCapacity(128)
        write(value, to: &out)
        return out
    }

    /// Appends the value and `\n` as UTF-8 bytes.
    public static func encodeLine(_ value: JSONValue) -> [UInt8] {
        var bytes = Array(encode(value).utf8)
        bytes.append(0x0A)
        return bytes
    }

    private static func write(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .double(let d):
            if d.isFinite {
                // Whole doubles print as 1.0 in Swift; JSON readers accept both, keep it.
                out += "\(d)"
            } else {
                out += "null"
            }
        case .string(let s): writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (i, key) in object.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                writeString(key, to: &out)
                out += ":"
                write(object[key]!, to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// Decodes one line (without its `\n`; a trailing `\r` is tolerated).
    ///
    /// - Throws: `request.malformed` naming the first invalid UTF-8 byte, or what the JSON
    ///   parser found wrong.
    public static func decode<Bytes: Collection>(_ bytes: Bytes) throws(ProtocolError) -> JSONValue where Bytes.Element == UInt8 {
        var offset = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var valid = true
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: break loop
            case .error:
                valid = false
                break loop
            }
        }
        guard valid else {
            throw .malformed("the request is not valid UTF-8 (first invalid byte at offset \(offset))")
        }
        let data = Data(bytes)
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            throw .malformed("the request is empty: send one JSON object per line")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .malformed("the request is not valid JSON: \(describe(error))")
        }
    }

    /// A JSON parser error in one sentence, without Foundation's coding-path noise.
    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            if let underlying = context.underlyingError as? NSError,
               let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String {
                return detail
            }
            return context.debugDescription
        }
        return "\(error)"
    }
}
