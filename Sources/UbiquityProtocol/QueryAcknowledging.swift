public import UbiquityJSON

/// A ``QueryOperation`` whose answer is the query and one field saying what was done
/// (``QueryAcknowledgement``).
public protocol QueryAcknowledging: QueryOperation {
    /// The field beside `query` in the answer, e.g. `"stopped": true`.
    static var acknowledgement: (key: String, value: JSONValue) { get }
}
