/// `struct ucred` (pid_t, uid_t, gid_t) — Glibc hides it behind _GNU_SOURCE; same layout.
struct KernelPeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
