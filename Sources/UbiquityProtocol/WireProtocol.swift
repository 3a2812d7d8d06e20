/// Constants and defaults both ends agree on.
public enum WireProtocol {
    /// The protocol version a `hello` must name. Bumped on incompatible changes only.
    public static let version = 1

    /// The file name of the socket inside its directory (`…/ubiquity/ubiquityd.sock`).
    public static let socketFileName = "ubiquityd.sock"

    /// The system service's own account (Packaging/ubiquity.sysusers.conf). Clients trust a
    /// daemon running as root, as themselves, or as this user.
    public static let serviceUserName = "ubiquity"

    /// The default socket path: `/run/ubiquity/ubiquityd.sock` for root (the system service),
    /// `$XDG_RUNTIME_DIR/ubiquity/ubiquityd.sock` otherwise, `/tmp/ubiquity-UID/…` as a last resort.
    ///
    /// - Parameters:
    ///   - uid: The effective uid of the process asking.
    ///   - environment: The process environment (only `XDG_RUNTIME_DIR` is read).
    public static func defaultSocketPath(uid: UInt32, environment: [String: String]) -> String {
        if uid == 0 { return "/run/ubiquity/" + socketFileName }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return (runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime) + "/ubiquity/" + socketFileName
        }
        return "/tmp/ubiquity-\(uid)/" + socketFileName
    }
}
