import ArgumentParser
import FoundationEssentials
import UbiquityKit
import UbiquityJSON
import UbiquityProtocol

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
