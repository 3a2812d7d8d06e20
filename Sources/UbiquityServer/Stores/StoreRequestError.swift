public import UbiquityErrors

/// An error of the daemon's relational-store operations.
public typealias StoreRequestError = CodedError<StoreRequestErrorCode>

extension StoreErrorCode {
    /// The store's codes a client can receive as an error: the `store.segment*` codes describe
    /// other devices' files and reach clients only inside sync states (`devices[].code`).
    static var clientCodes: [StoreErrorCode] { [.invalidSchema, .schemaNotAdditive, .invalidChange] }
}
