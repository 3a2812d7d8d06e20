import ArgumentParser
import CommandLineSupport
import GroceryStore

/// `--container`, `--socket`, `--timeout` and `--store`, shared by every command.
struct StoreOptions: ParsableArguments {
    static let defaultContainer = "com.example.grocery"

    @Option(help: ArgumentHelp("The container holding the list.", valueName: "id"))
    var container: String = StoreOptions.defaultContainer

    /// `--socket` and `--timeout`, as `ubiq` has them.
    @OptionGroup var daemon: DaemonOptions

    @Option(help: ArgumentHelp("files (one file per item), package (Documents/grocery.gro, with images) or relational (the container's store, with tags).",
                               valueName: "format"))
    var store: Choice<GroceryStorageFormat> = .init(.files)

    var socketPath: String { daemon.socketPath }
    var timeout: Int { daemon.timeout }

    /// Opens the list, runs `body`, closes; every failure becomes a message and the exit status.
    func withList<T: Sendable>(_ body: (GroceryList) async throws -> T) async throws -> T {
        do {
            let list = try await GroceryList.open(socketPath: socketPath, container: container, format: store.value,
                                                  helloTimeout: daemon.helloTimeout)
            do {
                let result = try await body(list)
                await list.close()
                return result
            } catch {
                await list.close()
                throw error
            }
        } catch {
            throw Failure.exit(for: error)
        }
    }
}
