import ArgumentParser
import UbiquityKeyValue
import UbiquityKit
import UbiquityProtocol

/// `ubiq kv list`.
struct KVListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print every key with its type and value, and the quota used.",
        usage: "ubiq kv list [<options>]",
        discussion: """
            Example:
              $ ubiq kv list
              KEY        TYPE     VALUE
              launches   integer  3
              sortOrder  string   name
              2 of 1024 keys, 24 of 1048576 bytes

            With --json, the daemon's kv.all result: "values", "usage" and "quota".

            Exit status: 0 success, 1 the daemon refused, 3 daemon not running.
            """
    )

    @OptionGroup var options: ContainerOptions

    func run() async throws {
        let result = try await options.send(KVAll(container: options.container))
        if options.json { return }
        let values = result.values
        let rows = try values.keys.sorted().map { key -> [String] in
            let value = try KVValue(wire: values[key]!)
            return [DisplayText.oneLine(key), value.typeName, DisplayText.oneLine(KVValueText.show(value))]
        }
        if !rows.isEmpty { Terminal.output(Terminal.table(header: ["KEY", "TYPE", "VALUE"], rows: rows)) }
        Terminal.output("\(result.keys) of \(result.maxKeys) keys, \(result.bytes) of \(result.maxBytes) bytes")
    }
}
