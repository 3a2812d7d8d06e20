import ArgumentParser
import CommandLineSupport
import UbiquityJSON
import UbiquityKit
import UbiquityPredicate
import UbiquityProtocol

/// `ubiq store fetch STORE TABLE`.
struct StoreFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Print the rows of a table, filtered, sorted and limited.",
        usage: "ubiq store fetch [<options>] <store> <table>",
        discussion: """
            Each --where is COLUMN OP VALUE with OP one of == != < <= > >=; all must hold. The \
            value is read as JSON when it is JSON (2, true, null, "text") and as text otherwise.

            --predicate filters with the predicate language of ubiq query over the table's \
            columns (with --where, both must hold): name BEGINSWITH 'car', quantity > 1, \
            created > '2026-01-01', done == NO, and a relationship end as the list of its related \
            rows' keys (a tag's name): tags CONTAINS 'mall', NONE tags == 'mall'. See \
            docs/predicates.md and docs/stores.md, "Fetching".

            --related END (repeatable) adds to each row the ids of its related rows through that \
            relationship end: tags for items, items for tags.

            Examples:
              $ ubiq store fetch grocery items --where 'quantity>=2' --sort name:desc
              00000000000000000000000000000001  name=carrots  quantity=2
              $ ubiq store fetch grocery items --predicate "name BEGINSWITH 'car'"
              00000000000000000000000000000001  name=carrots  quantity=2
              $ ubiq store fetch grocery items --predicate "tags CONTAINS 'mall'" --json
              {"id":"00000000000000000000000000000001","name":"carrots","quantity":2}
              $ ubiq store fetch grocery items --related tags --json
              {"id":"…","name":"carrots","quantity":2,"tags":["98471ebd…"]}
              $ ubiq store fetch grocery items --where 'name==bread' --json
              {"id":"…","name":"bread","quantity":1}

            With --json, one row per line.
            """
    )

    @OptionGroup var fetch: StoreFetchOptions

    func run() async throws {
        let options = fetch.options
        let parsed = try Self.conditions(fetch.conditions)
        let request = StoreFetch(container: options.container, store: fetch.store, table: fetch.table, where: parsed,
                                 predicate: fetch.predicate, related: fetch.related, sort: fetch.sort, limit: fetch.limit)
        let answer = try await options.connection.run(predicate: fetch.predicate) { try await $0.send(request) }
        if options.json {
            for row in answer.rows { Terminal.output(JSONLine.encode(row)) }
            return
        }
        for row in answer.rows { Terminal.output(Self.text(row)) }
    }

    /// Each `--where`, or a message and exit 2.
    static func conditions(_ texts: [String]) throws -> [StoreCondition] {
        var parsed: [StoreCondition] = []
        for text in texts {
            guard let condition = Self.condition(text) else {
                Terminal.error("--where '\(text)' is not COLUMN OP VALUE with OP one of == != < <= > >=")
                throw ExitCode(CommandFailure.invalidInput)
            }
            parsed.append(condition)
        }
        return parsed
    }

    /// `quantity>=2` as a condition; nil when no operator is there or the column is empty.
    static func condition(_ text: String) -> StoreCondition? {
        let bytes = Array(text.utf8)
        // Two-byte operators first, so that `<=` is not read as `<`.
        let operators: [ComparisonOperator] = [.equal, .notEqual, .lessOrEqual, .greaterOrEqual, .less, .greater]
        for op in operators {
            let symbol = Array(op.rawValue.utf8)
            guard let start = bytes.indices.first(where: { bytes[$0...].starts(with: symbol) }) else { continue }
            func trimmed(_ part: ArraySlice<UInt8>) -> String {
                String(decoding: part.drop { $0 == 0x20 }.reversed().drop { $0 == 0x20 }.reversed(), as: UTF8.self)
            }
            let column = trimmed(bytes[..<start]), value = trimmed(bytes[(start + symbol.count)...])
            guard !column.isEmpty else { return nil }
            let json = (try? JSONLine.decode(Array(value.utf8))) ?? .string(value)
            return StoreCondition(column, op, json)
        }
        return nil
    }

    /// `id  column=value …`, strings as they are, other values as JSON.
    static func text(_ row: JSONValue) -> String {
        guard case .object(let fields) = row else { return JSONLine.encode(row) }
        var parts = [fields["id"].map { if case .string(let id) = $0 { id } else { JSONLine.encode($0) } } ?? "?"]
        for key in fields.keys.sorted() where key != "id" {
            let value = fields[key]!
            if case .string(let s) = value { parts.append("\(key)=\(s)") } else { parts.append("\(key)=\(JSONLine.encode(value))") }
        }
        return DisplayText.oneLine(parts.joined(separator: "  "))
    }
}
