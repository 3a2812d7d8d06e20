import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import GroceryStore

/// `grocery watch`: the live list.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Show the list live: every item added, renamed or removed, by any process, as it happens.",
        usage: "grocery watch [<options>]",
        discussion: """
            Prints the list, then each change with the time it was seen:
              10:00:03  added    7B00  free-range eggs
              10:00:04  renamed  3F2A  milk → oat milk
              10:00:05  removed  7B00  free-range eggs

            On a terminal the list is redrawn with the latest changes under it; piped, lines are appended. \
            Ctrl-C (or SIGTERM) stops it with exit status 0.

            With --store relational each import of other devices' changes (or another process's save) \
            is announced with where it came from, then its changes (tagged: the item's tags now):
              10:00:07  from laptop: +2 ~1 −0

            If the daemon restarts, watch retries (100 ms, doubling to 2 s) until it is back, then asks \
            what changed since the last update it showed and shows just that:
              10:00:06  daemon went away, reconnecting… (…)
              10:00:08  reconnected; while you were away: +2 ~1 −1
            (or "re-gathered N items" when the daemon cannot tell, e.g. its saved index was lost).

            With --json, one object per line, first the list:
              {"kind":"gathered","count":…,"items":[…],"at":…}
            Then one per change, of kind added, renamed, removed, imageSet or imageRemoved:
              {"kind":"renamed","id":…,"shortID":…,"name":…,"oldName":…,"image":…,"at":…}
            Besides, the kinds reconnecting, resumed, regathered and notice say what happened to the \
            connection. In package mode, a package that cannot be read when the watch begins gives \
            a notice first, and the list follows at the first change that makes it readable.

            Example:
              $ grocery watch --json | jq -c 'select(.kind == "renamed")'
            """
    )

    @Option(help: ArgumentHelp(
        "Sort by name (case-insensitive) or by creation (oldest first); default: the order chosen with `grocery sort` when the watch starts, else name.",
        valueName: "order"))
    var sort: Choice<GroceryItemOrder>?

    @Option(help: ArgumentHelp(
        "Report changes at most once per SECONDS (default: the daemon's, 0.05; 0: at once).", valueName: "seconds"))
    var batching: Double?

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @OptionGroup var options: StoreOptions

    func validate() throws {
        if let batching, !(0...3600).contains(batching) {
            throw ValidationError("--batching must be between 0 and 3600 seconds, found \(batching)")
        }
    }

    func run() async throws {
        var live = GroceryLiveList(socketPath: options.socketPath, container: options.container,
                                   format: options.store.value, batchingInterval: batching)
        live.helloTimeout = .seconds(options.timeout)
        let style: WatchPrinter.Style = json ? .json : (Output.isTerminal ? .redraw : .append)
        let chosen = sort?.value
        let sort = if let chosen { chosen } else { try await options.withList { try await $0.sortOrder() } }
        let format = options.store.value, container = options.container
        let watching = Task {
            let printer = WatchPrinter(style: style, sort: sort, format: format, container: container)
            try await live.run { printer.show($0) }
        }
        // Ctrl-C and SIGTERM cancel the watch: the query stops, the connection closes, exit 0.
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { watching.cancel() }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        do {
            try await watching.value
        } catch is CancellationError {
            return
        } catch {
            throw Failure.exit(for: error)
        }
    }
}
