/// The bytes of one line from the daemon, kept for as long as result items read from it refer to
/// them (``EncodedItems``): one copy of the line, made for the first item kept, which every item
/// of the line shares.
final class ReceivedLine: @unchecked Sendable {
    // @unchecked: `bytes` is this object's own copy, never written after init.
    let bytes: UnsafeBufferPointer<UInt8>

    /// A copy of bytes that are valid only now.
    init(copying bytes: UnsafeBufferPointer<UInt8>) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = copy.initialize(from: bytes)
        self.bytes = UnsafeBufferPointer(copy)
    }

    deinit {
        UnsafeMutableBufferPointer(mutating: bytes).deallocate()
    }
}
