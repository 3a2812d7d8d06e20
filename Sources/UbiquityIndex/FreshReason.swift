public import UbiquityErrors

/// Why a query started `since` a clock gets its full result set instead of the difference. The
/// raw values are stable codes a client sees as `freshCode` (docs/protocol.md).
public enum FreshReason: String, StableErrorCode, Error {
    /// The token is from another epoch: the daemon's index was built anew since (it started
    /// without a saved index, or the saved one was discarded), or the token is another daemon's.
    case otherEpoch = "clock.otherEpoch"
    /// The changes since the token are no longer all kept (``ChangeHistory/Retention``).
    case pastRetention = "clock.pastRetention"
    /// The token names a point this index has not reached.
    case ahead = "clock.ahead"
    /// A container was removed from the daemon's configuration since the token: its items may
    /// have been results then, and a client that may no longer read it is not told about them.
    case containerRemoved = "clock.containerRemoved"

    /// The stable code, e.g. `clock.otherEpoch`.
    public var code: String { rawValue }

    public var sentence: String {
        switch self {
        case .otherEpoch: "the token is from another index: the daemon's index was built anew since it was handed out"
        case .pastRetention: "the token is older than the change history the daemon keeps"
        case .ahead: "the token names a point this daemon's index has not reached"
        case .containerRemoved: "a container was removed from the daemon's configuration since the token was handed out"
        }
    }
}
