import Glibc
import NIOCore

extension PeerCredentials {
    /// `SO_PEERCRED` of an accepted Unix-socket channel; nil when the kernel does not say.
    static func of(_ channel: any Channel) async -> PeerCredentials? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        let future: EventLoopFuture<KernelPeerCredentials> = provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        // Awaited, not `wait()`ed: a blocked thread of the cooperative pool would stall other tasks.
        guard let credentials = try? await future.get() else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }
}
