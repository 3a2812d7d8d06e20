/// A parsed, type-checked predicate. Build one with ``MetadataPredicate/init(parsing:arguments:variables:)``.
///
/// ```swift
/// let predicate = try MetadataPredicate(parsing: "kMDItemFSName LIKE[c] %@", arguments: [.string("item_*")])
/// let matcher = predicate.compiled()
/// matcher.evaluate(item)                       // item: some AttributeProvider
/// predicate.description                        // kMDItemFSName LIKE[c] "item_*"
/// ```
///
/// Equality is structural; ``description`` prints a canonical form that parses back to an
/// equal predicate.
public indirect enum MetadataPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case not(MetadataPredicate)
    /// Two or more operands written as one chain (`a AND b AND c`).
    case and([MetadataPredicate])
    /// Two or more operands written as one chain (`a OR b OR c`).
    case or([MetadataPredicate])
    case comparison(Comparison)
}
