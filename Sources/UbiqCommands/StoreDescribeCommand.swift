import ArgumentParser
import UbiquityProtocol
import UbiquityStore

/// `ubiq store describe STORE`.
struct StoreDescribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Show a store's schema and how far each device's log is imported.",
        usage: "ubiq store describe [<options>] <store>",
        discussion: """
            Example:
              $ ubiq store describe grocery
              store grocery of com.example.grocery, schema version 1, deletes lose
              items  name string not null, quantity integer
              tags   name string not null  unique by (name)
              tags   items.tags <-> tags.items
              device 5f0c…  current  imported 2
              device phone  degraded at segment 3: store.segmentChecksum
            """
    )

    @Argument(help: "The store's name.")
    var store: String

    @OptionGroup var options: ContainerOptions

    func run() async throws {
        let described = try await options.connection.run { try await $0.send(StoreDescribe(container: options.container, store: store)) }
        Terminal.output(options.json ? try Terminal.json(described.json) : Self.render(described))
    }

    static func render(_ d: StoreDescription) -> String {
        var lines = ["store \(d.store) of \(d.container), schema version \(d.schema.version), deletes \(d.schema.deletes.rawValue)"]
        var rows: [[String]] = []
        for table in d.schema.tables {
            let columns = table.columns.map { "\($0.name) \($0.type)" + ($0.nullable ? "" : " not null") }.joined(separator: ", ")
            rows.append([table.name, columns + (table.uniqueBy.isEmpty ? "" : "  unique by (\(table.uniqueBy.joined(separator: ", ")))")])
        }
        for r in d.schema.relationships { rows.append([r.name, "\(r.from).\(r.name) <-> \(r.to).\(r.inverse)"]) }
        lines.append(Terminal.table(header: ["", ""], rows: rows).split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(separator: "\n"))
        lines += d.devices.map(device)
        return lines.filter { !$0.isEmpty }.joined(separator: "\n")
    }

    static func device(_ state: StoreDeviceState) -> String {
        var line = "device \(state.device)  \(state.state)"
        switch state.state {
        case "degraded": line += " at segment \(state.sequence ?? 0): \(state.code ?? "") \(state.reason ?? "")"
        case "needsUpgrade": line += " at segment \(state.sequence ?? 0) (schema version \(state.schemaVersion ?? 0))"
        default: line += "  imported \(state.imported)"
        }
        if let waiting = state.waiting, waiting > 0 { line += ", \(waiting) waiting" }
        if state.forgotten == true { line += ", forgotten" }
        return line
    }
}
