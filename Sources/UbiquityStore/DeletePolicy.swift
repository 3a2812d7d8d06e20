/// What wins when one device deletes a row while another, not having seen the delete, edits it
/// (a column, or one of its relationships). Every device of a store must use the same policy; it is
/// part of the schema, and changing it is not an additive change.
public enum DeletePolicy: String, Sendable, Hashable, CaseIterable {
    /// The default: the edit is kept and the row stays (nothing a user typed silently vanishes);
    /// the import says so. Store option `deletes = "lose"`.
    case lose
    /// The delete wins; the import names the edits it overruled. Store option `deletes = "win"`.
    case win
}
