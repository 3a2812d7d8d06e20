public import UbiquityPredicate

/// One result item on the wire: `{"path": ..., "oldPath": ..., "attributes": {"kMDItemFSName": ...}}`.
/// Attribute keys are canonical names; dates are ISO-8601 strings with microseconds.
public struct WireItem: Sendable, Hashable {
    public var path: String
    /// The path before a rename, on `changed` items only.
    public var oldPath: String?
    public var attributes: [String: JSONValue]

    public init(path: String, oldPath: String? = nil, attributes: [String: JSONValue]) {
        self.path = path
        self.oldPath = oldPath
        self.attributes = attributes
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = ["path": .string(path), "attributes": .object(attributes)]
        if let oldPath { object["oldPath"] = .string(oldPath) }
        return .object(object)
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
        path = try reader.string("path")
        oldPath = try reader.optionalString("oldPath")
        attributes = try reader.optionalObject("attributes") ?? [:]
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
