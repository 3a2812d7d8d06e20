import ArgumentParser
import UbiquityProtocol

/// The item, `--json`, `--socket` and `--timeout` of `ubiq evict` and `ubiq download`, and how
/// both print the daemon's answer.
struct ItemSyncOptions: ParsableArguments {
    @Argument(help: "The item (relative to the current directory or absolute).")
    var path: String

    @Flag(help: "Print the daemon's answer as JSON (path, downloadingStatus, isDownloading).")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    /// The path as the daemon takes it: absolute.
    var absolutePath: String { PublishCommand.absolute(path) }

    /// Sends `operation` and prints where the item then stands: its JSON with `--json`, else
    /// `PATH: WHAT HAPPENED (downloadingStatus)`, `happened` saying it in words.
    func send<Operation: ProtocolOperation>(_ operation: Operation, happened: (ItemSyncState) -> String) async throws
        where Operation.Result == ItemSyncState {
        let state = try await connection.run { try await $0.send(operation) }
        Terminal.output(json ? try Terminal.json(state.json)
                             : "\(state.path): \(happened(state)) (\(state.downloadingStatus)\(state.isDownloading ? ", downloading" : ""))")
    }
}
