import Glibc

/// Where a version's entry is: the directory holding it (opened without following links from the
/// item's directory) and its name there. A copy inside a package lives beside the file it is a
/// version of, so the same directory holds what it replaces.
final class VersionPlace {
    let directory: Int32
    let name: String
    /// The name of what this version replaces, in the same directory.
    let replaces: String

    private init(directory: Int32, name: String, replaces: String) {
        self.directory = directory
        self.name = name
        self.replaces = replaces
    }

    deinit { close(directory) }

    /// `relativePath` (a version id or the item's own name) below the item's directory.
    static func open(_ relativePath: String, replaces: String, in location: ItemLocation) throws -> VersionPlace {
        var components = relativePath.split(separator: "/").map(String.init)
        let name = components.removeLast()
        let replacedName = String(replaces.split(separator: "/").last ?? Substring(replaces))
        var fd = fcntl(location.directory, F_DUPFD_CLOEXEC, 0)
        for component in components where fd >= 0 {
            let next = DirectoryEntries.open(component, in: fd)
            close(fd)
            fd = next
        }
        guard fd >= 0 else {
            throw VersionError(.fileSystem, "cannot open the directory of '\(relativePath)': \(String(cString: strerror(errno)))")
        }
        return VersionPlace(directory: fd, name: name, replaces: replacedName)
    }
}
