public import UbiquityPredicate

/// An item's sync attributes (`downloadingStatus`, `isUploaded`, …: docs/predicates.md, "Sync
/// status") as one value, so that an item frozen before a change keeps the values it had.
/// nil fields are unknown (the sync engine is configured but not reached) or absent (no error).
public struct SyncAttributeValues: Sendable, Hashable {
    public var downloadingStatus: DownloadingStatus?
    public var isDownloading: Bool?
    public var percentDownloaded: Int64?
    public var isUploaded: Bool?
    public var isUploading: Bool?
    public var percentUploaded: Int64?
    public var uploadedToAllDevices: Bool?
    public var downloadingError: String?
    public var uploadingError: String?
    public var currentVersionDevices: [String]?

    public init(downloadingStatus: DownloadingStatus? = nil, isDownloading: Bool? = nil, percentDownloaded: Int64? = nil,
                isUploaded: Bool? = nil, isUploading: Bool? = nil, percentUploaded: Int64? = nil,
                uploadedToAllDevices: Bool? = nil, downloadingError: String? = nil, uploadingError: String? = nil,
                currentVersionDevices: [String]? = nil) {
        self.downloadingStatus = downloadingStatus
        self.isDownloading = isDownloading
        self.percentDownloaded = percentDownloaded
        self.isUploaded = isUploaded
        self.isUploading = isUploading
        self.percentUploaded = percentUploaded
        self.uploadedToAllDevices = uploadedToAllDevices
        self.downloadingError = downloadingError
        self.uploadingError = uploadingError
        self.currentVersionDevices = currentVersionDevices
    }

    /// A single machine (no sync engine): the copy here is current, no other device is known to
    /// hold it.
    public static let singleMachine = SyncAttributeValues(
        downloadingStatus: .current, isDownloading: false, percentDownloaded: 100, isUploaded: false, isUploading: false,
        percentUploaded: 0, uploadedToAllDevices: false)

    /// A sync engine is configured but its facts are not known (not reached, or not read yet).
    public static let unknown = SyncAttributeValues()

    /// The value of one sync attribute; nil for any other attribute, or when unknown.
    public func value(of attribute: Attribute) -> Value? {
        switch attribute {
        case .isDownloaded: return downloadingStatus.map { .bool($0 != .notDownloaded) }
        case .downloadingStatus: return downloadingStatus.map { .string($0.rawValue) }
        case .isDownloading: return isDownloading.map(Value.bool)
        case .percentDownloaded: return percentDownloaded.map(Value.integer)
        case .isUploaded: return isUploaded.map(Value.bool)
        case .isUploading: return isUploading.map(Value.bool)
        case .percentUploaded: return percentUploaded.map(Value.integer)
        case .uploadedToAllDevices: return uploadedToAllDevices.map(Value.bool)
        case .downloadingError: return downloadingError.map(Value.string)
        case .uploadingError: return uploadingError.map(Value.string)
        case .currentVersionDevices: return currentVersionDevices.map { .list($0.map(Value.string)) }
        default: return nil
        }
    }
}
