/// The bytes of one line from the daemon, kept for as long as result items read from it refer to
/// them (``EncodedItems``): a 100k-item answer's items are ranges of its line, not copies.
public final class ReceivedLine: @unchecked Sendable {
    // @unchecked: `bytes` is never written while this object lives — either this object's own
    // copy, or memory `owner` keeps in place and unchanged (a NIO ByteBuffer's storage: writing to
    // a buffer whose storage is shared copies it first, and `owner` holds a reference to it).
    // `owner` is only held, never used.
    let bytes: UnsafeBufferPointer<UInt8>
    private let owner: AnyObject?

    /// Bytes that stay where they are, unchanged, as long as `owner` lives.
    public init(bytes: UnsafeRawBufferPointer, keptBy owner: AnyObject) {
        self.bytes = bytes.assumingMemoryBound(to: UInt8.self)
        self.owner = owner
    }

    /// A copy of bytes that are valid only now.
    public init(copying bytes: UnsafeBufferPointer<UInt8>) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = copy.initialize(from: bytes)
        self.bytes = UnsafeBufferPointer(copy)
        owner = nil
    }

    deinit {
        if owner == nil { UnsafeMutableBufferPointer(mutating: bytes).deallocate() }
    }
}
