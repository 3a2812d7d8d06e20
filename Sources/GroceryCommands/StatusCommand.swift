import ArgumentParser
import FoundationEssentials
import GroceryStore

/// `grocery status`: is the daemon there, which container, where, how many items.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say whether the daemon is reachable, which container the list is in, and how many items it has.",
        usage: "grocery status [<options>]",
        discussion: """
            Example:
              $ grocery status
              daemon     ubiquityd 0.4.0 at /run/user/1000/ubiquity/ubiquityd.sock
              container  com.example.grocery
              path       /home/me/.local/share/ubiquity/containers/com.example.grocery
              store      files (Documents/Item_<UUID>)
              items      3

            When the daemon is not running, says how to start it and exits 3.
            """
    )

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let (version, list, count) = try await options.withList { list in
            (list.connection.hello.version, (container: list.container, path: list.containerPath,
                                             documents: list.documents, format: list.format),
             try await list.items(dates: false).count)
        }
        let socket = options.socketPath
        if json {
            struct Status: Encodable {
                let daemon: String, socket: String, container: String, path: String, documents: String
                let store: String, items: Int
            }
            Output.line(Output.json(Status(daemon: version, socket: socket, container: list.container, path: list.path,
                                           documents: list.documents, store: list.format.rawValue, items: count)))
            return
        }
        let location = switch list.format {
        case .files: "Documents/Item_<UUID>"
        case .package: "Documents/grocery.gro"
        case .relational: "the store \(GroceryTable.storeName): tables items and tags"
        }
        Output.line(Output.table(header: nil, rows: [
            ["daemon", "ubiquityd \(version) at \(socket)"],
            ["container", list.container],
            ["path", list.path],
            ["store", "\(list.format.rawValue) (\(location))"],
            ["items", String(count)],
        ]))
    }
}
