/// A value on `ubiq kv set`'s command line that is not of the type asked for.
struct KVValueTextError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
