public import UbiquityPredicate

/// A result list that ``ResultEncoder`` reads row by row without a ``ResultFields`` per item:
/// each row's path as UTF-8 and its values by attribute. The engine's whole result sets (a
/// gathering's answer, a reset) have this shape, so a 100k-item answer goes from their buffers
/// to the wire with no `String` or dictionary per item.
public protocol ResultRows {
    var count: Int { get }
    /// Calls `body` with row `i`'s path, valid UTF-8.
    func withPath<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R
    /// Row `i`'s value of `attribute`; nil leaves the attribute out of the row.
    func value(_ i: Int, _ attribute: Attribute) -> Value?
    /// Calls `body` with row `i`'s name (``Attribute/name``) as UTF-8 when the rows keep it as
    /// text; nil: the name comes from ``value(_:_:)``.
    func withName<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R?
    /// The UTF-8 bytes of all the rows' paths together: how big a line to expect.
    var pathBytes: Int { get }
    /// True when no row's path or name holds a byte JSON escapes: they are then copied as they
    /// are, not looked at eight bytes at a time.
    var textNeedsNoEscaping: Bool { get }
    /// Row `i` will be read soon: a hint to start fetching its bytes into the cache (the rows of
    /// a sorted result set sit scattered in their buffer).
    func prefetch(_ i: Int)
}

extension ResultRows {
    public func withName<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? { nil }

    public var pathBytes: Int { (0..<count).reduce(0) { total, i in total &+ withPath(i) { $0.count } } }

    public var textNeedsNoEscaping: Bool { false }

    public func prefetch(_ i: Int) {}
}
