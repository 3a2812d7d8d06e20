import Glibc

/// Who is on the other end of a connection, as the kernel says (`SO_PEERCRED`), plus the
/// supplementary groups of that process (`/proc/PID/status`), read once at accept time.
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// The primary gid and every supplementary group.
    public var groups: Set<UInt32>

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: Set<UInt32>? = nil) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = (groups ?? PeerCredentials.supplementaryGroups(pid: pid)).union([gid])
    }

    public var isRoot: Bool { uid == 0 }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }

    /// The `Groups:` line of `/proc/PID/status`; empty when the process is gone or unreadable
    /// (then only the primary gid counts, which can only narrow access, never widen it).
    static func supplementaryGroups(pid: Int32) -> Set<UInt32> {
        guard pid > 0, let file = fopen("/proc/\(pid)/status", "r") else { return [] }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            guard text.hasPrefix("Groups:") else { continue }
            return Set(text.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                .compactMap { UInt32($0) })
        }
        return []
    }
}

/// The authorisation rule (docs/threat_model.md): root, the container's owner, or a member of its configured group.
public enum Authorization {
    public static func mayRead(_ container: ResolvedContainer, peer: PeerCredentials) -> Bool {
        if peer.isRoot || peer.uid == container.ownerUID { return true }
        if let group = container.groupGID, peer.groups.contains(group) { return true }
        return false
    }
}
