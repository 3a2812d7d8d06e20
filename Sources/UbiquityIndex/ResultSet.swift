import CUbiquitySystem
import Glibc
public import UbiquityPredicate

/// A whole result set as the engine hands it out (a gathering's answer, a reset): each item's
/// path as its directory's path and its name (``PathTable``), and the attribute values in one
/// array, in result order.
///
/// A 100k-item answer is then a handful of allocations instead of a `String` and a dictionary
/// per item, and the server writes it to the wire from these buffers directly: the names one
/// after another in result order, each directory's path once. Read as a collection it gives
/// ``ResultItem``s, built on demand, for code that wants them one by one.
public struct ResultSet: Sendable, RandomAccessCollection, Equatable, CustomStringConvertible {
    /// The attributes every item carries a value slot for, in the query's order.
    public let attributes: [Attribute]
    private let identities: [ItemIdentity]
    /// Directory paths, each with the "/" that ends it, one after another, and where each ends.
    public let directoryBytes: [UInt8]
    public let directoryEnds: [Int]
    /// The items' names (the last components of their paths), in any order, and where item
    /// `i`'s starts and ends.
    public let nameBytes: [UInt8]
    public let nameStarts: [Int]
    public let nameEnds: [Int]
    /// The directory each item is in (a number of the directories), or -1: its path is its name.
    public let itemDirectories: [Int32]
    /// `attributes.count` slots per item; nil: the item has no value for that attribute.
    private let values: [Value?]
    /// Whether names are read from the paths (the name's slots in `values` are then empty): a
    /// set made from the index; a set made of hand-made ``ResultItem``s keeps what they say.
    public let namesFromPaths: Bool

    public var startIndex: Int { 0 }
    public var endIndex: Int { identities.count }

    public subscript(position: Int) -> ResultItem {
        var itemValues: [Attribute: Value] = [:]
        for (column, attribute) in attributes.enumerated() {
            if let value = value(position, column: column) { itemValues[attribute] = value }
        }
        return ResultItem(identity: identities[position], path: path(position), values: itemValues)
    }

    /// Item `i`'s identity.
    public func identity(_ i: Int) -> ItemIdentity { identities[i] }

    private func nameRange(_ i: Int) -> Range<Int> { nameStarts[i]..<nameEnds[i] }

    /// Item `i`'s path.
    public func path(_ i: Int) -> String {
        let directory = Int(itemDirectories[i])
        let name = String(decoding: nameBytes[nameRange(i)], as: UTF8.self)
        guard directory >= 0 else { return name }
        return String(decoding: directoryBytes[(directory == 0 ? 0 : directoryEnds[directory - 1])..<directoryEnds[directory]],
                      as: UTF8.self) + name
    }

    /// Item `i`'s value of `attribute`; nil when it has none or the set does not carry it.
    public func value(_ i: Int, _ attribute: Attribute) -> Value? {
        attributes.firstIndex(of: attribute).flatMap { value(i, column: $0) }
    }

    private func value(_ i: Int, column: Int) -> Value? {
        if namesFromPaths && attributes[column] == .name {
            return .string(String(decoding: nameBytes[nameRange(i)], as: UTF8.self))
        }
        return values[i * attributes.count + column]
    }

    /// Item by item: the same items with the same paths and values, whatever buffers hold them.
    public static func == (a: ResultSet, b: ResultSet) -> Bool {
        a.count == b.count && a.indices.allSatisfy { a[$0] == b[$0] }
    }

    public var description: String { Array(self).description }
}

// Written in an extension so that Swift keeps the memberwise initialiser, which every one of them ends in.
extension ResultSet {
    /// An empty result set.
    public init() {
        self.init(attributes: [], identities: [], directoryBytes: [], directoryEnds: [], nameBytes: [], nameStarts: [],
                  nameEnds: [], itemDirectories: [], values: [], namesFromPaths: false)
    }

    /// The given items, in this order (a result set put together from ``ResultItem``s): each
    /// path split after its last "/".
    public init(_ items: [ResultItem], attributes: [Attribute]) {
        var directoryBytes: [UInt8] = [], directoryEnds: [Int] = []
        var nameBytes: [UInt8] = [], nameStarts: [Int] = [], nameEnds: [Int] = [], itemDirectories: [Int32] = []
        var values: [Value?] = []
        values.reserveCapacity(items.count * attributes.count)
        for item in items {
            let utf8 = Array(item.path.utf8)
            let split = (utf8.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
            if split > 0 {
                directoryBytes.append(contentsOf: utf8[..<split])
                directoryEnds.append(directoryBytes.count)
                itemDirectories.append(Int32(truncatingIfNeeded: directoryEnds.count - 1))
            } else {
                itemDirectories.append(-1)
            }
            nameStarts.append(nameBytes.count)
            nameBytes.append(contentsOf: utf8[split...])
            nameEnds.append(nameBytes.count)
            for attribute in attributes { values.append(item.values[attribute]) }
        }
        self.init(attributes: attributes, identities: items.map(\.identity), directoryBytes: directoryBytes,
                  directoryEnds: directoryEnds, nameBytes: nameBytes, nameStarts: nameStarts, nameEnds: nameEnds,
                  itemDirectories: itemDirectories, values: values, namesFromPaths: false)
    }

    /// The given items, in this order, carrying the attributes any of them has a value for.
    public init(_ items: [ResultItem]) {
        let attributes = Set(items.flatMap(\.values.keys)).sorted { $0.canonicalName < $1.canonicalName }
        self.init(items, attributes: attributes)
    }

    /// The entries at `positions` of `table` (built from `ids`), in that order, with the values
    /// of `attributes` read from the index now. The table's bytes are kept as they are.
    init(_ ids: [ItemID], table: PathTable, positions: [Int], attributes: [Attribute], index: MetadataIndex) {
        var nameStarts: [Int] = [], nameEnds: [Int] = [], itemDirectories: [Int32] = []
        nameStarts.reserveCapacity(positions.count)
        nameEnds.reserveCapacity(positions.count)
        itemDirectories.reserveCapacity(positions.count)
        var identities: [ItemIdentity] = []
        identities.reserveCapacity(positions.count)
        var values: [Value?] = []
        // Names come from the paths: a query that asks for nothing else reads no values at all.
        let others = attributes.contains { $0 != .name }
        values.reserveCapacity(others ? positions.count * attributes.count : 0)
        index.generations.withReader { generations in
            for (k, position) in positions.enumerated() {
                // The ids are scattered over a column of megabytes: each generation read is a
                // cache miss unless asked for ahead (a tenth of a 10k-item answer's time was this
                // one load, waited for item after item).
                if k + PathTable.prefetchDistance < positions.count {
                    ubq_prefetch(generations.address(Int(ids[positions[k + PathTable.prefetchDistance]])))
                }
                nameStarts.append(table.nameStart(position))
                nameEnds.append(table.nameEnds[position])
                itemDirectories.append(table.entryDirectories[position])
                let id = ids[position]
                identities.append(ItemIdentity(id: id, generation: generations[Int(id)]))
                guard others else { continue }
                let item = IndexedItem(index, id)
                for attribute in attributes { values.append(attribute == .name ? nil : item.value(of: attribute)) }
            }
        }
        self.init(attributes: attributes, identities: identities, directoryBytes: table.directoryBytes,
                  directoryEnds: table.directoryEnds, nameBytes: table.names, nameStarts: nameStarts, nameEnds: nameEnds,
                  itemDirectories: itemDirectories, values: values, namesFromPaths: true)
    }
}

extension ResultSet {
    /// A result set from its parts as ``RememberedAnswers`` reads them back (checked there).
    static func parts(attributes: [Attribute], identities: [ItemIdentity], directoryBytes: [UInt8], directoryEnds: [Int],
                      nameBytes: [UInt8], nameStarts: [Int], nameEnds: [Int], itemDirectories: [Int32], values: [Value?],
                      namesFromPaths: Bool) -> ResultSet {
        ResultSet(attributes: attributes, identities: identities, directoryBytes: directoryBytes, directoryEnds: directoryEnds,
                  nameBytes: nameBytes, nameStarts: nameStarts, nameEnds: nameEnds, itemDirectories: itemDirectories,
                  values: values, namesFromPaths: namesFromPaths)
    }

    /// Item `i`'s value slot for the attribute in `column` as it is stored: nil for a name read
    /// from the path (``namesFromPaths``), or an empty set of values (a query asking for the name only).
    func storedValue(_ i: Int, column: Int) -> Value? {
        let slot = i * attributes.count + column
        return slot < values.count ? values[slot] : nil
    }

    /// Whether `other` holds the same items in the same order, with the same paths and values:
    /// a comparison of the buffers, item by item, without building any item.
    ///
    /// A restart compares a remembered answer of 100k items with the same query gathered again,
    /// beside the check's walk: item by item through slices and a `String` per name that was 80 ms
    /// of the walk's two cores (`perf`, 1M entries). Equal directory tables (both from a path table
    /// of the same index, as a rule) are compared once; names as bytes; a name read from both
    /// paths is not compared again as a value.
    func isSameAnswer(as other: ResultSet) -> Bool {
        guard count == other.count, attributes == other.attributes, identities == other.identities else { return false }
        let sameDirectories = itemDirectories == other.itemDirectories && directoryEnds == other.directoryEnds
            && directoryBytes == other.directoryBytes
        let valueColumns = attributes.indices.filter { !(attributes[$0] == .name && namesFromPaths && other.namesFromPaths) }
        for i in 0..<count {
            guard Self.sameBytes(nameBytes, nameRange(i), other.nameBytes, other.nameRange(i)) else { return false }
            if !sameDirectories {
                guard directoryPath(i).elementsEqual(other.directoryPath(i)) else { return false }
            }
            for column in valueColumns where value(i, column: column) != other.value(i, column: column) {
                return false
            }
        }
        return true
    }

    /// Whether `a[ra]` and `b[rb]` hold the same bytes (ranges within their arrays, as every
    /// name range of a result set is).
    private static func sameBytes(_ a: [UInt8], _ ra: Range<Int>, _ b: [UInt8], _ rb: Range<Int>) -> Bool {
        guard ra.count == rb.count else { return false }
        guard !ra.isEmpty else { return true }
        precondition(ra.lowerBound >= 0 && ra.upperBound <= a.count && rb.lowerBound >= 0 && rb.upperBound <= b.count)
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in memcmp(x.baseAddress! + ra.lowerBound, y.baseAddress! + rb.lowerBound, ra.count) == 0 }
        }
    }

    /// Item `i`'s directory path with its final "/", empty when its path is its name.
    private func directoryPath(_ i: Int) -> ArraySlice<UInt8> {
        let directory = Int(itemDirectories[i])
        guard directory >= 0 else { return [] }
        return directoryBytes[(directory == 0 ? 0 : directoryEnds[directory - 1])..<directoryEnds[directory]]
    }
}

extension ResultSet: ExpressibleByArrayLiteral {
    public init(arrayLiteral items: ResultItem...) { self.init(items) }
}
