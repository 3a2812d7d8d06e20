import CommandLineSupport
import UbiquityKit

/// `--socket PATH` and `--timeout SECONDS`, shared by every command that talks to the daemon
/// (and with `grocery`: ``DaemonOptions``).
typealias ConnectionOptions = DaemonOptions

extension ConnectionOptions {
    /// Connects, runs `body`, closes; every failure becomes a message and the documented exit status.
    func run<T: Sendable>(predicate: String? = nil, _ body: (UbiquityConnection) async throws -> T) async throws -> T {
        do {
            return try await UbiquityConnection.withConnection(to: socketPath, clientName: "ubiq",
                                                                helloTimeout: helloTimeout, body)
        } catch {
            throw DaemonFailure.exit(for: error, predicate: predicate)
        }
    }
}
