public import UbiquityJSON
public import UbiquityPredicate

/// A predicate error keeps its own stable code, its offset and its one-line sentence.
extension MetadataPredicateError: ClientFacingError {
    public var clientCode: String { code.rawValue }
    public var clientMessage: String { description }
    public var clientDetails: [String: JSONValue] { ["offset": .integer(Int64(offset))] }
}
