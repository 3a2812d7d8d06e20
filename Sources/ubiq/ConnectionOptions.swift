import ArgumentParser
import Foundation
import UbiquityKit
import UbiquityPredicate
import UbiquityProtocol

/// `--socket PATH`, shared by every command that talks to the daemon.
struct ConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The daemon's socket (default: $XDG_RUNTIME_DIR/ubiquity/ubiquityd.sock; /run/ubiquity/ubiquityd.sock for root).",
        valueName: "path"))
    var socket: String?

    var socketPath: String { socket ?? UbiquityConnection.defaultSocketPath }

    /// Connects, runs `body`, closes; every failure becomes a message and the documented exit status.
    func run<T: Sendable>(predicate: String? = nil, _ body: (UbiquityConnection) async throws -> T) async throws -> T {
        do {
            return try await UbiquityConnection.withConnection(to: socketPath, clientName: "ubiq", body)
        } catch {
            throw DaemonFailure.exit(for: error, predicate: predicate)
        }
    }
}
