import Glibc
import UbiquityIndex
import UbiquitySystem
import UbiquityProtocol

/// An item named by a client's absolute path, inside a container the peer may use, with the
/// directory that holds it open.
///
/// The one door for client paths in the daemon: the path is bytes (split on `/` only, never on
/// characters), the container is found by comparing bytes, and the rest is opened beneath the
/// container's held root descriptor without following any link (``Beneath``): a link anywhere
/// inside the container answers `item.notFound`, nothing outside is ever reached.
final class ItemLocation {
    let container: ResolvedContainer
    /// The container's root, held by the registry.
    let root: HeldRoot
    /// The item's path below the root.
    let relative: RelativePath
    /// The directory holding the item (owned: closed on deinit).
    let directory: Int32
    let name: String
    /// The item's absolute path, as queries report it.
    let path: String

    private init(container: ResolvedContainer, root: HeldRoot, relative: RelativePath, directory: Int32, path: String) {
        self.container = container
        self.root = root
        self.relative = relative
        self.directory = directory
        self.name = relative.nameText
        self.path = path
    }

    deinit { close(directory) }

    /// Whether the item is a package of its container (a directory whose extension is a package type).
    var isPackage: Bool {
        guard let ext = ContentTypes.pathExtension(name), !ext.isEmpty else { return false }
        return container.descriptor.packageTypes[ext.lowercased()] != nil
    }

    /// Finds `path` for `peer`: the container it is in (which the peer must be allowed to use),
    /// and the directory holding it, opened beneath the held root.
    static func resolve(_ path: String, registry: ContainerRegistry, peer: PeerCredentials) throws -> ItemLocation {
        func invalid(_ why: String) -> VersionError {
            VersionError(.invalidPath, "'\(path)' \(why)", details: ["path": .string(path)])
        }
        let bytes = Array(path.utf8)
        guard bytes.count <= RelativePath.maxPathBytes else { throw invalid("is longer than \(RelativePath.maxPathBytes) bytes") }
        guard bytes.first == PathBytes.separator else { throw invalid("is not an absolute path") }
        let inside = registry.all.compactMap { container in
            PathBytes.relative(bytes, below: Array(container.descriptor.root.utf8)).map { (container, $0) }
        }
        guard let (container, rest) = inside.max(by: { $0.0.descriptor.root.utf8.count < $1.0.descriptor.root.utf8.count }) else {
            throw invalid("is not inside a container served here")
        }
        guard Authorization.mayRead(container, peer: peer) else {
            throw ProtocolError(.containerForbidden,
                                "uid \(peer.uid) may not use container '\(container.descriptor.id)': only its owner, root and members of its group may",
                                details: ["container": .string(container.descriptor.id.rawValue)])
        }
        let relative: RelativePath
        do { relative = try RelativePath(rest) } catch { throw invalid(error.description) }
        let name = relative.nameText
        if SyncEngineFiles.isOwn(name) || ConflictCopyName.parse(name) != nil {
            throw invalid("is a sync engine's file or a conflict version, not an item; ask for the versions of the item it belongs to")
        }
        guard let root = registry.heldRoot(of: container) else {
            throw ProtocolError(.containerUnavailable, "container '\(container.descriptor.id)' cannot be opened (missing, or not a directory)",
                                details: ["container": .string(container.descriptor.id.rawValue)])
        }
        switch Beneath.openParent(of: relative, in: root.fd) {
        case .success(let directory):
            return ItemLocation(container: container, root: root, relative: relative, directory: directory, path: path)
        case .failure(let error):
            throw VersionError(.notFound, "no item at '\(path)': the way to it \(error.description)", details: ["path": .string(path)])
        }
    }
}
