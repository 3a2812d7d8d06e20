import ArgumentParser
import UbiquityKeyValue
import UbiquityKit
import UbiquityPredicate
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

    @OptionGroup var options: KVOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let operation = Operation.kvAll(container: options.container)
        let result = try await connection.run { try await $0.send(operation) }
        if options.json {
            Terminal.output(try Terminal.json(result))
            return
        }
        let reader = try FieldReader(result, context: "kv.all result")
        let values = try reader.optionalObject("values") ?? [:]
        let rows = try values.keys.sorted().map { key -> [String] in
            let value = try KVValue(wire: values[key]!)
            return [DisplayText.oneLine(key), value.typeName, DisplayText.oneLine(KVValueText.show(value))]
        }
        if !rows.isEmpty { Terminal.output(Terminal.table(header: ["KEY", "TYPE", "VALUE"], rows: rows)) }
        let usage = try FieldReader(try reader.value("usage"), context: "usage")
        let quota = try FieldReader(try reader.value("quota"), context: "quota")
        Terminal.output("\(try usage.int("keys")) of \(try quota.int("maxKeys")) keys, "
            + "\(try usage.int("bytes")) of \(try quota.int("maxBytes")) bytes")
    }
}
