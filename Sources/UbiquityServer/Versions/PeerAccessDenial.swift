import Glibc
import UbiquityProtocol

/// Why ``PeerAccess/check(_:_:beneath:peer:)`` refused, with the component it stopped at, in a
/// sentence fit for the client (``message``).
///
/// It tells the peer no more than `ls -l` would: the mode, owner, group and whether there is an
/// ACL of an entry in a directory the peer may search, and whether something exists only there.
/// The container's root is described by name only: the peer may not be able to search the
/// directories above it.
public struct PeerAccessDenial: Error, Sendable, Hashable, CustomStringConvertible {
    /// What `ls -l` shows of an entry.
    public struct Listing: Sendable, Hashable {
        /// The permission bits (`0o7777`), without the type.
        public var mode: UInt32
        public var owner: UInt32
        public var group: UInt32
        public var hasACL: Bool
    }

    public enum Reason: Sendable, Hashable {
        /// The peer lacks `right` on the component (`nil` listing: the container's root).
        case notPermitted(PeerAccess.Right, Listing?)
        /// The last component does not exist and the peer may not create it: no write on the
        /// directory that would hold it (`nil` listing: the container's root).
        case mayNotCreate(Listing?)
        /// The component does not exist (and the peer may search the directory it would be in).
        case notFound
        /// A directory on the way is a symbolic link or not a directory (links are never followed).
        case notADirectory
        /// The last component is a symbolic link: links are never followed, so never locked or watched.
        case symbolicLink
        /// Write refused: the component is on a read-only mount.
        case readOnlyFileSystem
        /// The component's access ACL cannot be parsed (fail closed).
        case malformedACL(PosixACLError)
        /// The daemon itself could not examine the component (its own permissions, I/O).
        case fileSystem(errno: Int32)
    }

    /// The peer asking.
    public let uid: UInt32
    /// The path below the container's root up to the component refused; empty for the root itself.
    public let component: [UInt8]
    public let reason: Reason

    public init(uid: UInt32, component: [UInt8], reason: Reason) {
        self.uid = uid
        self.component = component
        self.reason = reason
    }

    /// Nothing is there: the client's "not found", not a refusal.
    public var isNotFound: Bool {
        if case .notFound = reason { return true }
        return false
    }

    /// One sentence: `uid 54321 may not write 'Documents/Item_1' (mode 0644, owner 0, group 0)`.
    public var message: String {
        let name = component.isEmpty ? "the container's root" : "'\(String(decoding: component, as: UTF8.self))'"
        switch reason {
        case .notPermitted(let right, let listing):
            return "uid \(uid) may not \(right) \(name)\(Self.describe(listing))"
        case .mayNotCreate(let listing):
            return "uid \(uid) may not create \(name): no write permission on its directory\(Self.describe(listing))"
        case .notFound:
            return "nothing at \(name)"
        case .notADirectory:
            return "\(name) is a symbolic link or not a directory (links are never followed)"
        case .symbolicLink:
            return "\(name) is a symbolic link (links are never followed)"
        case .readOnlyFileSystem:
            return "uid \(uid) may not write \(name): it is on a read-only file system"
        case .malformedACL(let error):
            return "uid \(uid) is refused \(name): \(error)"
        case .fileSystem(let code):
            return "cannot examine \(name): \(String(cString: strerror(code)))"
        }
    }

    public var description: String { message }

    /// As the versions operations answer it: `item.notFound` (nothing there, or a link on the
    /// way, as ``VersionError/Code/notFound`` documents), `version.fileSystem` (the daemon could
    /// not look), `item.forbidden` otherwise; `path` is left for the caller to add.
    public var versionError: VersionError {
        switch reason {
        case .notFound, .notADirectory: VersionError(.notFound, message)
        case .fileSystem: VersionError(.fileSystem, message)
        default: VersionError(.forbidden, message)
        }
    }

    /// ` (mode 0644, owner 0, group 100, with an ACL)`, or nothing.
    private static func describe(_ listing: Listing?) -> String {
        guard let listing else { return "" }
        let octal = String(listing.mode, radix: 8)
        return " (mode \(String(repeating: "0", count: max(0, 4 - octal.count)) + octal), owner \(listing.owner), group \(listing.group)"
            + (listing.hasACL ? ", with an ACL)" : ")")
    }
}
