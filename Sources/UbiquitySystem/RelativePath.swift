/// A path below a directory, as validated bytes: at least one component, none empty, `.`, `..`
/// or containing NUL, each at most ``maxComponentBytes`` and the whole at most ``maxPathBytes``.
///
/// It never starts with `/` (it is relative by construction), so with ``Beneath`` it can only
/// name something below the directory it is opened in.
public struct RelativePath: Sendable, Hashable {
    /// `PATH_MAX` and `NAME_MAX`.
    public static let maxPathBytes = 4096
    public static let maxComponentBytes = 255

    /// The components, in order; never empty.
    public let components: [[UInt8]]

    /// Validates `bytes` (`a/b/c`, no leading or trailing `/`).
    public init(_ bytes: some Collection<UInt8>) throws(PathError) {
        guard bytes.count <= Self.maxPathBytes else { throw PathError(.pathTooLong) }
        var parts: [[UInt8]] = []
        for part in PathBytes.split(bytes) {
            guard !part.isEmpty else { throw PathError(.emptyComponent) }
            guard !part.contains(0) else { throw PathError(.nulByte) }
            guard part.count <= Self.maxComponentBytes else { throw PathError(.componentTooLong) }
            guard !(part.count == 1 && part.first == UInt8(ascii: ".")) && !(part.count == 2 && part.allSatisfy { $0 == UInt8(ascii: ".") }) else {
                throw PathError(.dotComponent)
            }
            parts.append(Array(part))
        }
        components = parts
    }

    /// Validates a path given as text (its UTF-8 bytes).
    public init(_ text: String) throws(PathError) {
        try self.init(Array(text.utf8))
    }

    private init(components: [[UInt8]]) { self.components = components }

    /// The last component.
    public var name: [UInt8] { components[components.count - 1] }

    /// The last component as text (exact: the bytes came from a `String` or are decoded lossily
    /// only when they were not UTF-8).
    public var nameText: String { String(decoding: name, as: UTF8.self) }

    /// Every component but the last (empty for a single name).
    public var parentComponents: ArraySlice<[UInt8]> { components.dropLast() }

    /// `self` followed by `other`'s components.
    public func appending(_ other: RelativePath) -> RelativePath {
        RelativePath(components: components + other.components)
    }

    /// The path as bytes, components joined by `/`.
    public var bytes: [UInt8] { Array(components.joined(separator: [PathBytes.separator])) }
}
