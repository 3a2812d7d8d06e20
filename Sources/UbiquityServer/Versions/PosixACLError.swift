/// Why an access ACL's bytes were refused; the access checked is then denied.
public struct PosixACLError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// Fewer than the 4 bytes of the version.
        case tooShort(bytes: Int)
        /// More than ``PosixACL/maxBytes``.
        case tooLong(bytes: Int)
        /// A version other than 2.
        case version(UInt32)
        /// The entries do not fill the value in whole 8-byte entries.
        case partialEntry(bytes: Int)
        /// A tag none of the six the kernel knows (0-based entry).
        case unknownTag(UInt16, entry: Int)
        /// Permissions outside `rwx`.
        case permissions(UInt16, entry: Int)
        /// An entry where the kernel's order does not allow it (a second owner entry, a named
        /// user after the owning group, a mask missing before other, anything after other).
        case order(entry: Int)
        /// No owner, owning group or other entry, or the value ends before other.
        case incomplete
    }

    public let reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    public var description: String {
        switch reason {
        case .tooShort(let bytes): "the ACL is \(bytes) bytes, too short for its version"
        case .tooLong(let bytes): "the ACL is \(bytes) bytes, more than \(PosixACL.maxBytes)"
        case .version(let version): "the ACL has version \(version), not \(PosixACL.version)"
        case .partialEntry(let bytes): "the ACL's \(bytes) bytes end inside an entry"
        case .unknownTag(let tag, let entry): "entry \(entry) of the ACL has the unknown tag \(tag)"
        case .permissions(let permissions, let entry): "entry \(entry) of the ACL has permissions \(permissions), not within rwx"
        case .order(let entry): "entry \(entry) of the ACL is out of the kernel's order"
        case .incomplete: "the ACL lacks an owner, owning group or other entry"
        }
    }
}
