import ArgumentParser
import CommandLineSupport
import UbiquityKeyValue
import UbiquityProtocol

/// `ubiq kv get KEY`.
struct KVGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print one key's value.",
        usage: "ubiq kv get [<options>] <key>",
        discussion: """
            A string prints as itself; any other value as JSON, data and dates as \
            {"$data":"<base64>"} and {"$date":"<UTC time>"}.

            Examples:
              $ ubiq kv get sortOrder
              name
              $ ubiq kv get sortOrder --json
              {"container":"com.example.grocery","key":"sortOrder","value":"name"}

            Exit status: 0 the key has a value, 1 it has none (nothing is printed; with --json, \
            "value" is null), 3 daemon not running.
            """
    )

    @Argument(help: "The key.")
    var key: String

    @OptionGroup var options: ContainerOptions

    func run() async throws {
        let result = try await options.send(KVGet(container: options.container, key: key))
        guard let wire = result.value else {
            if !options.json { Terminal.error("'\(key)' has no value") }
            throw ExitCode(CommandFailure.failed)
        }
        if !options.json { Terminal.output(KVValueText.show(try KVValue(wire: wire))) }
    }
}
