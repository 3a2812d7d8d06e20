import Glibc

/// The authorisation rule (docs/threat_model.md): root, the container's owner, or a member of its configured group.
public enum Authorization {
    public static func mayRead(_ container: ResolvedContainer, peer: PeerCredentials) -> Bool {
        if peer.isRoot || peer.uid == container.ownerUID { return true }
        if let group = container.groupGID, peer.groups.contains(group) { return true }
        return false
    }
}
