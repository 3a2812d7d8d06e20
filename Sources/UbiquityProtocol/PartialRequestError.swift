/// A request that could not be read, with its id when the id itself was fine.
public struct PartialRequestError: Error, Sendable {
    public let id: RequestID?
    public let error: ProtocolError
}
