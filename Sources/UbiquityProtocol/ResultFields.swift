public import UbiquityPredicate

/// What ``ResultEncoder`` reads of one result: its path, where it was before a rename, and the
/// values of the query's attributes (an attribute without a value is left out on the wire).
///
/// A borrowed view, built per item while encoding: the strings and the dictionary are the
/// caller's, nothing is copied.
public struct ResultFields {
    public let path: String
    public let oldPath: String?
    public let values: [Attribute: Value]

    public init(path: String, oldPath: String?, values: [Attribute: Value]) {
        self.path = path
        self.oldPath = oldPath
        self.values = values
    }
}
