import UbiquityJSON
import UbiquityPredicate

extension Dictionary where Key == String, Value == JSONValue {
    /// These fields and `key`, when `value` is given: an optional parameter is left out, not null.
    func adding(_ key: String, _ value: String?) -> Self {
        var fields = self
        if let value { fields[key] = .string(value) }
        return fields
    }
}
