public import UbiquityIndex
import UbiquityProtocol
import Glibc

/// One container named in the configuration (`[[containers]]`).
///
/// A declared container directly inside a root inherits that root's package types, owner and
/// group; its own settings win.
public struct ContainerDeclaration: Sendable, Hashable {
    public var id: ContainerID
    /// Absolute, normalised; nil: `<first root>/<id>`.
    public var path: String?
    /// nil: the directory's owner (or the root's `owner`).
    public var owner: UInt32?
    /// nil: no group access (or the root's `group`).
    public var group: UInt32?
    /// Extension (lowercase, no dot) → type identifier, added to the root's.
    public var packageTypes: [String: String]
    /// Create the directory and its `Documents/` when missing.
    public var create: Bool

    public init(
        id: ContainerID, path: String? = nil, owner: UInt32? = nil, group: UInt32? = nil,
        packageTypes: [String: String] = [:], create: Bool = true
    ) {
        self.id = id
        self.path = path
        self.owner = owner
        self.group = group
        self.packageTypes = packageTypes
        self.create = create
    }
}
