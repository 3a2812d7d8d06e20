import ArgumentParser
import UbiquityProtocol

/// `--container`, `--json`, `--socket` and `--timeout`, shared by every `ubiq kv` and `ubiq store`
/// command.
struct ContainerOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The container whose store to use (default: the first container you may read).", valueName: "id"))
    var container: String?

    @Flag(help: "Print JSON: the daemon's answer, values in their wire form (docs/protocol.md).")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    /// Sends one operation to the daemon and, with `--json`, prints its result as the daemon
    /// gave it; every failure becomes a message and the documented exit status.
    @discardableResult
    func send<Operation: ProtocolOperation>(_ operation: Operation) async throws -> Operation.Result {
        let result = try await connection.run { try await $0.send(operation) }
        if json { Terminal.output(try Terminal.json(result.json)) }
        return result
    }
}
