/// Why a saved index (snapshot or journal) was not used. The daemon logs it, discards the files
/// and builds its index from a crawl under a new epoch: clients' old tokens get
/// `clock.otherEpoch`, never a wrong difference.
public enum SavedIndexError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a file this daemon wrote (wrong magic).
    case foreign
    /// Written by a format version this daemon does not read.
    case unsupportedVersion(UInt32)
    /// The bytes end before the content does.
    case truncated
    /// The checksum does not match: the file was damaged.
    case checksumMismatch
    /// The content contradicts itself (a parent out of range, a cycle, a duplicate name ...).
    case invalid(String)
    /// The configuration changed in a way the saved index cannot follow.
    case configurationChanged(String)
    /// The machine restarted while the daemon ran: journal records not yet on disk may be lost,
    /// so the clocks handed out cannot be trusted.
    case uncleanReboot

    public var description: String {
        switch self {
        case .foreign: "not a saved index of ubiquityd (wrong magic)"
        case .unsupportedVersion(let v): "saved by format version \(v), which this daemon does not read"
        case .truncated: "truncated"
        case .checksumMismatch: "damaged (checksum mismatch)"
        case .invalid(let why): "inconsistent: \(why)"
        case .configurationChanged(let why): "the configuration changed: \(why)"
        case .uncleanReboot: "the machine restarted while the daemon was running (records of its journal may be lost)"
        }
    }
}
