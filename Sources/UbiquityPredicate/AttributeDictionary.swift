/// A plain attribute → value table; handy for tests, the CLI and clients.
public struct AttributeDictionary: AttributeProvider, Sendable, Hashable {
    public var values: [Attribute: Value]
    public init(_ values: [Attribute: Value] = [:]) { self.values = values }
    public func value(of attribute: Attribute) -> Value? { values[attribute] }
    public subscript(attribute: Attribute) -> Value? {
        get { values[attribute] }
        set { values[attribute] = newValue }
    }
}
