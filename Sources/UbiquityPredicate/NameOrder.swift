/// The order of names in the index's name index, and of strings wherever a predicate or a sort
/// compares them: Unicode canonical ordering, the order of the strings' NFC forms (strings equal by
/// canonical equivalence are equal, as `String`'s `==` has them), read from their UTF-8 bytes.
/// Inlinable: the name index compares with it in its hottest loops.
///
/// Two names whose scalars are all below U+0300 compare as bytes (``ByteOrder``): such a
/// string is in NFC (no scalar below the first combining mark is changed by normalization, and
/// none composes with a following one of them), and canonical order orders NFC strings by scalar value,
/// which is the order of their UTF-8 bytes. ASCII is the common case. Any other pair is compared by
/// the UTF-8 bytes of its NFC form (``compareCanonically(_:_:)``): `é` (U+00E9) and `e` + U+0301
/// are equal here, and ordered by id in ``SortedIDs``. The lead byte of U+0300 is 0xCC: a name
/// with no byte at or above it has no scalar at or above U+0300.
///
/// Why not `String`'s `<`, which this was: in Swift 6.3 it is not an order for a decomposed name
/// that is a canonical prefix of a precomposed one (`"e\u{301}"` and `"\u{E9}5"`: neither is `<`
/// the other, nor `==`), so a sorted bucket holding both spellings could be misordered and a
/// lookup in it miss; nor does it always follow the NFC forms (`"\u{345}"` before
/// `"\u{323}\u{345}"`).
public enum NameOrder {
    /// Whether every scalar is below U+0300 (no byte is 0xCC or above).
    @inlinable
    public static func isBelowCombiningMarks(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var highest: UInt8 = 0
        for byte in bytes { highest = Swift.max(highest, byte) }
        return highest < 0xCC
    }

    /// Whether every scalar is stable (``isStable(_:)``), which holds for every name below U+0300
    /// and for names of the plain Greek, Cyrillic, kana, Hangul, CJK and emoji scalars too. Two
    /// such names compare as their bytes: their first differing scalars and the ones after them
    /// are stable, so ``orderAtFirstDifference(_:_:)`` decides, by scalar value, which is the
    /// order of the bytes (a name that ends first sorts first, as a shorter byte string does).
    /// The name index sorts a set of such names by their bytes (`NameIndex.sortedByName`).
    ///
    /// One pass over the bytes: ASCII eight bytes at a time, ASCII and two-byte scalars below
    /// U+0300 (lead byte below 0xCC) passed over without decoding, the others decoded in place.
    @inlinable
    public static func isAllStable(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        var i = ASCIIPrefix.wholeWords(of: bytes)
        while i < count {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            if lead < 0xCC {
                i += 2
                continue
            }
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            guard i + length <= count else { return false }
            var value = UInt32(lead) & (0x7F >> UInt32(length))
            for k in 1..<length { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
            guard isStable(value) else { return false }
            i += length
        }
        return i == count
    }

    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    /// - Parameters:
    ///   - bIsSimple: `isBelowCombiningMarks(b)`.
    @inlinable
    public static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, bIsSimple: Bool) -> Int {
        if bIsSimple && isBelowCombiningMarks(a) { return ByteOrder.compare(a, b) }
        return orderAtFirstDifference(a, b) ?? compareCanonically(a, b)
    }

    /// ``compare(_:_:bIsSimple:)`` for two names neither of which was read before: decided at
    /// their first difference (``orderAtFirstDifference(_:_:)``, which for two names below U+0300
    /// is their bytes' order), so no name is read past it, and NFC forms are made only when that
    /// cannot decide. Long names that share a short prefix (60–200 bytes of Greek, Cyrillic and
    /// CJK) compare after a few bytes, where telling whether each is below U+0300 read it whole.
    @inlinable
    public static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        orderAtFirstDifference(a, b) ?? compareCanonically(a, b)
    }

    /// Negative, zero or positive as the NFC form of `a` sorts before, with or after `b`'s, byte by
    /// byte: Unicode canonical ordering, what `String`'s `<` and `==` are meant to be, as a total order.
    /// The NFC forms come from the standard library's own normalization (the one `String`
    /// compares with), so canonically equal names are equal here exactly when they are `==`.
    /// Only pairs ``orderAtFirstDifference(_:_:)`` cannot decide come here (combining marks and
    /// the like near the first difference): rare, and allowed to allocate.
    @inlinable
    static func compareCanonically(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let x = nfcBytes(a), y = nfcBytes(b)
        let common = Swift.min(x.count, y.count)
        for i in 0..<common where x[i] != y[i] { return x[i] < y[i] ? -1 : 1 }
        return x.count - y.count
    }

    /// The UTF-8 bytes of the NFC form of the name `bytes`. `_withNFCCodeUnits` is the standard
    /// library's public (underscored) entry to the normalizer `String` itself compares with;
    /// Foundation's would add a dependency to the index for a rare case, and tables of our own a
    /// second normalizer that could disagree with `==`.
    @inlinable
    static func nfcBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var normalized: [UInt8] = []
        normalized.reserveCapacity(bytes.count)
        String(decoding: bytes, as: UTF8.self)._withNFCCodeUnits { normalized.append($0) }
        return normalized
    }

    /// The order of two names known by their first bytes (each whole, or a prefix of it), when
    /// those decide: ``orderAtFirstDifference(_:_:)`` at a difference followed by at least 8 bytes
    /// of each prefix that is not whole, since it reads no further than the scalar after the
    /// differing one (4 bytes each at most). Nil when the prefixes do not decide: read whole names.
    /// (A compressed name is decoded only as far as this needs: ``NameColumn/Reader/compare(_:_:)``.)
    @inlinable
    public static func orderOfPrefixes(_ a: UnsafeBufferPointer<UInt8>, isWhole aIsWhole: Bool,
                                _ b: UnsafeBufferPointer<UInt8>, isWhole bIsWhole: Bool) -> Int? {
        let common = Swift.min(a.count, b.count)
        var d = 0
        while d < common && a[d] == b[d] { d += 1 }
        if !aIsWhole && d + 8 > a.count { return nil }
        if !bIsWhole && d + 8 > b.count { return nil }
        return orderAtDifference(a, b, d)
    }

    /// The order of `a` and `b` read at their first differing scalar, when it and the scalar after
    /// it in each are stable (``isStable(_:)``); nil when the NFC forms must decide
    /// (``compareCanonically(_:_:)``).
    ///
    /// Why this is canonical order: the bytes before the difference are the same in both, and
    /// a stable scalar neither joins the one before it nor the one after it, nor is reordered or
    /// replaced by normalization; so both strings normalize to the same prefix followed by their
    /// differing scalars, as they are, and the first differing scalars decide (a string that ends
    /// there sorts first). Scalars order as their UTF-8 bytes do.
    @inlinable
    static func orderAtFirstDifference(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int? {
        let common = Swift.min(a.count, b.count)
        var d = 0
        while d < common && a[d] == b[d] { d += 1 }
        return orderAtDifference(a, b, d)
    }

    /// ``orderAtFirstDifference(_:_:)`` given `d`, the first byte where `a` and `b` differ (or
    /// where one of them ends).
    @inlinable
    static func orderAtDifference(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, _ d: Int) -> Int? {
        if d == a.count && d == b.count { return 0 }
        // The common case without decoding: ASCII (or the end) at the difference in each, and
        // after it a byte below 0xCC (a scalar below U+0300) or the end: all stable, and the bytes decide.
        let aEnds = d == a.count, bEnds = d == b.count
        if (aEnds || a[d] < 0x80) && (bEnds || b[d] < 0x80)
            && (d + 1 >= a.count || a[d + 1] < 0xCC) && (d + 1 >= b.count || b[d + 1] < 0xCC) {
            if aEnds { return -1 }
            if bEnds { return 1 }
            return a[d] < b[d] ? -1 : 1
        }
        // Back to the start of the scalar the difference is in (the bytes before it are shared;
        // valid UTF-8 gives both strings a scalar boundary at the same places up to there).
        var s = d
        while s > 0 && (s < a.count ? a[s] : b[s]) & 0xC0 == 0x80 { s -= 1 }
        let x = scalar(a, at: s), y = scalar(b, at: s)
        guard x.map({ isStable($0.value) }) ?? true, y.map({ isStable($0.value) }) ?? true else { return nil }
        if let x, let next = scalar(a, at: s + x.length), !isStable(next.value) { return nil }
        if let y, let next = scalar(b, at: s + y.length), !isStable(next.value) { return nil }
        guard let x else { return -1 }
        guard let y else { return 1 }
        return x.value < y.value ? -1 : 1
    }

    /// A scalar no normalization changes or moves, and that no neighbour composes with: canonical
    /// combining class 0, NFC_QC=Yes, never the second of a canonical composition, in ranges
    /// chosen for being plain: everything below U+0300 (ASCII, Latin-1, Latin Extended-A/B, IPA),
    /// the basic Greek and Cyrillic letters, Hiragana and Katakana letters, Hangul syllables, CJK
    /// Unified Ideographs and the emoji blocks. Anything else is compared by NFC forms.
    @inlinable
    static func isStable(_ v: UInt32) -> Bool {
        v < 0x300 || (0x391...0x3A9).contains(v) || (0x3B1...0x3C9).contains(v) || (0x410...0x44F).contains(v)
            || (0x3041...0x3096).contains(v) || (0x30A1...0x30FA).contains(v) || (0x4E00...0x9FFF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0x1F300...0x1FAFF).contains(v)
    }

    /// The scalar starting at byte `i` (a scalar boundary) and its length in bytes, or nil at the
    /// end; the bytes are valid UTF-8 (a `String`'s).
    @inlinable
    static func scalar(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (value: UInt32, length: Int)? {
        guard i < bytes.count else { return nil }
        let lead = UInt32(bytes[i])
        if lead < 0x80 { return (lead, 1) }
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        guard i + length <= bytes.count else { return nil }
        var value = lead & (0x7F >> UInt32(length))
        for k in 1..<length { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
        return (value, length)
    }
}
