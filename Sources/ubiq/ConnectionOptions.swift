import ArgumentParser
import Foundation
import UbiquityKit
import UbiquityPredicate
import UbiquityProtocol

/// `--socket PATH` and `--timeout SECONDS`, shared by every command that talks to the daemon.
struct ConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The daemon's socket (default: $XDG_RUNTIME_DIR/ubiquity/ubiquityd.sock; /run/ubiquity/ubiquityd.sock for root).",
        valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp(
        "Seconds to wait for the daemon to answer once connected (default: 30; a starting daemon answers after its first crawl).",
        valueName: "seconds"))
    var timeout: Int = Int(UbiquityConnection.defaultHelloTimeout.components.seconds)

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds, found \(timeout)") }
    }

    var socketPath: String { socket ?? UbiquityConnection.defaultSocketPath }

    /// Connects, runs `body`, closes; every failure becomes a message and the documented exit status.
    func run<T: Sendable>(predicate: String? = nil, _ body: (UbiquityConnection) async throws -> T) async throws -> T {
        do {
            return try await UbiquityConnection.withConnection(to: socketPath, clientName: "ubiq",
                                                                helloTimeout: .seconds(timeout), body)
        } catch {
            throw DaemonFailure.exit(for: error, predicate: predicate)
        }
    }
}
