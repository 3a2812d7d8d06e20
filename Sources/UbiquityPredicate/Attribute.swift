// The one table of metadata attribute names (the attribute table of docs/predicates.md). Every other module resolves names here.

/// A metadata attribute, identified by its canonical name.
///
/// Attributes are values from one registry (``Attribute/all``); each has one canonical
/// spelling (`kMDItemFSName`) and accepts every Apple spelling and short alias
/// (`NSMetadataItemFSNameKey`, `name`). Use ``Attribute/named(_:)`` to resolve a spelling.
public struct Attribute: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Dense index into ``Attribute/all``; stable for the life of the process, cheap to switch on.
    public let id: UInt8

    public var canonicalName: String { Attribute.table[Int(id)].canonical }
    public var aliases: [String] { Attribute.table[Int(id)].aliases }
    public var type: AttributeType { Attribute.table[Int(id)].type }
    public var summary: String { Attribute.table[Int(id)].summary }
    public var isMultiValued: Bool { type == .stringList }
    public var description: String { canonicalName }

    public static func < (lhs: Attribute, rhs: Attribute) -> Bool { lhs.id < rhs.id }

    private init(id: UInt8) { self.id = id }

    // MARK: - The registry

    struct Entry {
        let canonical: String
        let aliases: [String]
        let type: AttributeType
        let summary: String
    }

    /// Order matters only for ``id``; keep the named constants below in step.
    static let table: [Entry] = [
        Entry(canonical: "kMDItemFSName", aliases: ["NSMetadataItemFSNameKey", "name"],
              type: .string, summary: "file name"),
        Entry(canonical: "kMDItemDisplayName", aliases: ["NSMetadataItemDisplayNameKey", "displayName"],
              type: .string, summary: "name without extension"),
        Entry(canonical: "kMDItemPath", aliases: ["NSMetadataItemPathKey", "path"],
              type: .string, summary: "absolute path"),
        Entry(canonical: "kMDItemURL", aliases: ["NSMetadataItemURLKey", "url"],
              type: .string, summary: "file URL"),
        Entry(canonical: "kMDItemFSSize", aliases: ["NSMetadataItemFSSizeKey", "size"],
              type: .integer, summary: "size in bytes (a package: the sum of its contents)"),
        Entry(canonical: "kMDItemFSCreationDate", aliases: ["NSMetadataItemFSCreationDateKey", "created"],
              type: .date, summary: "birth time (fallback: change time)"),
        Entry(canonical: "kMDItemFSContentChangeDate",
              aliases: ["NSMetadataItemFSContentChangeDateKey", "modified"],
              type: .date, summary: "modification time (a package: newest inside)"),
        Entry(canonical: "kMDItemContentType", aliases: ["NSMetadataItemContentTypeKey", "contentType"],
              type: .string, summary: "uniform type identifier, e.g. public.plain-text"),
        Entry(canonical: "kMDItemContentTypeTree",
              aliases: ["NSMetadataItemContentTypeTreeKey", "contentTypeTree"],
              type: .stringList, summary: "type conformance chain, e.g. public.png, public.image, public.data"),
        Entry(canonical: "isDirectory", aliases: [],
              type: .bool, summary: "the item is a directory"),
        Entry(canonical: "isPackage", aliases: [],
              type: .bool, summary: "the item is a declared package"),
        Entry(canonical: "kMDItemFSOwnerUserID", aliases: ["uid"],
              type: .integer, summary: "owner user id"),
        Entry(canonical: "kMDItemFSOwnerGroupID", aliases: ["gid"],
              type: .integer, summary: "owner group id"),
        Entry(canonical: "kMDItemFSInvisible", aliases: ["isHidden"],
              type: .bool, summary: "dotfile"),
        Entry(canonical: "kMDItemUserTags", aliases: ["tags"],
              type: .stringList, summary: "user.xdg.tags extended attribute (comma-separated)"),
        Entry(canonical: "NSMetadataUbiquitousItemContainerIdentifier", aliases: ["container"],
              type: .string, summary: "container id"),
        Entry(canonical: "scope", aliases: [],
              type: .string, summary: "documents or data"),
        Entry(canonical: "NSMetadataUbiquitousItemHasUnresolvedConflictsKey",
              aliases: ["hasUnresolvedConflicts"],
              type: .bool, summary: "conflict versions exist"),
        Entry(canonical: "NSMetadataUbiquitousItemIsDownloadedKey", aliases: ["isDownloaded"],
              type: .bool, summary: "a local copy exists (without a sync engine: true)"),
        Entry(canonical: "NSMetadataUbiquitousItemIsUploadedKey", aliases: ["isUploaded"],
              type: .bool, summary: "another device holds the current version (without a sync engine: false)"),
        Entry(canonical: "NSMetadataUbiquitousItemDownloadingStatusKey", aliases: ["downloadingStatus"],
              type: .string, summary: "notDownloaded, downloaded or current (without a sync engine: current)"),
        Entry(canonical: "NSMetadataUbiquitousItemIsDownloadingKey", aliases: ["isDownloading"],
              type: .bool, summary: "the sync engine is fetching the item (without a sync engine: false)"),
        Entry(canonical: "NSMetadataUbiquitousItemPercentDownloadedKey", aliases: ["percentDownloaded"],
              type: .integer, summary: "percent of the current version held here, 0-100 (without a sync engine: 100)"),
        Entry(canonical: "NSMetadataUbiquitousItemIsUploadingKey", aliases: ["isUploading"],
              type: .bool, summary: "another device is fetching the item from here (without a sync engine: false)"),
        Entry(canonical: "NSMetadataUbiquitousItemPercentUploadedKey", aliases: ["percentUploaded"],
              type: .integer, summary: "percent of the current version another device holds, 0-100 (without a sync engine: 0)"),
        Entry(canonical: "uploadedToAllDevices", aliases: [],
              type: .bool, summary: "every device sharing the container holds the current version (without a sync engine: false)"),
        Entry(canonical: "NSMetadataUbiquitousItemDownloadingErrorKey", aliases: ["downloadingError"],
              type: .string, summary: "why fetching the item failed (absent when it did not)"),
        Entry(canonical: "NSMetadataUbiquitousItemUploadingErrorKey", aliases: ["uploadingError"],
              type: .string, summary: "why sending the item failed (absent when it did not)"),
        Entry(canonical: "currentVersionDevices", aliases: [],
              type: .stringList, summary: "the other devices that hold the current version (without a sync engine: absent)"),
    ]

    public static let name = Attribute(id: 0)
    public static let displayName = Attribute(id: 1)
    public static let path = Attribute(id: 2)
    public static let url = Attribute(id: 3)
    public static let size = Attribute(id: 4)
    public static let creationDate = Attribute(id: 5)
    public static let contentChangeDate = Attribute(id: 6)
    public static let contentType = Attribute(id: 7)
    public static let contentTypeTree = Attribute(id: 8)
    public static let isDirectory = Attribute(id: 9)
    public static let isPackage = Attribute(id: 10)
    public static let ownerUserID = Attribute(id: 11)
    public static let ownerGroupID = Attribute(id: 12)
    public static let isHidden = Attribute(id: 13)
    public static let userTags = Attribute(id: 14)
    public static let container = Attribute(id: 15)
    public static let scope = Attribute(id: 16)
    public static let hasUnresolvedConflicts = Attribute(id: 17)
    public static let isDownloaded = Attribute(id: 18)
    public static let isUploaded = Attribute(id: 19)
    public static let downloadingStatus = Attribute(id: 20)
    public static let isDownloading = Attribute(id: 21)
    public static let percentDownloaded = Attribute(id: 22)
    public static let isUploading = Attribute(id: 23)
    public static let percentUploaded = Attribute(id: 24)
    public static let uploadedToAllDevices = Attribute(id: 25)
    public static let downloadingError = Attribute(id: 26)
    public static let uploadingError = Attribute(id: 27)
    public static let currentVersionDevices = Attribute(id: 28)

    /// Every attribute, in registry order.
    public static let all: [Attribute] = (0..<table.count).map { Attribute(id: UInt8($0)) }

    /// Every accepted spelling → attribute. Names are case-sensitive, as in NSPredicate.
    private static let bySpelling: [String: Attribute] = {
        var map: [String: Attribute] = [:]
        for attribute in all {
            map[attribute.canonicalName] = attribute
            for alias in attribute.aliases { map[alias] = attribute }
        }
        return map
    }()

    /// Resolves any accepted spelling (canonical, Apple key, short alias) to its attribute.
    public static func named(_ spelling: String) -> Attribute? { bySpelling[spelling] }

    /// The accepted spelling closest to `spelling`, for "did you mean" hints; `nil` when nothing is close.
    public static func suggestion(for spelling: String) -> String? {
        NameSuggestion.nearest(to: spelling, in: bySpelling.keys.sorted())
    }
}
