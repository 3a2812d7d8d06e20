public import UbiquityErrors
public import UbiquityJSON
public import UbiquityProtocol

/// Every coded error (the protocol's own, versions and documents, the key-value store) reaches
/// the client as it is: its code, its sentence, its details. Declared here, at the edge, so the
/// modules that raise these errors depend on no wire protocol.
extension CodedError: ClientFacingError {
    public var clientCode: String { code.rawValue }
    public var clientMessage: String { message }
    public var clientDetails: [String: JSONValue] { details }
}

extension ProtocolError {
    /// Any client-facing error as it goes onto the wire.
    public init(rendering error: some ClientFacingError) {
        if let error = error as? ProtocolError { self = error; return }
        self.init(Code(rawValue: error.clientCode), error.clientMessage, details: error.clientDetails)
    }
}
