import ArgumentParser

/// `--container` and `--json`, shared by every `ubiq kv` command.
struct KVOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The container whose store to use (default: the first container you may read).", valueName: "id"))
    var container: String?

    @Flag(help: "Print JSON, with values in their wire form (docs/kv-store.md).")
    var json = false
}
