public import UbiquityIndex
import UbiquityProtocol

/// The engine's refusals reach the client with their own code and sentence.
extension EngineError: ClientFacingError {
    public var clientCode: String { code.rawValue }
    public var clientMessage: String { message }
    /// A sync that timed out: the watcher is behind, which no client can mend.
    public var isDaemonTrouble: Bool { code == .syncTimedOut }
}
