/// An item's name: any UTF-8 text (newlines, emoji, right-to-left scripts kept byte for byte),
/// at most ``GroceryLimits/maxNameBytes`` bytes. Stored as is in both formats; empty means unnamed.
public enum GroceryName {
    /// What `list` and `watch` show for an item whose name is empty.
    public static let unnamed = "Unnamed item"

    /// The bytes to store for `name`, or ``GroceryError/nameTooLong(bytes:limit:)``.
    public static func validated(_ name: String) throws -> [UInt8] {
        let bytes = Array(name.utf8)
        guard bytes.count <= GroceryLimits.maxNameBytes else {
            throw GroceryError.nameTooLong(bytes: bytes.count, limit: GroceryLimits.maxNameBytes)
        }
        return bytes
    }

    /// The name to show for stored bytes: invalid UTF-8 is repaired (U+FFFD), empty reads as unnamed.
    public static func display(_ stored: String) -> String { stored.isEmpty ? unnamed : stored }
}
