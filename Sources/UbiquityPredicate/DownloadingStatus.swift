/// The values of `downloadingStatus` (`NSMetadataUbiquitousItemDownloadingStatusKey`), short
/// spellings of Apple's `NSMetadataUbiquitousItemDownloadingStatusNotDownloaded`, `…Downloaded`
/// and `…Current`, as predicates compare them: `downloadingStatus != 'current'`.
public enum DownloadingStatus: String, Sendable, CaseIterable {
    /// Only a placeholder is here (the item was evicted, or not fetched yet).
    case notDownloaded
    /// A local copy exists but a newer version is known elsewhere.
    case downloaded
    /// The local copy is the current version.
    case current
}
