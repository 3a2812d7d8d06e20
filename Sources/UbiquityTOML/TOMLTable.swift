/// A table: keys in the order they were written, each with its position. Lookup is O(1), so a
/// hostile file with many keys cannot make duplicate detection quadratic.
public struct TOMLTable: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var keyPosition: TOMLPosition
        public var value: TOMLValue
    }

    public private(set) var entries: [Entry] = []
    private var index: [String: Int] = [:]

    public init() {}

    public subscript(key: String) -> TOMLValue? { entry(key)?.value }

    public func entry(_ key: String) -> Entry? { index[key].map { entries[$0] } }

    /// Appends a key; the caller has checked that it is new.
    mutating func append(_ entry: Entry) {
        precondition(index[entry.key] == nil, "duplicate TOML key appended")
        index[entry.key] = entries.count
        entries.append(entry)
    }

    /// Appends `element` to the array stored under `key` without copying the array.
    mutating func appendToArray(_ key: String, _ element: TOMLValue) {
        guard let i = index[key], case .array(var items) = entries[i].value.kind else {
            preconditionFailure("appendToArray on a key that holds no array")
        }
        entries[i].value.kind = .boolean(false)  // drop the second reference so `items` is unique
        items.append(element)
        entries[i].value.kind = .array(items)
    }
}
