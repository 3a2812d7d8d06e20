public import UbiquityPredicate

/// A result list that ``ResultEncoder`` reads row by row without a ``ResultFields`` per item:
/// the rows' paths as ``ResultColumns`` and their values by attribute. The engine's whole result
/// sets (a gathering's answer, a reset) have this shape, so a 100k-item answer goes from their
/// buffers to the wire with no `String` or dictionary per item.
public protocol ResultRows {
    /// Every row's path, as its directory's and its name.
    var columns: ResultColumns { get }
    /// Row `i`'s value of `attribute`; nil leaves the attribute out of the row. Not asked for
    /// ``Attribute/name`` when ``namesFromPaths``.
    func value(_ i: Int, _ attribute: Attribute) -> Value?
    /// True when a row's name (``Attribute/name``) is its path's last component, read from
    /// ``columns``; false: the name comes from ``value(_:_:)``.
    var namesFromPaths: Bool { get }
    /// True when no row's path or name holds a byte JSON escapes: they are then copied as they
    /// are, not looked at sixteen bytes at a time.
    var textNeedsNoEscaping: Bool { get }
}

extension ResultRows {
    public var count: Int { columns.count }

    public var namesFromPaths: Bool { false }

    public var textNeedsNoEscaping: Bool { false }
}
