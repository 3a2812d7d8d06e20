import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import UbiquityKit
import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol

/// `ubiq watch`: the gathered results, then every change, like `mdfind -live`.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the results, then every change as it happens (like mdfind -live).",
        usage: "ubiq watch [<options>] <predicate> [<arg> ...]",
        discussion: """
            After the results, each change is one line (with the time only on a terminal):
              10:00:03 + /path/of/added
              10:00:04 ~ /path/now (was /path/before)
              10:00:05 - /path/of/removed

            With --json, one event object per line, named as in the protocol:
              {"event":"query.gatheringFinished","count":2,"results":[...],"clock":…}
              {"event":"query.update","added":[...],"changed":[],"removed":[],"clock":…}
            The other events are "query.reset", "query.resync", "query.unwatched", \
            "container.unavailable", "container.available" and "container.forbidden".

            A clock names the daemon's index as of an event. Given one with --since, the \
            watch starts with only what changed for the query since then (as + ~ - lines, or \
            "query.resumed" with --json), then goes on live; when the daemon cannot tell \
            (it restarted without its saved index, the clock is too old) it says why and \
            prints every result.

            With --freshness saved, a daemon that has just started answers at once from its \
            saved index ("query.unverified" with --json) instead of after checking the files; \
            what the check finds follows as changes, then "query.verified".

            Examples:
              $ ubiq watch --batching 0.5 --container com.example.grocery "name LIKE 'I*'"
              $ ubiq watch --since c1-3f2a9c0d5e7b1a44-17 "name LIKE 'I*'"
              $ ubiq watch --freshness saved "name LIKE 'I*'"

            Stops on Ctrl-C or SIGTERM (exit 0); exits 3 if the daemon goes away.
            """
    )

    @OptionGroup var query: QueryOptions

    @Option(help: ArgumentHelp(
        "Deliver changes at most once per SECONDS (default: the daemon's, 0.05; 0: at once).", valueName: "seconds"))
    var batching: Double?

    @Option(help: ArgumentHelp(
        "Start with what changed since CLOCK (a \"clock\" of an earlier watch --json), then go on live.",
        valueName: "clock"))
    var since: String?

    @Option(help: ArgumentHelp(
        "Which changes of a listed item to print: all (any edit of its content or metadata) or requested (only of the attributes shown, sorted by or tested).",
        valueName: "kind"))
    var changes: Changes = .all

    @Option(help: ArgumentHelp(
        "How fresh the first results must be: exact (after a daemon restart, wait for its check of the files) or saved (at once from its saved index, then corrected).",
        valueName: "kind"))
    var freshness: Freshness = .exact

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if let batching, !(0...3600).contains(batching) {
            throw ValidationError("--batching must be between 0 and 3600 seconds, found \(batching)")
        }
    }

    func run() async throws {
        let signals = Self.exitOnSignals()
        defer { signals.forEach { $0.cancel() } }
        let options = query, batching = batching, changes = changes, freshness = freshness
        // The results as of the clock are not known here: the difference is printed as it comes.
        let resume = since.map { MetadataQuery.ResumePoint(clock: $0, results: []) }
        try await connection.run(predicate: options.predicate) { connection in
            let metadataQuery = options.makeQuery(on: connection, live: true)
            metadataQuery.notificationBatchingInterval = batching
            metadataQuery.reportsChangesOfRequestedAttributesOnly = changes == .requested
            metadataQuery.freshness = freshness == .saved ? .saved : .exact
            for try await notification in try await metadataQuery.start(resumingFrom: resume) {
                Self.print(notification, clock: metadataQuery.clockOfLastNotification, options: options)
            }
            // The stream only ends normally when the daemon stops the query.
            Terminal.error("the daemon stopped the query")
        }
    }

    /// SIGINT and SIGTERM end the watch cleanly with status 0; the daemon drops the query when
    /// the socket closes.
    static func exitOnSignals() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Glibc.exit(0) }
            source.resume()
            return source
        }
    }

    static func print(_ notification: MetadataQuery.Notification, clock: String?, options: QueryOptions) {
        let now = Date()
        if options.json {
            guard let event = json(notification) else { return }
            var object = event
            object["time"] = .string(ISODate.format(now.timeIntervalSince1970.rounded(.down)))
            if let clock, Self.carriesClock(notification) { object["clock"] = .string(clock) }
            if let line = try? Terminal.json(.object(object)) { Terminal.output(line) }
            return
        }
        let stamp = Terminal.isTerminal ? Terminal.clock(now) + " " : ""
        switch notification {
        case .didFinishGathering(let results), .didReset(let results):
            if case .didReset = notification { Terminal.output(stamp + "reset: the daemon resent every result") }
            if !results.isEmpty { Terminal.output(ItemFormat.table(results, attributes: options.shownAttributes)) }
            if Terminal.isTerminal { Terminal.error("\(results.count) items; watching for changes (Ctrl-C to stop)") }
        case .couldNotResume(let code, let reason):
            Terminal.error("cannot tell what changed since that clock (\(code): \(reason)); here is every result")
        case .didUpdate(let added, let changed, let removed), .didResume(let added, let changed, let removed):
            let shown = DisplayText.oneLine
            for item in added { Terminal.output(stamp + "+ " + shown(item.path)) }
            for item in changed {
                Terminal.output(stamp + "~ " + shown(item.path) + (item.oldPath.map { " (was \(shown($0)))" } ?? ""))
            }
            for item in removed { Terminal.output(stamp + "- " + shown(item.path)) }
        case .resync(let container, let reason, let changes):
            Terminal.error("\(container) was rescanned (\(reason)); \(changes) changes")
        case .unwatched(let container, let path, let reason):
            Terminal.error("\(container): \(DisplayText.oneLine(path)) is not watched (\(reason)); it is rescanned periodically")
        case .containerUnavailable(let container):
            Terminal.error("\(container) is unavailable")
        case .containerAvailable(let container):
            Terminal.error("\(container) is available again")
        case .containerForbidden(let container):
            Terminal.error("\(container): you may no longer read this container (its owner or group changed); the query stopped")
        case .unverified:
            Terminal.error("the daemon just started: these are the results as it last saved them; what its check of the files finds follows")
        case .didVerify:
            Terminal.error("the daemon has checked the files: the results are current")
        case .didStartGathering, .gatheringProgress:
            break
        }
    }

    /// The --json names of the two resumption events and of an unverified answer's mark (ubiq's
    /// own: on the wire each is a `query.gatheringFinished`).
    static let resumed = "query.resumed", couldNotResume = "query.couldNotResume", unverified = "query.unverified"

    /// Whether the query's clock after this notification is the one the event brought.
    static func carriesClock(_ notification: MetadataQuery.Notification) -> Bool {
        switch notification {
        case .didFinishGathering, .didReset, .didUpdate, .didResume: true
        default: false
        }
    }

    static func json(_ notification: MetadataQuery.Notification) -> [String: JSONValue]? {
        func items(_ list: [MetadataItem]) -> JSONValue { .array(list.map(ItemFormat.json)) }
        switch notification {
        case .didStartGathering, .gatheringProgress: return nil
        case .didFinishGathering(let results), .didReset(let results):
            let name = if case .didReset = notification { ServerEvent.names.reset } else { ServerEvent.names.gatheringFinished }
            return ["event": .string(name), "count": .integer(Int64(results.count)), "results": items(results)]
        case .didUpdate(let added, let changed, let removed):
            return ["event": .string(ServerEvent.names.update), "added": items(added), "changed": items(changed), "removed": items(removed)]
        case .didResume(let added, let changed, let removed):
            return ["event": .string(Self.resumed), "added": items(added), "changed": items(changed), "removed": items(removed)]
        case .couldNotResume(let code, let reason):
            return ["event": .string(Self.couldNotResume), "code": .string(code), "reason": .string(reason)]
        case .unverified:
            return ["event": .string(Self.unverified)]
        case .didVerify:
            return ["event": .string(ServerEvent.names.verified)]
        case .resync(let container, let reason, let changes):
            return ["event": .string(ServerEvent.names.resync), "container": .string(container), "reason": .string(reason),
                    "changes": .integer(Int64(changes))]
        case .unwatched(let container, let path, let reason):
            return ["event": .string(ServerEvent.names.unwatched), "container": .string(container), "path": .string(path), "reason": .string(reason)]
        case .containerUnavailable(let container):
            return ["event": .string(ServerEvent.names.containerUnavailable), "container": .string(container)]
        case .containerAvailable(let container):
            return ["event": .string(ServerEvent.names.containerAvailable), "container": .string(container)]
        case .containerForbidden(let container):
            return ["event": .string(ServerEvent.names.containerForbidden), "container": .string(container)]
        }
    }
}

extension WatchCommand {
    /// `--changes`: the protocol's `changes` of `query.start`.
    enum Changes: String, ExpressibleByArgument, CaseIterable {
        case all, requested
    }

    /// `--freshness`: the protocol's `freshness` of `query.start`.
    enum Freshness: String, ExpressibleByArgument, CaseIterable {
        case exact, saved
    }
}
