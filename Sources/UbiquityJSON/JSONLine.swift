public import CUbiquityBytes
import FoundationEssentials

/// One JSON object per line: the protocol's framing (docs/protocol.md).
///
/// Encoding is done here rather than by `JSONEncoder` so that output is compact, keys are
/// sorted (stable for tests and diffs), `/` is not escaped, and no Foundation boxing happens on
/// the daemon's hot path. Decoding validates UTF-8 first so the error can name the byte.
public enum JSONLine {
    /// The value as one line of JSON text, without the trailing `\n`.
    public static func encode(_ value: JSONValue) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        write(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the value and `\n` as UTF-8 bytes.
    public static func encodeLine(_ value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(value, to: &bytes)
        bytes.append(0x0A)
        return bytes
    }

    // Bytes, not String appends: a 100k-item answer spent most of its time in
    // String.UnicodeScalarView.append before this wrote UTF-8 directly.
    /// Appends the value as UTF-8 bytes (no `\n`): many lines into one buffer.
    public static func write(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: b ? "true".utf8 : "false".utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d):
            if d.isFinite {
                // Whole doubles print as 1.0 in Swift; JSON readers accept both, keep it.
                out.append(contentsOf: d.description.utf8)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        case .string(let s): writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            if object.count == 1, let (key, member) = object.first {
                writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(member, to: &out)
            } else {
                for (i, (key, member)) in object.sorted(by: { $0.key < $1.key }).enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    writeString(key, to: &out)
                    out.append(UInt8(ascii: ":"))
                    write(member, to: &out)
                }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Escapes `"`, `\\`, control characters and U+2028/U+2029 (which some JavaScript readers
    /// treat as line ends); copies runs of every other byte at once.
    public static func writeString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { writeString(utf8: $0, to: &out) }
    }

    /// Moves `index` past the bytes that need no look (any but those below 0x20, `"`, `\\` and
    /// 0xE2, the first byte of U+2028 and U+2029), or'ing the high bit into `seen` when any of
    /// them is not ASCII (its high bits then say so), and stops at the first that may need one:
    /// the fast path through a string's text, sixteen bytes at a time (`ubq_plain_run`; eight-byte
    /// words took a fifth of `ubiq query`'s reading), for the readers and for the writers
    /// (``mayNeedEscaping(_:)``, ``writeEscaped(utf8:to:)``) alike.
    @inlinable @inline(__always)
    public static func skipPlainWords(_ bytes: UnsafeBufferPointer<UInt8>, from index: inout Int, seen: inout UInt64) {
        guard let base = bytes.baseAddress, index < bytes.count else { return }
        var high: UInt8 = 0
        index += ubq_plain_run(base + index, bytes.count - index, &high)
        seen |= UInt64(high)
    }

    /// Whether ``writeString(utf8:to:)`` might escape any of these bytes (a `"`, `\\`, a control
    /// character or U+2028/U+2029 among them; the test is conservative): when not, the text can
    /// be copied between quotes as it is.
    public static func mayNeedEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0, seen: UInt64 = 0
        skipPlainWords(utf8, from: &index, seen: &seen)
        return index < utf8.count
    }

    /// ``writeString(_:to:)`` for text already in UTF-8 (valid UTF-8: it comes from a `String`).
    public static func writeString(utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        writeEscaped(utf8: utf8, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// A string's text without its quotes, escaped as ``writeString(utf8:to:)`` escapes it: a
    /// path written in parts (a directory's path, then a name) is escaped part by part.
    public static func writeEscaped(utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        var index = 0
        while index < utf8.count {
            // Past the bytes that need no look at once (nearly all of a path).
            var seen: UInt64 = 0
            skipPlainWords(utf8, from: &index, seen: &seen)
            guard index < utf8.count else { break }
            let byte = utf8[index]      // one that may need escaping
            let escape: String?
            switch byte {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x00..<0x20:
                let hex = String(byte, radix: 16)
                escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            case 0xE2 where index + 2 < utf8.count && utf8[index + 1] == 0x80
                && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
                escape = utf8[index + 2] == 0xA8 ? "\\u2028" : "\\u2029"
            default: escape = nil
            }
            guard let escape else {
                index += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            out.append(contentsOf: escape.utf8)
            index += byte == 0xE2 ? 3 : 1
            runStart = index
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
    }

    /// Parses one line (without its `\n`; a trailing `\r` is tolerated). The protocol's reader is
    /// `decode`, which makes the problem a `request.malformed` error.
    ///
    /// - Throws: the first invalid UTF-8 byte, or what the JSON parser found wrong.
    public static func parse<Bytes: Collection>(_ bytes: Bytes) throws(JSONTextError) -> JSONValue where Bytes.Element == UInt8 {
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
            throw JSONTextError("the request is not valid UTF-8 (first invalid byte at offset \(offset))")
        }
        let text = Array(bytes)
        if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            throw JSONTextError("the request is empty: send one JSON object per line")
        }
        // JSON by the letter first: Foundation's decoder is lenient where the clients' reader is not.
        try JSONGrammar.validate(text)
        // Nearly every request holds only what reads the same everywhere; the rest is Foundation's.
        if let value = JSONPlainReader.read(text) { return value }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(text))
        } catch {
            throw JSONTextError("the request is not valid JSON: \(describe(error))")
        }
    }

    /// A JSON parser error in one sentence, without Foundation's coding-path noise.
    private static func describe(_ error: any Error) -> String {
        // FoundationEssentials' decoder gives no underlying error, only this sentence.
        if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
        return "\(error)"
    }
}
