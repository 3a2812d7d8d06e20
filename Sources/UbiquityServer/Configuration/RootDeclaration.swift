import UbiquityIndex
import UbiquityProtocol
import Glibc

/// A directory whose container-id sub-directories are served (`[[roots]]`).
public struct RootDeclaration: Sendable, Hashable {
    /// Absolute, normalised.
    public var path: String
    /// Extension (lowercase, no dot) → type identifier, for every container found here.
    public var packageTypes: [String: String]
    /// Owner of every container found here; nil: each directory's own owner.
    public var owner: UInt32?
    /// Group that may read every container found here; nil: no group access.
    public var group: UInt32?

    public init(path: String, packageTypes: [String: String] = [:], owner: UInt32? = nil, group: UInt32? = nil) {
        self.path = path
        self.packageTypes = packageTypes
        self.owner = owner
        self.group = group
    }
}
