import Glibc

/// The order of names in the name index (``SortedIDs``): `String` order (Unicode canonical
/// ordering; names equal by canonical equivalence are equal), read from the names' UTF-8 bytes.
///
/// Two names whose scalars are all below U+0300 compare as bytes (memcmp, then length): such a
/// string is in NFC (no scalar below the first combining mark is changed by normalization, and
/// none composes with a following one of them), and `String` orders NFC strings by scalar value,
/// which is the order of their UTF-8 bytes. ASCII is the common case. Any other pair is compared as
/// `String`s, exactly as before: `é` (U+00E9) and `e` + U+0301 are equal here, and ordered by id in
/// ``SortedIDs``. The lead byte of U+0300 is 0xCC: a name with no byte at or above it has no
/// scalar at or above U+0300.
enum NameOrder {
    /// Whether every scalar is below U+0300 (no byte is 0xCC or above).
    @inline(__always)
    static func isBelowCombiningMarks(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var highest: UInt8 = 0
        for byte in bytes { highest = Swift.max(highest, byte) }
        return highest < 0xCC
    }

    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    /// - Parameters:
    ///   - bName: `b` as a `String` (a search compares one name with many: its `String` is there).
    ///   - bIsSimple: `isBelowCombiningMarks(b)`.
    @inline(__always)
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, _ bName: String, bIsSimple: Bool) -> Int {
        if bIsSimple && isBelowCombiningMarks(a) {
            let common = Swift.min(a.count, b.count)
            if common > 0 {
                let c = Int(memcmp(a.baseAddress!, b.baseAddress!, common))
                if c != 0 { return c }
            }
            return a.count - b.count
        }
        let aName = String(decoding: a, as: UTF8.self)
        return aName == bName ? 0 : aName < bName ? -1 : 1
    }
}
