import UbiquitySystem
public import UbiquityIndex
import Glibc

/// A container the daemon serves, with who may read it.
public struct ResolvedContainer: Sendable, Hashable {
    public var descriptor: ContainerDescriptor
    public var ownerUID: UInt32
    /// Members of this group may read the container too; nil: owner (and root) only.
    public var groupGID: UInt32?
    /// False when the directory is missing or unusable; the daemon looks again on SIGHUP.
    public var available: Bool

    public init(descriptor: ContainerDescriptor, ownerUID: UInt32, groupGID: UInt32?, available: Bool) {
        self.descriptor = descriptor
        self.ownerUID = ownerUID
        self.groupGID = groupGID
        self.available = available
    }
}

extension DaemonConfiguration {
    /// Turns roots and declarations into the containers served now. Does I/O: lists each root,
    /// stats directories, and creates declared containers with `create = true` (and their
    /// `Documents/`) when missing. Never throws: whatever is wrong becomes a problem sentence and
    /// the daemon serves the rest.
    ///
    /// - Declared containers come first, in file order; an unusable one is kept with
    ///   `available = false`, so the default container does not change when it is missing.
    /// - Root sub-directories named by a valid id follow, sorted by id. A declared id wins over a
    ///   discovered one; the same id in two roots is a problem and the first root wins. Hidden
    ///   entries are skipped silently; other non-id directories and symbolic links become notes.
    /// - The owner is the configured one, else the directory's owner (`lstat`); the group is only
    ///   the configured one.
    /// - Created directories get mode 0700, or 0750 when a group is configured (less the umask);
    ///   missing parents get 0755 when running as root and 0700 otherwise. As root, created
    ///   directories are handed to the configured owner and group.
    /// - Parameter creating: false for `--check-config`, which must change nothing: a missing
    ///   container with `create = true` is then a note (run as root, creating it would leave a
    ///   directory owned by root that the service's user cannot open).
    public func resolveContainers(creating: Bool = true) -> ContainerResolution {
        var resolution = ContainerResolution()
        var claimed: [ContainerID: String] = [:]  // id → path of the container that has it

        for declaration in containers {
            guard let path = path(of: declaration) else { continue }
            let packages = declaration.packageTypes
            var available = true
            if declaration.create && !creating && !Self.somethingIsAt(path) {
                resolution.notes.append("container \(declaration.id): \(path) does not exist yet; the daemon creates it when it starts (create = true)")
                claimed[declaration.id] = path
                resolution.containers.append(ResolvedContainer(
                    descriptor: ContainerDescriptor(id: declaration.id, root: path, packageTypes: packages),
                    ownerUID: declaration.owner ?? 0, groupGID: declaration.group, available: false))
                continue
            }
            if declaration.create {
                if let problem = Self.createContainer(at: path, owner: declaration.owner, group: declaration.group) {
                    resolution.problems.append("container \(declaration.id): \(problem)")
                    available = false
                }
            }
            var owner = declaration.owner
            switch Self.directoryOwner(path, followSymlinks: true) {
            case .success(let uid):
                owner = owner ?? uid
            case .failure(let problem):
                if available {  // a failed creation was already reported
                    resolution.problems.append("container \(declaration.id): \(path) \(problem.message)"
                        + (declaration.create ? "" : " (create = false)"))
                }
                available = false
            }
            claimed[declaration.id] = path
            resolution.containers.append(ResolvedContainer(
                descriptor: ContainerDescriptor(id: declaration.id, root: path, packageTypes: packages),
                // Unknown owner of a missing directory: root only, until a reload finds it.
                ownerUID: owner ?? 0, groupGID: declaration.group, available: available))
        }

        var discovered: [ResolvedContainer] = []
        for root in roots {
            let names: [String]
            switch Self.listDirectory(root.path) {
            case .success(let list): names = list
            case .failure(let problem):
                let madeAtStart = !creating && !Self.somethingIsAt(root.path)
                    && containers.contains { $0.create && path(of: $0)?.hasPrefix(root.path + "/") == true }
                if madeAtStart {
                    resolution.notes.append("root \(root.path) does not exist yet; the daemon creates it with its containers when it starts")
                } else {
                    resolution.problems.append("root \(root.path) \(problem.message); its containers appear after it exists and the daemon is reloaded (SIGHUP)")
                }
                continue
            }
            for name in names.sorted() where !name.hasPrefix(".") {
                let path = Self.join(root.path, name)
                let id: ContainerID
                do { id = try ContainerID(name) } catch {
                    if case .success = Self.directoryOwner(path, followSymlinks: false) {
                        resolution.notes.append("ignored \(path): not a container id (\(error.reason))")
                    }
                    continue
                }
                let owner: UInt32
                switch Self.directoryOwner(path, followSymlinks: false) {
                case .success(let uid): owner = uid
                case .failure(let problem):
                    if problem.message == Self.isSymlink {
                        resolution.notes.append("ignored \(path): a symbolic link; a container must be a real directory")
                    }
                    continue  // plain files in a root are not containers
                }
                if let first = claimed[id] {
                    if first != path {
                        let declared = containers.contains { $0.id == id }
                        if declared {
                            resolution.notes.append("ignored \(path): container \(id) is declared with path \(first)")
                        } else {
                            resolution.problems.append("container \(id) is in two roots: serving \(first), ignoring \(path)")
                        }
                    }
                    continue
                }
                claimed[id] = path
                discovered.append(ResolvedContainer(
                    descriptor: ContainerDescriptor(id: id, root: path, packageTypes: root.packageTypes),
                    ownerUID: root.owner ?? owner, groupGID: root.group, available: true))
            }
        }
        resolution.containers += discovered.sorted { $0.descriptor.id < $1.descriptor.id }
        return resolution
    }

    // MARK: - File system helpers (not a hot path: once at start and on SIGHUP)

    static let isSymlink = "is a symbolic link"

    /// The owner uid of a directory, or why it is not a usable directory.
    static func directoryOwner(_ path: String, followSymlinks: Bool) -> Result<UInt32, FileProblem> {
        var info = stat()
        let status = followSymlinks ? stat(path, &info) : lstat(path, &info)
        guard status == 0 else {
            return .failure(FileProblem(errno == ENOENT ? "does not exist" : "cannot be examined: \(describeErrno())"))
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .success(info.st_uid)
        case S_IFLNK: return .failure(FileProblem(isSymlink))
        default: return .failure(FileProblem("is not a directory"))
        }
    }

    /// The names in a directory, without `.` and `..`.
    static func listDirectory(_ path: String) -> Result<[String], FileProblem> {
        guard let dir = opendir(path) else {
            return .failure(FileProblem(errno == ENOENT ? "does not exist" : "cannot be listed: \(describeErrno())"))
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names)
    }

    /// Creates a container directory and its `Documents/` when missing; nil on success, else why not.
    ///
    /// The configured path's parents are the administrator's and may be links; the container and
    /// `Documents/` are made and handed over through descriptors (``ContainerDirectory``).
    static func createContainer(at path: String, owner: UInt32?, group: UInt32?) -> String? {
        let privateMode: mode_t = group == nil ? 0o700 : 0o750
        let parentMode: mode_t = geteuid() == 0 ? 0o755 : 0o700
        var parent = ""
        let parts = PathBytes.components(of: path)
        guard let name = parts.last else { return "\(path) names no directory" }
        for part in parts.dropLast() {
            parent += "/" + part
            if let problem = makeDirectory(parent, mode: parentMode) { return problem }
        }
        let parentFD: Int32
        switch ContainerDirectory.open(parent.isEmpty ? "/" : parent) {
        case .success(let fd): parentFD = fd
        case .failure(let problem): return problem.message
        }
        defer { close(parentFD) }
        if case .failure(let problem) = ContainerDirectory.ensure(name, in: parentFD, parentPath: parent, mode: privateMode,
                                                                   owner: owner, group: group) {
            return problem.message
        }
        let containerFD: Int32
        switch ContainerDirectory.open(path) {
        case .success(let fd): containerFD = fd
        case .failure(let problem): return problem.message
        }
        defer { close(containerFD) }
        if case .failure(let problem) = ContainerDirectory.ensure("Documents", in: containerFD, parentPath: path,
                                                                   mode: privateMode, owner: owner, group: group) {
            return problem.message
        }
        return nil
    }

    /// mkdir that accepts an existing directory; nil on success.
    private static func makeDirectory(_ path: String, mode: mode_t) -> String? {
        if mkdir(path, mode) == 0 { return nil }
        let error = errno
        if error == EEXIST {
            var info = stat()
            if stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR { return nil }
            return "\(path) exists and is not a directory"
        }
        return "cannot create \(path): \(describeErrno(error))"
    }

    static func describeErrno(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// Whether anything (a symlink included, never followed) is at `path`.
    static func somethingIsAt(_ path: String) -> Bool {
        faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0
    }
}
