/// Which version `grocery resolve` keeps.
public enum GroceryResolution: Sendable, Hashable {
    /// The version with this number in `grocery conflicts` (1 is the current one).
    case pick(Int)
    /// The version in which the item has this name.
    case name(String)
    /// The most recently modified version.
    case newest
}
