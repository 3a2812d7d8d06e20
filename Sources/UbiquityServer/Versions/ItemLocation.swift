import Glibc
import UbiquityIndex
import UbiquityPredicate
import UbiquityProtocol

/// An item named by its absolute path, inside a container the peer may use, with the directory
/// that holds it open. Every directory on the way is opened with `O_NOFOLLOW` relative to the one
/// before, so a symbolic link inside the container can never redirect a versions operation.
final class ItemLocation {
    let container: ResolvedContainer
    /// The directory holding the item (owned: closed on deinit).
    let directory: Int32
    let name: String
    /// The item's absolute path, as queries report it.
    let path: String

    /// At most this many bytes in a path (`PATH_MAX`), and 255 in a component (`NAME_MAX`).
    static let maxPathBytes = 4096
    static let maxComponentBytes = 255

    private init(container: ResolvedContainer, directory: Int32, name: String, path: String) {
        self.container = container
        self.directory = directory
        self.name = name
        self.path = path
    }

    deinit { close(directory) }

    /// Whether the item is a package of its container (a directory whose extension is a package type).
    var isPackage: Bool {
        guard let ext = ContentTypes.pathExtension(name), !ext.isEmpty else { return false }
        return container.descriptor.packageTypes[ext.lowercased()] != nil
    }

    /// Finds `path` for `peer`: the container it is in (which the peer must be allowed to use),
    /// its directory opened component by component.
    static func resolve(_ path: String, registry: ContainerRegistry, peer: PeerCredentials) throws -> ItemLocation {
        func invalid(_ why: String) -> VersionError {
            VersionError(.invalidPath, "'\(path)' \(why)", details: ["path": .string(path)])
        }
        guard path.utf8.count <= maxPathBytes else { throw invalid("is longer than \(maxPathBytes) bytes") }
        guard path.hasPrefix("/") else { throw invalid("is not an absolute path") }
        let inside = registry.all.filter { path.hasPrefix($0.descriptor.root.hasSuffix("/") ? $0.descriptor.root : $0.descriptor.root + "/") }
        guard let container = inside.max(by: { $0.descriptor.root.count < $1.descriptor.root.count }) else {
            throw invalid("is not inside a container served here")
        }
        guard Authorization.mayRead(container, peer: peer) else {
            throw ProtocolError(.containerForbidden,
                                "uid \(peer.uid) may not use container '\(container.descriptor.id)': only its owner, root and members of its group may",
                                details: ["container": .string(container.descriptor.id.rawValue)])
        }
        let root = container.descriptor.root
        let relative = path.dropFirst(root.hasSuffix("/") ? root.count : root.count + 1)
        let components = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !components.isEmpty, components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw invalid("has an empty, '.' or '..' component, or names the container itself")
        }
        if let long = components.first(where: { $0.utf8.count > maxComponentBytes }) {
            throw invalid("has a component longer than \(maxComponentBytes) bytes ('\(long.prefix(32))…')")
        }
        let name = components.last!
        if SyncEngineFiles.isOwn(name) || ConflictCopyName.parse(name) != nil {
            throw invalid("is a sync engine's file or a conflict version, not an item; ask for the versions of the item it belongs to")
        }
        var fd = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw ProtocolError(.containerUnavailable, "container '\(container.descriptor.id)' cannot be opened: \(String(cString: strerror(errno)))",
                                details: ["container": .string(container.descriptor.id.rawValue)])
        }
        for component in components.dropLast() {
            let next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let error = errno
            close(fd)
            guard next >= 0 else {
                throw VersionError(.notFound, "no item at '\(path)': '\(component)' \(error == ELOOP || error == ENOTDIR ? "is not a directory (links are never followed)" : String(cString: strerror(error)))",
                                   details: ["path": .string(path)])
            }
            fd = next
        }
        return ItemLocation(container: container, directory: fd, name: name, path: path)
    }
}
