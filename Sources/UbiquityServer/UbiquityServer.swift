// UbiquityServer owns the daemon as a library: configuration, the Unix-socket server and its
// sessions, authorisation by SO_PEERCRED, and the systemd glue (notify, watchdog, socket
// activation, journald). It turns QueryEngine events into protocol lines and back.
// It must not parse predicates itself or walk the file system to answer a query: the index
// (UbiquityIndex, fed by UbiquityWatch) is the single source of truth.

/// The daemon's version, reported by `hello`, `status` and `ubiquityd --version`.
public enum UbiquityVersion {
    public static let string = "0.4.0"
}
