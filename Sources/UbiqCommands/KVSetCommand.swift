import ArgumentParser
import CommandLineSupport
import UbiquityKeyValue
import UbiquityProtocol

/// `ubiq kv set KEY VALUE [--type T]`.
struct KVSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set one key's value; returns once it is on disk.",
        usage: "ubiq kv set [<options>] <key> <value>",
        discussion: """
            VALUE is a string unless --type says otherwise: integer, double, bool (true or \
            false), data (base64), date (UTC, like 2026-05-01T12:00:00Z) or json (any value in \
            its wire form: arrays, dictionaries, {"$data":…}, {"$date":…}).

            Examples:
              $ ubiq kv set sortOrder name
              $ ubiq kv set launches 3 --type integer
              $ ubiq kv set lastOpened 2026-05-01T12:00:00Z --type date
              $ ubiq kv set recent '["Milk","Eggs"]' --type json

            A write past a quota is refused and changes nothing:
              $ ubiq kv set k1025 x
              ubiq: the store has 1024 keys; at most 1024 are allowed [kv.quotaExceeded]

            Exit status: 0 stored, 1 the daemon refused it, 2 VALUE is not of its --type, \
            3 daemon not running.
            """
    )

    @Argument(help: "The key: 1 to 64 bytes of UTF-8.")
    var key: String

    @Argument(help: "The value, read as --type says.")
    var value: String

    @Option(help: ArgumentHelp("string, integer, double, bool, data, date or json.", valueName: "type"))
    var type = "string"

    @OptionGroup var options: ContainerOptions

    func validate() throws {
        guard KVValueText.types.contains(type) else {
            throw ValidationError("--type must be one of \(KVValueText.types.joined(separator: ", ")); found '\(type)'")
        }
    }

    func run() async throws {
        let parsed: KVValue
        do { parsed = try KVValueText.parse(value, as: type) } catch {
            Terminal.error("\(error)")
            throw ExitCode(CommandFailure.invalidInput)
        }
        try await options.send(KVSet(container: options.container, key: key, value: parsed.wire))
    }
}
