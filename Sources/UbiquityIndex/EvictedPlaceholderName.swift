/// The name of the placeholder file an evicted item leaves behind (docs/architecture.md, "Files
/// on demand"): `.NAME.ubiquity-evicted` beside where `NAME` was. It is the item's own file,
/// renamed and emptied (same inode, birth time, tags; its size and modification time set back to
/// the item's), so it carries the item's last known status. The index files it under `NAME`
/// with ``FileStat/evicted``: an item of its own never, and a real `NAME` beside it always wins.
/// Pure.
public enum EvictedPlaceholderName {
    static let prefix: UInt8 = UInt8(ascii: ".")
    public static let suffix = ".ubiquity-evicted"
    private static let suffixBytes = Array(suffix.utf8)

    /// The placeholder's name for an item named `name`. Names longer than ``maxItemNameBytes``
    /// have none (the file system's 255-byte limit), and are never evicted.
    public static func placeholder(for name: String) -> String? {
        name.utf8.count <= maxItemNameBytes ? "." + name + suffix : nil
    }

    /// The longest item name that has a placeholder: 255 bytes less the dot and the suffix.
    public static let maxItemNameBytes = 255 - 1 - 17

    /// Whether a name's bytes may be a placeholder's (``item(ofPlaceholder:)`` tells): its first
    /// byte, so that other names need no `String`.
    @inline(__always) static func mayBePlaceholder(_ name: UnsafeBufferPointer<UInt8>) -> Bool { name.first == prefix }

    /// The item's name when `name` is a placeholder's; nil otherwise. Cheap for other names: one
    /// byte compared first, then the suffix.
    @inline(__always) public static func item(ofPlaceholder name: String) -> String? {
        let utf8 = name.utf8
        guard utf8.first == prefix, utf8.count > suffixBytes.count + 1, utf8.last == suffixBytes.last,
              utf8.suffix(suffixBytes.count).elementsEqual(suffixBytes) else { return nil }
        let item = String(decoding: utf8.dropFirst().dropLast(suffixBytes.count), as: UTF8.self)
        return item == "." || item == ".." ? nil : item
    }
}
