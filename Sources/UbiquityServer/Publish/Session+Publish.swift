import Glibc
import NIOPosix
import UbiquityProtocol
import UbiquitySystem

/// What the publish operations of a connection share (each is answered in its file in
/// `Handlers/`): the store, the expiry rules, and the one content read of the daemon on a peer's
/// behalf — which the peer's own rights must allow, judged on the very inode that is copied.
extension Session {
    /// The publish store, or `publish.disabled` naming the setting to turn on.
    func publishStore() throws -> PublishStore {
        guard let store = context.publishing else {
            throw PublishError(.disabled, "publishing is off: this daemon has no HTTP listener; set 'listen' in the [publish] section of its configuration (e.g. listen = \"127.0.0.1:8080\")")
        }
        return store
    }

    /// The expiry date of a publish asked at `now`: the default when none is given; refused when
    /// not in the future or past `max_expiry_s`.
    static func expiryDate(_ expiry: ItemPublish.Expiry?, now: Double, settings: PublishSettings) throws(PublishError) -> Double {
        let maximum = Double(settings.maxExpiry.components.seconds)
        let seconds: Double = switch expiry {
        case nil: Double(settings.defaultExpiry.components.seconds)
        case .after(let seconds)?: Double(seconds)
        case .at(let date)?: date - now
        }
        guard seconds > 0 else {
            throw PublishError(.invalidExpiry, "the expiry must be in the future (a positive number of seconds, or a later date)")
        }
        guard seconds <= maximum else {
            throw PublishError(.invalidExpiry, "the expiry may be at most \(Int(maximum)) seconds from now (max_expiry_s)",
                               details: ["limit": .integer(Int64(maximum))])
        }
        // A duration ends on a whole second (what people read back); a date is kept as given.
        if case .at(let date)? = expiry { return date }
        return (now + seconds).rounded(.down)
    }

    /// Resolves `path` for `peer`, checks that it may read it, opens it without following a link
    /// and copies it into `store`. Waits for the disk: on NIO's thread pool.
    static func publish(_ path: String, until expires: Double, into store: PublishStore,
                        registry: ContainerRegistry, peer: PeerCredentials) throws -> PublishedSnapshot {
        let location = try ItemLocation.resolve(path, registry: registry, peer: peer)
        try require(.read, location, peer: peer)
        if location.isPackage {
            throw PublishError(.notAFile, "'\(path)' is a package; only a regular file can be published (for now)",
                               details: ["path": .string(path)])
        }
        let fd = Beneath.withCString(location.relative.name) {
            openat(location.directory, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        }
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ELOOP: throw VersionError(.forbidden, "'\(path)' is a symbolic link (links are never followed)", details: ["path": .string(path)])
            case ENOENT: throw VersionError(.notFound, "no item at '\(path)'", details: ["path": .string(path)])
            default: throw VersionError(.fileSystem, "cannot open '\(path)': \(String(cString: strerror(code)))", details: ["path": .string(path)])
            }
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw VersionError(.fileSystem, "cannot examine '\(path)': \(String(cString: strerror(errno)))", details: ["path": .string(path)])
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            let what = status.st_mode & S_IFMT == S_IFDIR ? "a directory" : "not a regular file"
            throw PublishError(.notAFile, "'\(path)' is \(what); only a regular file can be published", details: ["path": .string(path)])
        }
        // The inode opened is the one judged: a name swapped after the walk above changes nothing.
        guard PeerAccess.allows([.read], at: fd, peer: peer) else {
            throw VersionError(.forbidden, "uid \(peer.uid) may not read '\(path)'", details: ["path": .string(path)])
        }
        return try store.publish(copying: fd, size: Int64(status.st_size), path: path, uid: peer.uid, expires: expires)
    }

    /// The wire form of a snapshot.
    static func published(_ snapshot: PublishedSnapshot, base: String) -> PublishedItem {
        PublishedItem(url: base + "/p/" + snapshot.token, token: snapshot.token, path: snapshot.path, size: snapshot.size,
                      expires: snapshot.expires)
    }
}
