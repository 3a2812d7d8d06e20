/// The answer to `getsockopt(SO_PEERGROUPS)`: the peer's supplementary groups as the kernel
/// recorded them at connect time, in ascending order (the kernel sorts `group_info`).
///
/// The option writes an array of `gid_t` and its length; NIO's typed `getsockopt` returns only
/// the value, zero-filled first. Ascending order makes the padding recognisable: the groups
/// end where a zero follows a non-zero gid. A list of only zeros reads as no supplementary
/// groups, so supplementary membership of gid 0 (root's group) is not seen — access through a
/// container group of gid 0 needs it as the primary group (docs/threat_model.md).
struct KernelPeerGroups: Sendable {
    /// `SO_PEERGROUPS` from `<asm-generic/socket.h>`; Glibc does not export it.
    static let option: Int32 = 59
    /// At most this many groups are read; a peer in more is refused the option (ERANGE).
    static let capacity = 1024

    var gids = InlineArray<1024, UInt32>(repeating: 0)

    var groups: [UInt32] {
        var out: [UInt32] = []
        for index in gids.indices {
            let gid = gids[index]
            if gid == 0 { if out.isEmpty { continue } else { break } }
            out.append(gid)
        }
        return out
    }
}
