/// Where a container keeps its list: one file per item (the default) or the one `grocery.gro` package.
public enum GroceryStorageFormat: String, Sendable, CaseIterable {
    /// `Documents/Item_<UUID>` files whose content is the name.
    case files
    /// `Documents/grocery.gro`: the list and the images in one package (docs/grocery-package.md).
    case package

    /// The live query that finds this format's files in `Documents/`.
    public var predicate: String {
        switch self {
        case .files: "kMDItemFSName LIKE 'Item_*'"
        case .package: "kMDItemFSName == 'grocery.gro'"
        }
    }
}
