/// Every limit Grocery enforces, in one place (documented in docs/grocery.md, "Limits").
public enum GroceryLimits {
    /// An item's name, in UTF-8 bytes. Longer names are refused with ``GroceryError/nameTooLong(bytes:limit:)``:
    /// a shopping-list entry is a line or a short paragraph, and every `list` reads every name.
    public static let maxNameBytes = 4096
    /// An item image (PNG or JPEG), in bytes.
    public static let maxImageBytes = 10 * 1024 * 1024
    /// The package's `items.json`, in bytes (16,000 items with names of the longest allowed
    /// length fit). A larger file is refused as a corrupt package before it is read.
    public static let maxPackageIndexBytes = 64 * 1024 * 1024
    /// A tag's name (store mode), in UTF-8 bytes; longer ones are refused with
    /// ``GroceryError/tagTooLong(bytes:limit:)``.
    public static let maxTagBytes = 256
    /// Tags given to one `add`, `tag` or `untag` (store mode): one transaction each.
    public static let maxTagsPerCommand = 64
    /// The shortest short id `list` prints, even when fewer characters would be unambiguous.
    public static let minimumShortIDLength = 4
}
