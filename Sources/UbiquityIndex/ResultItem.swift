public import UbiquityPredicate

/// One result as a client sees it: identity, path, and the requested attribute values.
public struct ResultItem: Sendable, Hashable {
    public let identity: ItemIdentity
    public let path: String
    /// The path before a rename, on `changed` items.
    public let oldPath: String?
    public let values: [Attribute: Value]

    init(identity: ItemIdentity, path: String, oldPath: String? = nil, values: [Attribute: Value]) {
        self.identity = identity
        self.path = path
        self.oldPath = oldPath
        self.values = values
    }

    /// - Parameter path: The item's path when the caller has it already (a sort key holds it).
    init<F: ItemFacts>(_ facts: F, identity: ItemIdentity, attributes: [Attribute], oldPath: String? = nil, path: String? = nil) {
        var values: [Attribute: Value] = [:]
        for attribute in attributes { values[attribute] = facts.value(of: attribute) }
        self.init(identity: identity, path: path ?? facts.path, oldPath: oldPath, values: values)
    }

    /// Path order, as results are sorted: byte by byte (UTF-8), like ``PathTable``.
    public static func inPathOrder(_ a: ResultItem, _ b: ResultItem) -> Bool {
        ByteOrder.precedes(a.path, b.path)
    }
}
