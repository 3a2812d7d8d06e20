import Glibc

/// The order of names in the name index (``SortedIDs``): `String` order (Unicode canonical
/// ordering; names equal by canonical equivalence are equal), read from the names' UTF-8 bytes.
///
/// Two ASCII names compare as bytes (memcmp, then length), which is what `String`'s `<` and `==`
/// give for them, without making a `String` of a name held as bytes (``NameColumn``). A name with
/// any byte over 0x7F is compared as a `String`, exactly as before: `é` (U+00E9) and `e` + U+0301
/// are equal here, and ordered by id in ``SortedIDs``.
enum NameOrder {
    /// Whether every byte is ASCII.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var any: UInt8 = 0
        for byte in bytes { any |= byte }
        return any < 0x80
    }

    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    /// - Parameter bIsASCII: `isASCII(b)`, when the caller knows it (a search compares one name
    ///   with many).
    @inline(__always)
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, bIsASCII: Bool) -> Int {
        if bIsASCII && isASCII(a) {
            let common = Swift.min(a.count, b.count)
            if common > 0 {
                let c = Int(memcmp(a.baseAddress!, b.baseAddress!, common))
                if c != 0 { return c }
            }
            return a.count - b.count
        }
        let aName = String(decoding: a, as: UTF8.self), bName = String(decoding: b, as: UTF8.self)
        return aName == bName ? 0 : aName < bName ? -1 : 1
    }
}
