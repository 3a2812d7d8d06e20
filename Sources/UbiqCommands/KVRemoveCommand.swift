import ArgumentParser
import UbiquityProtocol

/// `ubiq kv rm KEY`.
struct KVRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove one key; returns once the removal is on disk.",
        usage: "ubiq kv rm [<options>] <key>",
        discussion: """
            The removal is kept with its time, so it wins over older values of the key on your \
            other devices. Removing a key that has no value is not an error.

            Examples:
              $ ubiq kv rm draft
              $ ubiq kv rm draft --json
              {"container":"com.example.grocery","key":"draft","removed":false}

            Exit status: 0 removed (or had no value), 1 the daemon refused, 3 daemon not running.
            """
    )

    @Argument(help: "The key.")
    var key: String

    @OptionGroup var options: ContainerOptions

    func run() async throws {
        try await options.send(KVRemove(container: options.container, key: key))
    }
}
