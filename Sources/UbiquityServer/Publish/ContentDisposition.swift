/// The `Content-Disposition` header of a published snapshot: `attachment`, an ASCII `filename`
/// any client understands (characters outside printable ASCII, `"`, `\` and `%` become `_`) and
/// the exact name as `filename*` (RFC 6266, RFC 8187: UTF-8, percent-encoded). Pure: nothing of a
/// file's name can end the header, start another or inject a parameter.
enum ContentDisposition {
    static func attachment(named name: String) -> String {
        let fallback = String(decoding: name.utf8.map { byte in
            byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "%")
                ? byte : UInt8(ascii: "_")
        }, as: UTF8.self)
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(percentEncoded(name))"
    }

    /// RFC 8187's `attr-char` kept, every other byte as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            if kept.contains(byte) { out.append(byte) } else { out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]] }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
