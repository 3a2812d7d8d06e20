import Glibc

/// Who is on the other end of a connection, as the kernel says: uid, gid and pid from
/// `SO_PEERCRED`, supplementary groups from `SO_PEERGROUPS`, read once at accept time.
///
/// Both come from the socket, not from `/proc/PID`: under the system unit's
/// `ProtectProc=invisible` other users' `/proc` entries are hidden, and a pid can be reused
/// between connect and accept.
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// The primary gid and every supplementary group.
    public var groups: Set<UInt32>

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: some Sequence<UInt32> = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = Set(groups).union([gid])
    }

    public var isRoot: Bool { uid == 0 }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}
