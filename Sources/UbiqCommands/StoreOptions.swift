import ArgumentParser
import UbiquityProtocol

/// `--container`, `--json`, `--socket` and `--timeout`, shared by every `ubiq store` command.
struct StoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The container whose store to use (default: the first container you may read).", valueName: "id"))
    var container: String?

    @Flag(help: "Print the daemon's answer as JSON (docs/protocol.md).")
    var json = false

    @OptionGroup var connection: ConnectionOptions
}
