public import UbiquityJSON
import UbiquityPredicate

/// One result item on the wire: `{"path": ..., "oldPath": ..., "attributes": {"kMDItemFSName": ...}}`.
/// Attribute keys are canonical names; dates are ISO-8601 strings with microseconds.
///
/// An item read from a daemon's line may still be its bytes on the wire (``EncodedItems``): its
/// fields are read from them when first asked for, and ``writeJSON(to:)`` copies them as they are.
public struct WireItem: Sendable, Hashable {
    /// What an item holds.
    struct Fields: Sendable, Hashable {
        var path: String
        var oldPath: String?
        var attributes: [String: JSONValue]
    }

    /// Fields behind a reference: an item is two words, whichever it holds (an answer's
    /// 100k items are an array of them, and then another of `MetadataItem`s).
    private final class Boxed: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private enum Storage: Sendable {
        case fields(Boxed)
        /// The `index`-th item of a list kept as bytes.
        case encoded(EncodedItems, index: Int)
    }

    private var storage: Storage

    public init(path: String, oldPath: String? = nil, attributes: [String: JSONValue]) {
        self.init(Fields(path: path, oldPath: oldPath, attributes: attributes))
    }

    init(_ fields: Fields) {
        storage = .fields(Boxed(fields))
    }

    init(_ items: EncodedItems, index: Int) {
        storage = .encoded(items, index: index)
    }

    /// Whether the item is still its bytes on the wire.
    public var keptAsBytes: Bool {
        if case .encoded = storage { return true }
        return false
    }

    var fields: Fields { withFields { copy $0 } }

    /// The same item holding its own fields: no longer a place in the bytes of the line it
    /// came in, which it would keep as long as it lives.
    public func standalone() -> WireItem {
        keptAsBytes ? WireItem(fields) : self
    }

    /// `body` run on the fields where they are, without copying them out (nor retaining what
    /// holds them): `grocery list` reads five per item, from four threads.
    private func withFields<T>(_ body: (borrowing Fields) -> T) -> T {
        switch storage {
        case .fields(let boxed): body(boxed.fields)
        case .encoded(let items, let index): items.withFields(index, body)
        }
    }

    public var path: String {
        get { withFields { $0.path } }
        set {
            var fields = fields
            fields.path = newValue
            storage = .fields(Boxed(fields))
        }
    }

    /// The path before a rename, on `changed` items only.
    public var oldPath: String? {
        get { withFields { $0.oldPath } }
        set {
            var fields = fields
            fields.oldPath = newValue
            storage = .fields(Boxed(fields))
        }
    }

    public var attributes: [String: JSONValue] {
        get { withFields { $0.attributes } }
        set {
            var fields = fields
            fields.attributes = newValue
            storage = .fields(Boxed(fields))
        }
    }

    /// One attribute's value by canonical name, without copying the dictionary out.
    public func attribute(_ canonicalName: String) -> JSONValue? {
        withFields { $0.attributes[canonicalName] }
    }

    public static func == (a: WireItem, b: WireItem) -> Bool {
        if case .encoded(let x, let i) = a.storage, case .encoded(let y, let j) = b.storage, x === y, i == j { return true }
        return a.fields == b.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
    }

    public var json: JSONValue {
        let fields = fields
        var object: [String: JSONValue] = ["path": .string(fields.path), "attributes": .object(fields.attributes)]
        if let oldPath = fields.oldPath { object["oldPath"] = .string(oldPath) }
        return .object(object)
    }

    /// Appends the item as `{"attributes":…,"oldPath":…,"path":…}`, the bytes ``JSONLine`` writes
    /// for ``json``: an item still in its bytes on the wire is those bytes.
    public func writeJSON(to out: inout [UInt8]) {
        switch storage {
        case .encoded(let items, let index): items.write(index, to: &out)
        case .fields(let boxed):
            WireItem.writeJSON(path: boxed.fields.path, oldPath: boxed.fields.oldPath, attributes: boxed.fields.attributes, to: &out)
        }
    }

    /// Appends `{"attributes":…,"oldPath":…,"path":…}`: the bytes ``JSONLine`` writes for
    /// ``json``, without building that dictionary first (`ubiq query --json` writes 100k of them).
    public static func writeJSON(path: String, oldPath: String?, attributes: [String: JSONValue], to out: inout [UInt8]) {
        out.append(contentsOf: #"{"attributes":"#.utf8)
        JSONLine.write(.object(attributes), to: &out)
        if let oldPath {
            out.append(contentsOf: #","oldPath":"#.utf8)
            JSONLine.writeString(oldPath, to: &out)
        }
        out.append(contentsOf: #","path":"#.utf8)
        JSONLine.writeString(path, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    public init(json: JSONValue, context: String = "item") throws(ProtocolError) {
        let reader = try FieldReader(json, context: context)
        self.init(Fields(path: try reader.string("path"), oldPath: try reader.optionalString("oldPath"),
                         attributes: try reader.optionalObject("attributes") ?? [:]))
    }

    /// The keys of events under which lists of items come.
    static let listKeys: Set<String> = ["results", "added", "changed", "removed"]

    /// - Parameter scanned: Lists already read into items, by key (``JSONScanner``).
    static func list(_ reader: FieldReader, _ key: String, scanned: [String: [WireItem]] = [:]) throws(ProtocolError) -> [WireItem] {
        guard reader.has(key) else { return [] }
        if let items = scanned[key] { return items }
        return try reader.list(key) { (value, context) throws(ProtocolError) in try WireItem(json: value, context: context) }
    }
}
