import Glibc

/// What `grocery list` sorts names by: the lowercased name's UTF-8 bytes in Unicode's composed
/// form (NFC), compared byte by byte.
///
/// That is the order of the NFC forms' scalars (UTF-8 keeps it), canonically equivalent
/// spellings equal: how `String`'s `<` is defined, computed once per name instead of inside every
/// comparison (`<` on strings that are not ASCII normalizes both at each of the sort's n log n
/// comparisons, most of the name sort's time for 10,000 items). It also avoids an inconsistency
/// of `<` in Swift 6.3: a decomposed spelling that is a prefix, `"e\u{301}clair"`, is not before
/// `"\u{E9}clair "`, although it equals `"\u{E9}clair"`, which is.
struct GroceryNameSortKey: Comparable {
    private let bytes: [UInt8]

    init(_ name: String) {
        let lowered = name.lowercased()
        // ASCII is already NFC. `_nfcCodeUnits` is the standard library's own normalization, the
        // one its comparisons use (public, if underscored); `GroceryItemOrderTests` holds the order
        // to Foundation's NFC.
        bytes = lowered.utf8.allSatisfy { $0 < 0x80 } ? Array(lowered.utf8) : lowered._nfcCodeUnits
    }

    static func < (lhs: Self, rhs: Self) -> Bool { compare(lhs, rhs) < 0 }

    /// Negative, zero or positive as `lhs` sorts before, with or after `rhs`: one comparison of
    /// the bytes where `<` and `==` would take two.
    static func compare(_ lhs: Self, _ rhs: Self) -> Int {
        lhs.bytes.withUnsafeBufferPointer { a in
            rhs.bytes.withUnsafeBufferPointer { b in
                let common = min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return order != 0 ? Int(order) : a.count - b.count
            }
        }
    }
}
