import Dispatch
import Synchronization

/// The name codec of a saved index's first half, handed to the thread decoding its second half
/// (``IndexSnapshot``), so that both halves compress long names alike: the second waits for it
/// only when it meets its first name to compress, and the first hands it over as soon as its
/// column has trained one — or, when it ends without one, nil (the second then trains its own).
final class CodecHandoff: Sendable {
    private let codec = Mutex<(given: Bool, codec: NameCodec?)>((false, nil))
    private let given = DispatchSemaphore(value: 0)

    /// Hands `codec` over; only the first call counts.
    func give(_ codec: NameCodec?) {
        let first = self.codec.withLock { state -> Bool in
            guard !state.given else { return false }
            state = (true, codec)
            return true
        }
        if first { given.signal() }
    }

    /// The codec given, waiting for it (each wait passes the signal on, so any number may wait).
    func take() -> NameCodec? {
        given.wait()
        given.signal()
        return codec.withLock { $0.codec }
    }
}
