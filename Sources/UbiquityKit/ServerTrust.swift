import Glibc
import NIOCore
import UbiquityProtocol

/// Who a client may talk to: the process behind the socket must run as root, as the client's
/// own effective uid, or as the system service user (``WireProtocol/serviceUserName``).
///
/// A socket path is only a name: when `XDG_RUNTIME_DIR` is unset the default lies under `/tmp`,
/// where another local user could bind it first and read every request (paths, predicates) or
/// feed the client invented results. The kernel's `SO_PEERCRED` says which uid created the
/// listening socket, whatever the path.
enum ServerTrust {
    /// Whether a server running as `uid` is trusted.
    static func trusts(_ uid: UInt32) -> Bool {
        uid == 0 || uid == geteuid() || uid == serviceUID
    }

    /// The service user's uid, looked up by name once, and only when a server is neither root nor
    /// this user: the lookup goes through NSS (nsswitch.conf, /etc/passwd, libnss_systemd), a few
    /// milliseconds of a short command's start otherwise.
    static let serviceUID: UInt32? = getpwnam(WireProtocol.serviceUserName)?.pointee.pw_uid

    /// Throws ``UbiquityKitError/untrustedServer(socketPath:uid:)`` unless the peer is trusted.
    static func check(_ channel: any Channel, socketPath: String) async throws {
        guard let provider = channel as? any SocketOptionProvider else {
            throw UbiquityKitError.connectFailed(socketPath: socketPath, reason: "the socket cannot report its peer (SO_PEERCRED)")
        }
        let credentials: SocketPeerCredentials
        do {
            credentials = try await provider.unsafeGetSocketOption(
                level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED)).get()
        } catch {
            throw UbiquityKitError.connectFailed(socketPath: socketPath, reason: "cannot read the server's credentials (SO_PEERCRED): \(error)")
        }
        guard trusts(credentials.uid) else {
            throw UbiquityKitError.untrustedServer(socketPath: socketPath, uid: credentials.uid)
        }
    }
}
