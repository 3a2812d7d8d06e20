/// Why a container was rescanned from scratch.
public enum ResyncReason: String, Sendable, Hashable, CustomStringConvertible {
    /// The kernel's event queue overflowed (`IN_Q_OVERFLOW`): events were lost.
    case queueOverflow

    /// The sentence subscribers see in a `resync` event.
    public var description: String {
        switch self {
        case .queueOverflow: "the kernel event queue overflowed"
        }
    }
}
