public import FoundationEssentials
public import UbiquityJSON
import UbiquityPredicate
import UbiquitySystem
import UbiquityProtocol

/// One result of a ``MetadataQuery``, like `NSMetadataItem`: a path and the attributes the query
/// asked for, keyed by canonical name (`kMDItemFSName`, `kMDItemFSSize`...).
///
/// ```swift
/// let item = query.results[0]
/// item.path                                   // "/home/me/.local/share/ubiquity/containers/com.example.grocery/Documents/Item_1"
/// item.value(forAttribute: "NSMetadataItemFSSizeKey")   // .integer(12): any spelling works
/// item.size, item.modificationDate            // typed conveniences (nil when not requested)
/// ```
public struct MetadataItem: Sendable, Hashable {
    /// The item as it came: a one-shot answer's items are still their bytes on the wire, read
    /// into a path and attributes when first asked for.
    private let wire: WireItem

    /// The absolute path of the file, directory or package.
    public var path: String { wire.path }
    /// The path before a rename; set on items of a `didUpdate`'s `changed` only.
    public var oldPath: String? { wire.oldPath }
    /// Attribute values by canonical name, as the daemon sent them (dates are ISO-8601 strings).
    public var attributes: [String: JSONValue] { wire.attributes }

    public init(path: String, oldPath: String? = nil, attributes: [String: JSONValue]) {
        wire = WireItem(path: path, oldPath: oldPath, attributes: attributes)
    }

    init(_ wire: WireItem) {
        self.wire = wire
    }

    /// Whether the item is still its bytes on the wire.
    var keptAsBytes: Bool { wire.keptAsBytes }

    /// Appends the item as one JSON object, `{"attributes":{…},"oldPath":…,"path":…}`: compact,
    /// keys sorted, as the daemon sends it (`ubiq query --json` prints one per line). An item of
    /// an answer is copied as the daemon wrote it, without being read first.
    public func writeJSON(to out: inout [UInt8]) {
        wire.writeJSON(to: &out)
    }

    /// The value of an attribute under any of its spellings (`kMDItemFSName`,
    /// `NSMetadataItemFSNameKey`, `name`); nil when the query did not ask for it.
    /// The path is always known.
    public func value(forAttribute name: String) -> JSONValue? {
        let attribute = Attribute.named(name)
        if let value = wire.attribute(attribute?.canonicalName ?? name) { return value }
        if attribute == .path { return .string(path) }
        return nil
    }

    /// The file name; from the path when `kMDItemFSName` was not requested.
    public var name: String {
        if case .string(let name)? = wire.attribute(Attribute.name.canonicalName) { return name }
        // The last component, found from the end: no array of every component.
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        let name = path[path.utf8.index(after: slash)...]
        // A path ending in "/" (never sent by the daemon) names what is before it, as split did.
        return name.isEmpty ? PathBytes.components(of: path).last ?? path : String(name)
    }

    /// `kMDItemFSSize` in bytes, when requested.
    public var size: Int64? {
        if case .integer(let size)? = wire.attribute(Attribute.size.canonicalName) { return size }
        return nil
    }

    /// `kMDItemFSContentChangeDate`, when requested.
    public var modificationDate: Date? { date(.contentChangeDate) }

    /// `kMDItemFSCreationDate`, when requested.
    public var creationDate: Date? { date(.creationDate) }

    /// A `file://` URL for ``path``.
    public var url: URL { URL(fileURLWithPath: path) }

    private func date(_ attribute: Attribute) -> Date? {
        guard let json = wire.attribute(attribute.canonicalName),
              case .date(let seconds)? = try? Value(json: json, for: attribute) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
