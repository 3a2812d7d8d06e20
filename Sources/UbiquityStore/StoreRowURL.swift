/// A row's address on the wire: `ubiquity-store://<container>/<store>/<table>/<id>`, the form in
/// which `store.changed` names inserted, updated and deleted rows and conflict losers (docs/stores.md).
///
/// Pure: it checks the shape only. The container is kept as written and must be one path segment
/// of dot-separated, non-empty labels of `A-Z a-z 0-9 -` (so never `.` or `..`; the daemon still
/// validates it as a container id and resolves it among its containers); the store and table follow ``Schema/isName(_:)``; the id
/// is 32 hex digits (either case when parsed, lowercase when written).
public struct StoreRowURL: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, without `://`.
    public static let scheme = "ubiquity-store"
    /// The longest container part accepted, in bytes (a container id's limit).
    public static let maxContainerBytes = 255

    public let container: String
    public let store: String
    public let table: String
    public let id: RowID

    /// Nil when a part is not of its form (an empty or too long container, a container with an
    /// empty label or a byte other than `A-Z a-z 0-9 - .`, a store or table that is not a name).
    public init?(container: String, store: String, table: String, id: RowID) {
        guard StoreRowURL.isContainerPart(container), Schema.isName(store), Schema.isName(table) else { return nil }
        self.container = container
        self.store = store
        self.table = table
        self.id = id
    }

    /// Parses the wire form; nil for anything else (another scheme, a missing or extra part, a
    /// query or fragment, a bad name or id).
    public init?(_ text: String) {
        let prefix = StoreRowURL.scheme + "://"
        guard text.hasPrefix(prefix) else { return nil }
        // Split as bytes: a character that combines with the `/` before it would hide it from a
        // String split.
        let parts = Array(text.utf8.dropFirst(prefix.utf8.count)).split(separator: 0x2F, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 4, let id = RowID(parts[3]) else { return nil }
        self.init(container: parts[0], store: parts[1], table: parts[2], id: id)
    }

    /// `ubiquity-store://<container>/<store>/<table>/<id>`, the id in lowercase hex.
    public var description: String { "\(StoreRowURL.scheme)://\(container)/\(store)/\(table)/\(id)" }

    static func isContainerPart(_ text: String) -> Bool {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= maxContainerBytes else { return false }
        return bytes.split(separator: 0x2E, omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D
            }
        }
    }
}
