public import FoundationEssentials
public import UbiquityKit

/// One version of an item in conflict, as `grocery conflicts` numbers them: 1 is the current
/// version, the others follow oldest first. In package mode a version is a version of the whole
/// package, and ``name`` is this item's name in it (nil: the item is not in that version).
public struct GroceryItemVersion: Sendable, Hashable {
    public let number: Int
    public let version: FileVersion
    public let name: String?

    public init(number: Int, version: FileVersion, name: String?) {
        self.number = number
        self.version = version
        self.name = name
    }

    public var isCurrent: Bool { !version.isConflict }
    public var modified: Date { version.modificationDate }
    /// The saving device as the sync engine names it (`this device` for the current version).
    public var device: String? { version.localizedNameOfSavingComputer }
}
