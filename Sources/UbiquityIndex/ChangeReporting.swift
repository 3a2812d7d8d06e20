/// Which changes of a member item a live query hears of as `changed`.
///
/// A query holds an item; the item's content or metadata changes (it was edited: size and dates
/// moved; its tags or conflict state changed) while it still matches. With ``all`` (the default,
/// as NSMetadataQuery and Watchman report it) that is one `changed`, carrying the attributes the
/// query asked for, whatever those are. With ``requested`` the query hears only of changes to the
/// attributes it asked for, sorts by or tests (and of renames and conflicts): for a view that shows
/// only names, an edit is not news.
public enum ChangeReporting: String, Sendable, Hashable, CaseIterable {
    /// Any change of the item's content or metadata: every registered attribute is compared.
    case all
    /// Changes of the attributes the query requested, sorts by or tests, its path and its
    /// conflict state.
    case requested
}
