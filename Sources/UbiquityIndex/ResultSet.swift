import CUbiquitySystem
public import UbiquityPredicate

/// A whole result set as the engine hands it out (a gathering's answer, a reset): paths as UTF-8
/// in one buffer and the attribute values in one array, in result order.
///
/// A 100k-item answer is then a handful of allocations instead of a `String` and a dictionary
/// per item, and the server writes it to the wire from these buffers directly. Read as a
/// collection it gives ``ResultItem``s, built on demand, for code that wants them one by one.
public struct ResultSet: Sendable, RandomAccessCollection, Equatable, CustomStringConvertible {
    /// The attributes every item carries a value slot for, in the query's order.
    public let attributes: [Attribute]
    private let identities: [ItemIdentity]
    /// The paths, in any order (a set put together from a ``PathTable`` keeps the table's).
    private let pathBytes: [UInt8]
    /// Where item `i`'s path starts and ends in `pathBytes`, and where its name starts: the
    /// name (``Attribute/name``) is read from the path, never kept twice.
    private let pathStarts: [Int]
    private let pathEnds: [Int]
    private let nameStarts: [Int]
    /// `attributes.count` slots per item; nil: the item has no value for that attribute.
    private let values: [Value?]
    /// Whether names are read from the paths (the name's slots in `values` are then empty): a
    /// set made from the index; a set made of hand-made ``ResultItem``s keeps what they say.
    private let namesFromPaths: Bool

    public var startIndex: Int { 0 }
    public var endIndex: Int { identities.count }

    /// An empty result set.
    public init() {
        self.init(attributes: [], identities: [], pathBytes: [], pathStarts: [], pathEnds: [], nameStarts: [], values: [],
                  namesFromPaths: false)
    }

    private init(attributes: [Attribute], identities: [ItemIdentity], pathBytes: [UInt8], pathStarts: [Int], pathEnds: [Int],
                 nameStarts: [Int], values: [Value?], namesFromPaths: Bool) {
        self.attributes = attributes
        self.identities = identities
        self.pathBytes = pathBytes
        self.pathStarts = pathStarts
        self.pathEnds = pathEnds
        self.nameStarts = nameStarts
        self.values = values
        self.namesFromPaths = namesFromPaths
    }

    /// The given items, in this order (a result set put together from ``ResultItem``s).
    public init(_ items: [ResultItem], attributes: [Attribute]) {
        var bytes: [UInt8] = []
        var starts: [Int] = [], ends: [Int] = [], nameStarts: [Int] = []
        var values: [Value?] = []
        values.reserveCapacity(items.count * attributes.count)
        for item in items {
            starts.append(bytes.count)
            bytes.append(contentsOf: item.path.utf8)
            ends.append(bytes.count)
            nameStarts.append((bytes[starts.last!...].lastIndex(of: UInt8(ascii: "/")) ?? starts.last! - 1) + 1)
            for attribute in attributes { values.append(item.values[attribute]) }
        }
        self.init(attributes: attributes, identities: items.map(\.identity), pathBytes: bytes, pathStarts: starts, pathEnds: ends,
                  nameStarts: nameStarts, values: values, namesFromPaths: false)
    }

    /// The given items, in this order, carrying the attributes any of them has a value for.
    public init(_ items: [ResultItem]) {
        let attributes = Set(items.flatMap(\.values.keys)).sorted { $0.canonicalName < $1.canonicalName }
        self.init(items, attributes: attributes)
    }

    /// The entries at `positions` of `table` (built from `ids`), in that order, with the values
    /// of `attributes` read from the index now. The table's bytes are kept as they are.
    init(_ ids: [ItemID], table: PathTable, positions: [Int], attributes: [Attribute], index: MetadataIndex) {
        var starts: [Int] = [], ends: [Int] = [], nameStarts: [Int] = []
        starts.reserveCapacity(positions.count)
        ends.reserveCapacity(positions.count)
        nameStarts.reserveCapacity(positions.count)
        var identities: [ItemIdentity] = []
        identities.reserveCapacity(positions.count)
        var values: [Value?] = []
        // Names come from the paths: a query that asks for nothing else reads no values at all.
        let others = attributes.contains { $0 != .name }
        values.reserveCapacity(others ? positions.count * attributes.count : 0)
        for position in positions {
            starts.append(table.start(position))
            ends.append(table.ends[position])
            nameStarts.append(table.nameStart(position))
            let id = ids[position]
            identities.append(index.identity(id))
            guard others else { continue }
            let item = IndexedItem(index, id)
            for attribute in attributes { values.append(attribute == .name ? nil : item.value(of: attribute)) }
        }
        self.init(attributes: attributes, identities: identities, pathBytes: table.bytes, pathStarts: starts, pathEnds: ends,
                  nameStarts: nameStarts, values: values, namesFromPaths: true)
    }

    public subscript(position: Int) -> ResultItem {
        var itemValues: [Attribute: Value] = [:]
        for (column, attribute) in attributes.enumerated() {
            if let value = value(position, column: column) { itemValues[attribute] = value }
        }
        return ResultItem(identity: identities[position], path: path(position), values: itemValues)
    }

    /// Item `i`'s identity.
    public func identity(_ i: Int) -> ItemIdentity { identities[i] }

    /// Item `i`'s path.
    public func path(_ i: Int) -> String { String(decoding: pathBytes[pathStarts[i]..<pathEnds[i]], as: UTF8.self) }

    /// The UTF-8 bytes of all the items' paths together.
    public var pathByteCount: Int { zip(pathStarts, pathEnds).reduce(0) { $0 + ($1.1 - $1.0) } }

    /// Calls `body` with the bytes of every item's path together, in no particular order.
    public func withAllPathBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try pathBytes.withUnsafeBufferPointer(body)
    }

    /// Item `i`'s path will be read soon: starts fetching its first bytes into the cache.
    public func prefetchPath(_ i: Int) {
        guard pathStarts.indices.contains(i) else { return }
        let start = pathStarts[i]
        pathBytes.withUnsafeBufferPointer { bytes in
            ubq_prefetch(bytes.baseAddress.map { $0 + start })
            ubq_prefetch(bytes.baseAddress.map { $0 + start + 64 })
        }
    }

    /// Item `i`'s path as UTF-8, without making a `String`.
    public func withPath<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try pathBytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[pathStarts[i]..<pathEnds[i]])) }
    }

    /// Item `i`'s name as UTF-8 when the set reads names from paths (nil otherwise: ask
    /// ``value(_:_:)``), without making a `String`.
    public func withName<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard namesFromPaths, attributes.contains(.name) else { return nil }
        return try pathBytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[nameStarts[i]..<pathEnds[i]])) }
    }

    /// Item `i`'s value of `attribute`; nil when it has none or the set does not carry it.
    public func value(_ i: Int, _ attribute: Attribute) -> Value? {
        attributes.firstIndex(of: attribute).flatMap { value(i, column: $0) }
    }

    private func value(_ i: Int, column: Int) -> Value? {
        if namesFromPaths && attributes[column] == .name {
            return .string(String(decoding: pathBytes[nameStarts[i]..<pathEnds[i]], as: UTF8.self))
        }
        return values[i * attributes.count + column]
    }

    /// Item by item: the same items with the same paths and values, whatever buffers hold them.
    public static func == (a: ResultSet, b: ResultSet) -> Bool {
        a.count == b.count && a.indices.allSatisfy { a[$0] == b[$0] }
    }

    public var description: String { Array(self).description }
}

extension ResultSet: ExpressibleByArrayLiteral {
    public init(arrayLiteral items: ResultItem...) { self.init(items) }
}
