import ArgumentParser
import Foundation
import UbiquityKit
import UbiquityPredicate
import UbiquityProtocol

/// `--socket PATH`, shared by every command that talks to the daemon.
struct ConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The daemon's socket (default: $XDG_RUNTIME_DIR/ubiquity/ubiquityd.sock; /run/ubiquity/ubiquityd.sock for root).",
        valueName: "path"))
    var socket: String?

    var socketPath: String { socket ?? UbiquityConnection.defaultSocketPath }

    /// Connects, runs `body`, closes; every failure becomes a message and the documented exit status.
    func run<T: Sendable>(predicate: String? = nil, _ body: (UbiquityConnection) async throws -> T) async throws -> T {
        do {
            return try await UbiquityConnection.withConnection(to: socketPath, clientName: "ubiq", body)
        } catch {
            throw DaemonFailure.exit(for: error, predicate: predicate)
        }
    }
}

/// The exit statuses of commands that talk to the daemon (documented in `ubiq --help`).
enum DaemonFailure {
    static let daemonError: Int32 = 1
    static let invalidInput: Int32 = 2
    static let unreachable: Int32 = 3

    /// Codes that mean the user's input was wrong rather than the daemon refusing it.
    static func isInputError(_ code: ProtocolError.Code) -> Bool {
        code.rawValue.hasPrefix("predicate.") || code == .sortInvalid || code == .attributeUnknown
            || code == .containerInvalid || code == .requestMalformed
    }

    /// Prints `ubiq: <message> [<code>]` (with a caret under a predicate error's offset) and
    /// returns the exit code to throw.
    static func exit(for error: any Error, predicate: String?) -> any Error {
        switch error {
        case let error as ExitCode:
            return error
        case let error as UbiquityKitError:
            Terminal.error(error.description)
            return ExitCode(error.isUnreachable ? unreachable : daemonError)
        case let error as ProtocolError:
            var text = "\(error.message) [\(error.code)]"
            if let predicate, error.code.rawValue.hasPrefix("predicate."),
               case .integer(let offset)? = error.details["offset"] {
                text += Terminal.caret(under: Int(offset), in: predicate)
            }
            Terminal.error(text)
            return ExitCode(isInputError(error.code) ? invalidInput : daemonError)
        default:
            Terminal.error("\(error)")
            return ExitCode(daemonError)
        }
    }
}

/// Query input shared by `query` and `watch`.
struct QueryOptions: ParsableArguments {
    @Option(name: .customLong("container"), help: ArgumentHelp(
        "Search this container id (repeatable; default: every container you may read).", valueName: "id"))
    var containers: [String] = []

    @Option(help: ArgumentHelp("documents, data or all.", valueName: "scope"))
    var scope: String = "all"

    @Option(name: .customLong("sort"), help: ArgumentHelp(
        "Sort by KEY, or KEY:desc (repeatable; ties are broken by path).", valueName: "key[:desc]"))
    var sort: [String] = []

    @Option(name: .customLong("attr"), help: ArgumentHelp(
        "Show this attribute, any spelling (repeatable; default: name).", valueName: "key"))
    var attributes: [String] = []

    @Option(name: .customLong("var"), help: ArgumentHelp(
        "Bind $NAME in the predicate to VALUE, read as JSON when it is JSON (repeatable).", valueName: "NAME=VALUE"))
    var variables: [String] = []

    @Flag(help: "Print one JSON object per line instead of a table.")
    var json = false

    @Argument(help: ArgumentHelp(
        "The predicate, e.g. \"kMDItemFSName LIKE 'Item_*'\". Quote it for the shell.", valueName: "predicate"))
    var predicate: String

    @Argument(help: ArgumentHelp(
        "Values for %@, %K, %d and %f, in order; each is read as JSON when it is valid JSON (12, true, [\"a\"]), else as text.",
        valueName: "arg"))
    var arguments: [String] = []

    func validate() throws {
        guard MetadataQuery.SearchScope(rawValue: scope) != nil else {
            throw ValidationError("--scope must be documents, data or all, found '\(scope)'")
        }
        for binding in variables where binding.firstIndex(of: "=").map({ $0 == binding.startIndex }) ?? true {
            throw ValidationError("--var expects NAME=VALUE, found '\(binding)'")
        }
    }

    /// The columns shown: what was asked for, or the name.
    var shownAttributes: [String] { attributes.isEmpty ? ["name"] : attributes }

    func makeQuery(on connection: UbiquityConnection, live: Bool) -> MetadataQuery {
        let query = MetadataQuery(connection: connection, predicateFormat: predicate,
                                  arguments: arguments.map(Self.jsonOrText))
        query.containers = containers
        query.searchScopes = MetadataQuery.SearchScope(rawValue: scope) ?? .all
        query.sortDescriptors = sort.map { key in
            let lower = key.lowercased()
            for suffix in [":desc", ":descending"] where lower.hasSuffix(suffix) {
                return .init(key: String(key.dropLast(suffix.count)), ascending: false)
            }
            return .init(key: key, ascending: true)
        }
        query.attributes = shownAttributes
        var bound: [String: JSONValue] = [:]
        for binding in variables {
            let equals = binding.firstIndex(of: "=")!
            bound[String(binding[..<equals])] = Self.jsonOrText(String(binding[binding.index(after: equals)...]))
        }
        query.variables = bound
        query.isLive = live
        return query
    }

    /// `12` → 12, `true` → true, `["a"]` → an array, anything else → the text itself.
    static func jsonOrText(_ text: String) -> JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
    }
}

/// How items look on a terminal and in NDJSON.
enum ItemFormat {
    static func json(_ item: MetadataItem) -> JSONValue {
        var object: [String: JSONValue] = ["path": .string(item.path), "attributes": .object(item.attributes)]
        if let old = item.oldPath { object["oldPath"] = .string(old) }
        return .object(object)
    }

    /// One table cell: dates as local `YYYY-MM-DD HH:MM:SS`, lists comma-separated, missing as `-`.
    static func cell(_ item: MetadataItem, _ key: String) -> String {
        guard let value = item.value(forAttribute: key) else { return "-" }
        if let attribute = Attribute.named(key), attribute.type == .date,
           case .date(let seconds)? = try? Value(json: value, for: attribute) {
            return Terminal.shortDate(Date(timeIntervalSince1970: seconds))
        }
        switch value {
        case .null: return "-"
        case .bool(let b): return b ? "yes" : "no"
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return s
        case .array(let items): return items.map { cell(MetadataItem(path: "", attributes: ["v": $0]), "v") }.joined(separator: ", ")
        case .object: return (try? Terminal.json(value)) ?? "-"
        }
    }

    static func table(_ items: [MetadataItem], attributes: [String]) -> String {
        Terminal.table(header: attributes.map { $0.uppercased() } + ["PATH"],
                       rows: items.map { item in attributes.map { cell(item, $0) } + [item.path] })
    }
}
