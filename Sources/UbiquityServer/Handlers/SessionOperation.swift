import UbiquityProtocol

/// An operation the daemon answers: each operation of ``Operations/all`` conforms in a handler
/// file of its own (`Handlers/<Operation>+Handler.swift`), and ``Session`` dispatches through
/// this conformance. An operation without one is refused, never a crash, and
/// `OperationRegistryTests` fails for it.
protocol SessionOperation: ProtocolOperation {
    /// Whether it may come before `hello` (only `hello` itself may).
    static var allowedBeforeHello: Bool { get }
    /// The response to request `id` of `session`'s connection.
    func respond(to id: RequestID, in session: Session) async throws -> Session.Outcome
}

extension SessionOperation {
    static var allowedBeforeHello: Bool { false }
}
