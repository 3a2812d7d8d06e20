/// Anything that can answer attribute values: an index entry, a JSON object, a test fixture.
///
/// Return `nil` (or `.null`) for a missing attribute. Multi-valued attributes return `.list`.
public protocol AttributeProvider {
    func value(of attribute: Attribute) -> Value?
}
