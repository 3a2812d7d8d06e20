/// A `COLUMN=VALUE`, a table, a relationship or a row on `ubiq store`'s command line that does
/// not fit the store's schema: the sentence says which and what was expected.
struct StoreValueTextError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
