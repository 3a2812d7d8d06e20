/// How far bytes are ASCII, read eight at a time: the start that byte-by-byte checks of names
/// (``NameOrder/isAllStable(_:)``, the index's UTF-8 check) can pass over without a look at each
/// byte. Most names are ASCII, or start so.
public enum ASCIIPrefix {
    /// A multiple of eight: the whole words of `bytes` from its start in which every byte is
    /// below 0x80 (a shorter tail is left to the caller).
    @inlinable
    public static func wholeWords(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var i = 0
        while i + 8 <= bytes.count {
            if UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        return i
    }
}
