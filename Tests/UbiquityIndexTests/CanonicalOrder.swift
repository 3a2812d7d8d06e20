import Foundation

/// Unicode canonical ordering worked out independently of ``NameOrder``: the names' NFC forms as
/// Foundation normalizes them, compared byte by byte (the order of their scalars).
enum CanonicalOrder {
    /// -1, 0 or 1 as `a` sorts before, with or after `b`.
    static func compare(_ a: String, _ b: String) -> Int {
        let x = Array(a.precomposedStringWithCanonicalMapping.utf8), y = Array(b.precomposedStringWithCanonicalMapping.utf8)
        return x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1
    }

    /// Whether `String` calls the two equal (canonical equivalence). Its `<` is not used as the
    /// reference: in Swift 6.3 it is not an order everywhere (`"e\u{301}"` and `"\u{E9}5"`: neither
    /// is `<` the other, nor `==`) and does not always follow the NFC forms (`"\u{345}"` sorts
    /// before `"\u{323}\u{345}"`, whose NFC form's first byte is smaller).
    static func stringsEqual(_ a: String, _ b: String) -> Bool { a == b }
}
