public import UbiquityIndex

/// A container the daemon serves, with who may read it.
public struct ResolvedContainer: Sendable, Hashable {
    public var descriptor: ContainerDescriptor
    public var ownerUID: UInt32
    /// Members of this group may read the container too; nil: owner (and root) only.
    public var groupGID: UInt32?
    public var available: Bool

    public init(descriptor: ContainerDescriptor, ownerUID: UInt32, groupGID: UInt32?, available: Bool) {
        self.descriptor = descriptor
        self.ownerUID = ownerUID
        self.groupGID = groupGID
        self.available = available
    }
}
