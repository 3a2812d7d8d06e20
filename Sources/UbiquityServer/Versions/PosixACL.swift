/// A POSIX access ACL as the kernel stores it in the `system.posix_acl_access` extended attribute:
/// a little-endian `u32` version (2), then 8-byte entries of `u16` tag, `u16` permissions and
/// `u32` id (the id only means something for named users and groups).
///
/// Parsing is bounded and never traps on hostile bytes: anything the kernel would not accept
/// (`posix_acl_valid`: the entries' order, one owner, group and other entry, a mask whenever there
/// is a named entry, permissions within `rwx`) is a ``PosixACLError``, and the caller denies.
/// Pure: no I/O.
public struct PosixACL: Sendable, Hashable, CustomStringConvertible {
    /// The extended attribute holding a file's access ACL.
    public static let attributeName = "system.posix_acl_access"
    /// `POSIX_ACL_XATTR_VERSION`.
    public static let version: UInt32 = 2
    /// `XATTR_SIZE_MAX`: no value the kernel returns is longer.
    public static let maxBytes = 65_536

    public enum Tag: UInt16, Sendable, Hashable {
        case owner = 0x01         // ACL_USER_OBJ
        case user = 0x02          // ACL_USER
        case owningGroup = 0x04   // ACL_GROUP_OBJ
        case group = 0x08         // ACL_GROUP
        case mask = 0x10          // ACL_MASK
        case other = 0x20         // ACL_OTHER
    }

    public struct Entry: Sendable, Hashable {
        public var tag: Tag
        /// `rwx` as 4, 2, 1.
        public var permissions: UInt8
        /// The uid of a named user, the gid of a named group; ignored otherwise.
        public var id: UInt32

        public init(_ tag: Tag, _ permissions: UInt8, id: UInt32 = .max) {
            self.tag = tag
            self.permissions = permissions
            self.id = id
        }
    }

    /// The entries in the kernel's order: owner, named users, owning group, named groups, mask, other.
    public let entries: [Entry]

    /// Validates `entries` as the kernel's `posix_acl_valid` does.
    public init(entries: [Entry]) throws(PosixACLError) {
        // The states of posix_acl_valid: which tags may come next.
        enum State { case owner, users, groups, other, done }
        var state = State.owner
        var needsMask = false
        for (index, entry) in entries.enumerated() {
            guard entry.permissions & ~7 == 0 else { throw PosixACLError(.permissions(UInt16(entry.permissions), entry: index)) }
            switch (entry.tag, state) {
            case (.owner, .owner): state = .users
            case (.user, .users): needsMask = true
            case (.owningGroup, .users): state = .groups
            case (.group, .groups): needsMask = true
            case (.mask, .groups): state = .other
            case (.other, .other): state = .done
            case (.other, .groups) where !needsMask: state = .done   // a minimal ACL has no mask
            default: throw PosixACLError(.order(entry: index))
            }
        }
        guard state == .done else { throw PosixACLError(.incomplete) }
        self.entries = entries
    }

    /// Parses the attribute's value.
    public init(attribute value: some Collection<UInt8>) throws(PosixACLError) {
        guard value.count <= Self.maxBytes else { throw PosixACLError(.tooLong(bytes: value.count)) }
        let bytes = Array(value)
        guard bytes.count >= 4 else { throw PosixACLError(.tooShort(bytes: bytes.count)) }
        let version = Self.littleEndian32(bytes, at: 0)
        guard version == Self.version else { throw PosixACLError(.version(version)) }
        guard (bytes.count - 4) % 8 == 0 else { throw PosixACLError(.partialEntry(bytes: bytes.count)) }
        var entries: [Entry] = []
        entries.reserveCapacity((bytes.count - 4) / 8)
        for offset in stride(from: 4, to: bytes.count, by: 8) {
            let rawTag = UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
            let permissions = UInt16(bytes[offset + 2]) | UInt16(bytes[offset + 3]) << 8
            let index = entries.count
            guard let tag = Tag(rawValue: rawTag) else { throw PosixACLError(.unknownTag(rawTag, entry: index)) }
            guard permissions & ~7 == 0 else { throw PosixACLError(.permissions(permissions, entry: index)) }
            entries.append(Entry(tag, UInt8(permissions), id: Self.littleEndian32(bytes, at: offset + 4)))
        }
        try self.init(entries: entries)
    }

    /// The attribute's value for these entries (tests write it with `setxattr`).
    public var attribute: [UInt8] {
        func append(_ value: UInt32, _ count: Int, to bytes: inout [UInt8]) {
            for shift in stride(from: 0, to: count * 8, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
        }
        var bytes: [UInt8] = []
        append(Self.version, 4, to: &bytes)
        for entry in entries {
            append(UInt32(entry.tag.rawValue), 2, to: &bytes)
            append(UInt32(entry.permissions), 2, to: &bytes)
            append(entry.id, 4, to: &bytes)
        }
        return bytes
    }

    /// `setfacl`'s short form: `u::rw-,u:54321:r--,g::r--,m::r--,o::---`.
    public var description: String {
        entries.map { entry in
            let rwx = String([("r", 4), ("w", 2), ("x", 1)].map { entry.permissions & $0.1 != 0 ? Character($0.0) : "-" })
            switch entry.tag {
            case .owner: return "u::" + rwx
            case .user: return "u:\(entry.id):" + rwx
            case .owningGroup: return "g::" + rwx
            case .group: return "g:\(entry.id):" + rwx
            case .mask: return "m::" + rwx
            case .other: return "o::" + rwx
            }
        }.joined(separator: ",")
    }

    /// The little-endian `u32` at `offset` (the caller checked that four bytes are there).
    private static func littleEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << UInt32(8 * $1) }
    }
}
