/// Listing and removing through a directory descriptor the caller holds (never a path a link
/// could redirect), bounded: ``Directory``'s calls for a descriptor that is not one.
public enum DirectoryEntries {
    /// How deep a removal (or a package search) goes.
    public static let maxDepth = Directory.maxDepth
    /// How many entries one listing returns at most.
    public static let maxEntries = Directory.maxEntries

    /// The names in `directory` as bytes (not `.` and `..`), at most ``maxEntries``; empty when
    /// it cannot be read. The descriptor is not consumed and may be `O_PATH`.
    public static func names(in directory: Int32) -> [[UInt8]] {
        (try? Directory(borrowing: directory, path: "").names()) ?? []
    }

    /// The names in `directory` that are valid UTF-8, as text.
    public static func textNames(in directory: Int32) -> [String] {
        Directory(borrowing: directory, path: "").textNames()
    }
}
