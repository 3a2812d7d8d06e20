// Positions are what make the configuration's errors useful: every value and key keeps one.

/// A place in a TOML text: 1-based line and column; the column counts Unicode scalars.
public struct TOMLPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public static func < (a: TOMLPosition, b: TOMLPosition) -> Bool { (a.line, a.column) < (b.line, b.column) }
    public var description: String { "\(line):\(column)" }
}
