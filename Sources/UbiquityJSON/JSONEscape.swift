/// JSON's one-letter string escapes (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`): the byte
/// each stands for. One table for the readers that decode strings without Foundation
/// (``JSONPlainReader``, the client's `JSONScanner`); `\u` is each reader's own.
public enum JSONEscape {
    /// The byte `\` followed by `letter` stands for; nil for `u` and for any other byte.
    @inlinable
    public static func byte(after letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): letter
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }
}
