public import UbiquityJSON

/// What `grocery list` says of an item's sync, when a sync engine shares the container: nothing
/// when the item is here in its current version and another device holds it too. Pure: read from
/// the sync attributes of the item's query result.
public enum GrocerySyncMark: String, Sendable, Hashable {
    /// No other device holds this version yet (just added or changed here, or the others are
    /// offline): losing this machine now would lose it.
    case notUploaded
    /// Another device has a newer version, which the sync engine is fetching.
    case downloading

    /// The query attributes the mark is read from.
    public static let attributes = ["isUploaded", "downloadingStatus"]

    /// The mark for an item whose results carry `isUploaded` and `downloadingStatus`; nil when
    /// there is nothing to say or the engine cannot be asked now (the attributes are absent).
    public static func of(isUploaded: JSONValue?, downloadingStatus: JSONValue?) -> GrocerySyncMark? {
        if case .string(let status)? = downloadingStatus, status != "current" { return .downloading }
        if isUploaded == .bool(false) { return .notUploaded }
        return nil
    }

    /// As the table shows it.
    public var text: String {
        switch self {
        case .notUploaded: "not on other devices yet"
        case .downloading: "updating from another device"
        }
    }
}
