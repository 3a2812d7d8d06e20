/// Paths as the kernel sees them: bytes, with `/` (0x2F) as the only separator.
///
/// Every split of a path in this project goes through here (`scripts/check-byte-paths` fails
/// on `String` splitting), because a `Character` may swallow a following `/`.
public enum PathBytes {
    /// The separator byte.
    public static let separator = UInt8(ascii: "/")

    /// The components of `path` between separators, empty ones included (`"/a//b"` is
    /// `["", "a", "", "b"]`).
    public static func split(_ path: some Collection<UInt8>) -> [ArraySlice<UInt8>] {
        Array(path).split(separator: separator, omittingEmptySubsequences: false)
    }

    /// The non-empty components of `path` as strings (a path from a configuration or the
    /// environment, already valid UTF-8): `"/var//lib/"` is `["var", "lib"]`.
    public static func components(of path: String) -> [String] {
        Array(path.utf8).split(separator: separator).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The last component of `path` (after the last separator byte); the whole path when it
    /// has none.
    public static func lastComponent(of path: String) -> String {
        let bytes = Array(path.utf8)
        guard let slash = bytes.lastIndex(of: separator) else { return path }
        return String(decoding: bytes[(slash + 1)...], as: UTF8.self)
    }

    /// Everything before the last separator byte (`"/a/b"` → `"/a"`, `"/a"` → `""`); the empty
    /// string when there is none.
    public static func directory(of path: String) -> String {
        let bytes = Array(path.utf8)
        guard let slash = bytes.lastIndex(of: separator) else { return "" }
        return String(decoding: bytes[..<slash], as: UTF8.self)
    }

    /// The part of `path` below `directory`, when `path` is `directory` + `/` + something, compared
    /// byte by byte (never by characters: `"/c\u{301}"` is not below `"/c"`); nil otherwise.
    public static func relative(_ path: some Collection<UInt8>, below directory: some Collection<UInt8>) -> ArraySlice<UInt8>? {
        var base = Array(directory)
        while base.count > 1, base.last == separator { base.removeLast() }
        let bytes = Array(path)
        let prefix = base == [separator] ? base : base + [separator]
        guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return nil }
        return bytes[prefix.count...]
    }
}
