public import UbiquityJSON

/// The answer of `item.evict` and `item.download`: where the item stands once the request is
/// taken (the same words as its `downloadingStatus` and `isDownloading` attributes).
public struct ItemSyncState: OperationResult, Hashable {
    public var path: String
    /// `notDownloaded`, `downloaded` or `current`.
    public var downloadingStatus: String
    public var isDownloading: Bool

    public init(path: String, downloadingStatus: String, isDownloading: Bool) {
        self.path = path
        self.downloadingStatus = downloadingStatus
        self.isDownloading = isDownloading
    }

    public var json: JSONValue {
        .object(["path": .string(path), "downloadingStatus": .string(downloadingStatus), "isDownloading": .bool(isDownloading)])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "item sync state")
        path = try reader.string("path")
        downloadingStatus = try reader.string("downloadingStatus")
        isDownloading = try reader.bool("isDownloading")
    }
}
