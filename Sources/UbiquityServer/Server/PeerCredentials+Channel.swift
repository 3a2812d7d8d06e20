import Glibc
import NIOCore

extension PeerCredentials {
    /// `SO_PEERCRED` and `SO_PEERGROUPS` of an accepted Unix-socket channel; nil when the kernel does not say.
    static func of(_ channel: any Channel) async -> PeerCredentials? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        let future: EventLoopFuture<KernelPeerCredentials> = provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        // Awaited, not `wait()`ed: a blocked thread of the cooperative pool would stall other tasks.
        guard let credentials = try? await future.get() else { return nil }
        // Groups from the socket too (docs/threat_model.md). More groups than the buffer holds
        // (ERANGE): only the primary gid counts, which can narrow access but never widen it.
        let groups: EventLoopFuture<KernelPeerGroups> = provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: KernelPeerGroups.option))
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid,
                               groups: (try? await groups.get())?.groups ?? [])
    }
}
