/// A file name as a dictionary or set key: equal to another only byte for byte, as the kernel
/// compares names.
///
/// Why not `String`: its `==` and its hash follow Unicode canonical equivalence, so a precomposed
/// `é` (`C3 A9`) and an `e` followed by a combining acute accent (`65 CC 81`) are one string, yet
/// on Linux they are two names, two entries side by side in one directory. Keyed by `String`, the
/// second entry took the first one's place: the watcher lost a directory's watch when its
/// canonically equal sibling moved away, and read a change in one from the other. Hashing a
/// non-ASCII `String` also normalizes it first; hashing its bytes does not (a crawl of 100k long
/// non-ASCII names spent about 4 ms of CPU hashing its directories' names that way).
///
/// ```swift
/// let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
/// composed == decomposed                               // true
/// ExactName(composed) == ExactName(decomposed)         // false
/// ```
public struct ExactName: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name, its bytes as the file system gave them.
    public let string: String

    public init(_ string: String) { self.string = string }
    public init(stringLiteral value: String) { self.init(value) }

    public var description: String { string }

    public static func == (a: ExactName, b: ExactName) -> Bool { sameBytes(a.string, b.string) }

    public func hash(into hasher: inout Hasher) {
        var name = string
        name.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        // An end no UTF-8 byte can be: without it the paths `ab/c` and `a/bc`, as arrays of
        // names, feed the hasher the same bytes, and anyone who can make directories could fill a
        // dictionary of paths with keys that all collide.
        hasher.combine(0xFF as UInt8)
    }

    /// A path's components as keys.
    public static func path(_ components: [String]) -> [ExactName] { components.map { ExactName($0) } }

    /// Byte order, for a stable order of keys that may be canonically equal.
    public static func < (a: ExactName, b: ExactName) -> Bool { a.string.utf8.lexicographicallyPrecedes(b.string.utf8) }

    /// Paths in byte order, name by name.
    public static func precedes(_ a: [ExactName], _ b: [ExactName]) -> Bool { a.lexicographicallyPrecedes(b) }

    /// Whether two strings hold the same UTF-8 bytes (not merely canonically equal text).
    public static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }
}

extension Array where Element == ExactName {
    /// The components as strings again.
    public var strings: [String] { map(\.string) }
}
