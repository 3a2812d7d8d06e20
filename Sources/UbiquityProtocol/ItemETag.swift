import UbiquityJSON

/// The version of an item's content a client read, as one short string: what a coordinated save
/// compares (docs/versions.md). Made from the item's `stat` — inode, modification time in
/// nanoseconds and size — so any client can compute it from the descriptor it read through:
/// `"<st_ino>-<st_mtim.tv_sec>.<st_mtim.tv_nsec, 9 digits>-<st_size>"`, e.g. `"1834-1763805600.123456789-4"`.
///
/// An atomic save (write a temporary file, rename it over the item) always gives a new inode, so
/// two saves never share an etag even within one clock tick.
public struct ItemETag: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(inode: UInt64, modifiedSeconds: Int64, modifiedNanoseconds: Int64, size: Int64) {
        let nanoseconds = String(max(0, min(modifiedNanoseconds, 999_999_999)))
        rawValue = "\(inode)-\(modifiedSeconds).\(String(repeating: "0", count: 9 - nanoseconds.count))\(nanoseconds)-\(size)"
    }

    public var description: String { rawValue }
}

extension Optional<ItemETag> {
    /// On the wire: the etag's string, or null when there is no item.
    var json: JSONValue { map { .string($0.rawValue) } ?? .null }
}
