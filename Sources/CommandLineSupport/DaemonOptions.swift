public import ArgumentParser
import UbiquityKit

/// `--socket PATH` and `--timeout SECONDS`: where the daemon is and how long to wait for it to
/// answer, the same for every `ubiq` and `grocery` command that talks to it.
public struct DaemonOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The daemon's socket (default: $XDG_RUNTIME_DIR/ubiquity/ubiquityd.sock; /run/ubiquity/ubiquityd.sock for root).",
        valueName: "path"))
    public var socket: String?

    @Option(help: ArgumentHelp(
        "Seconds to wait for the daemon to answer once connected (default: 30; a starting daemon answers after its first crawl).",
        valueName: "seconds"))
    public var timeout: Int = Int(UbiquityConnection.defaultHelloTimeout.components.seconds)

    public init() {}

    public func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds, found \(timeout)") }
    }

    /// `--socket`, or the default for this user.
    public var socketPath: String { socket ?? UbiquityConnection.defaultSocketPath }

    /// `--timeout` as the connection's hello timeout.
    public var helloTimeout: Duration { .seconds(timeout) }
}
