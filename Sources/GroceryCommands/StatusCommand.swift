import ArgumentParser
import CommandLineSupport
import FoundationEssentials
import GroceryStore
import UbiquityProtocol

/// `grocery status`: is the daemon there, which container, where, how many items.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say whether the daemon is reachable, which container the list is in, how many items it has, and where the other devices stand.",
        usage: "grocery status [<options>]",
        discussion: """
            Example:
              $ grocery status
              daemon     ubiquityd 0.4.0 at /run/user/1000/ubiquity/ubiquityd.sock
              container  com.example.grocery
              path       /home/me/.local/share/ubiquity/containers/com.example.grocery
              store      files (Documents/Item_<UUID>)
              items      3
              sync       no sync engine shares the container: this machine only

            With a sync engine (ubiquityd.toml's [sync]) the last lines are the other devices that share \
            the container, and how many of its files each still needs:
              sync       syncthing
              device     MFZWI3D  connected  has everything
              device     P56IOI7  offline    needs 2 files

            When the daemon is not running, says how to start it and exits 3.
            """
    )

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let (version, list, count, sync) = try await options.withList { list in
            (list.connection.hello.version, (container: list.container, path: list.containerPath,
                                             documents: list.documents, format: list.format),
             try await list.items(dates: false).count, try await list.syncDevices())
        }
        let socket = options.socketPath
        if json {
            struct Device: Encodable { let device: String, connected: Bool, needs: Int }
            struct Status: Encodable {
                let daemon: String, socket: String, container: String, path: String, documents: String
                let store: String, items: Int, sync: String, devices: [Device]
            }
            Output.line(Output.json(Status(daemon: version, socket: socket, container: list.container, path: list.path,
                                           documents: list.documents, store: list.format.rawValue, items: count, sync: sync.sync,
                                           devices: sync.devices.map { Device(device: $0.device, connected: $0.connected, needs: $0.needs) })))
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
        ] + Self.syncRows(sync.sync, sync.devices)))
    }

    /// The sync lines: the engine's view of the other devices, or why there is none.
    static func syncRows(_ sync: String, _ devices: [StorageResult.Container.Device]) -> [[String]] {
        switch sync {
        case "none": return [["sync", "no sync engine shares the container: this machine only"]]
        case "unknown": return [["sync", "unknown: the sync engine cannot be asked now (`ubiq status` says why)"]]
        default:
            guard !devices.isEmpty else { return [["sync", "syncthing, shared with no other device yet"]] }
            return [["sync", "syncthing"]] + devices.map { device in
                let needs = device.needs == 0 ? "has everything" : "needs \(counted(device.needs, "file"))"
                return ["device", "\(device.device.prefix(7))  \(device.connected ? "connected" : "offline  ")  \(needs)"]
            }
        }
    }
}
