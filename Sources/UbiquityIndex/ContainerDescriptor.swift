/// A container as the index sees it: where it is and which directory extensions are packages.
public struct ContainerDescriptor: Sendable, Hashable {
    public var id: ContainerID
    /// Absolute path of the container directory, without a trailing slash.
    public var root: String
    /// Directory extensions (lowercase, no dot) indexed as ONE package item, mapped to their type
    /// identifier, e.g. `["gro": "com.example.grocery.package"]`.
    public var packageTypes: [String: String]

    public init(id: ContainerID, root: String, packageTypes: [String: String] = [:]) {
        self.id = id
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        // Extensions that differ only by case are one extension here: the configuration refuses
        // them and the saved index's reader too; should any other caller pass both, the smaller
        // type wins, whatever the dictionary's order (never a trap).
        self.packageTypes = Dictionary(packageTypes.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: min)
    }
}
