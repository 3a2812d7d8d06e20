import ArgumentParser
import CommandLineSupport
import FoundationEssentials
import UbiquityJSON
import UbiquityPredicate

/// `ubiq predicate ...`: write and debug predicates without a daemon.
struct PredicateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predicate",
        abstract: "Check, evaluate and explore predicates (no daemon needed).",
        subcommands: [Check.self, Eval.self, Attributes.self]
    )
}

extension PredicateCommand {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Parse and type-check a predicate; print its canonical form.",
            usage: "ubiq predicate check [<options>] <predicate> [<arg> ...]",
            discussion: """
                Prints the canonical form, which shows how the predicate was read:
                  $ ubiq predicate check "name like 'Item_*' or size > 10 and size < 99"
                  kMDItemFSName LIKE "Item_*" OR (kMDItemFSSize > 10 AND kMDItemFSSize < 99)

                Errors go to standard error with their position, and the exit status is 2.
                """
        )

        @OptionGroup var input: PredicateInput

        @Flag(help: "Print a JSON object with the canonical form and the name-index hint.")
        var json = false

        func run() throws {
            let predicate = try input.parsedPredicate()
            guard json else {
                print(predicate.description)
                return
            }
            var object: [String: JSONValue] = ["canonical": .string(predicate.description)]
            if let hint = predicate.nameHint {
                object["nameHint"] = .object([
                    "caseInsensitive": .bool(hint.caseInsensitive),
                    "exact": .array(hint.constraints.compactMap {
                        if case .exact(let s) = $0 { return .string(s) } else { return nil }
                    }),
                    "prefix": .array(hint.constraints.compactMap {
                        if case .prefix(let s) = $0 { return .string(s) } else { return nil }
                    }),
                ])
            } else {
                object["nameHint"] = .null
            }
            print(try Terminal.json(.object(object)))
        }
    }

    struct Eval: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "eval",
            abstract: "Evaluate a predicate against one item given as JSON; print true or false.",
            usage: "ubiq predicate eval --item <json> [<options>] <predicate> [<arg> ...]",
            discussion: """
                The item is a JSON object of attribute name (any spelling) to value. Dates are ISO-8601 \
                strings, lists are arrays of strings:
                  $ ubiq predicate eval "name LIKE 'Item_*' AND modified > \\$time.today(-1)" \\
                      --item '{"name": "Item_1", "modified": "2026-11-22T09:00:00Z"}' \\
                      --now 2026-11-22T10:00:00Z
                  true
                """
        )

        @OptionGroup var input: PredicateInput

        @Option(help: ArgumentHelp("The item, as a JSON object.", valueName: "json"))
        var item: String

        @Option(help: ArgumentHelp(
            "The clock for $time expressions, as ISO 8601 (default: the current time).", valueName: "iso8601"))
        var now: String?

        @Option(help: ArgumentHelp(
            "Time zone whose midnight starts $time.today, e.g. UTC or Europe/Paris (default: local).",
            valueName: "zone"))
        var timeZone: String?

        func run() throws {
            let predicate = try input.parsedPredicate()
            var context = EvaluationContext()
            if let now {
                guard let seconds = ISO8601.parse(now) else {
                    throw ValidationError("--now: expected an ISO-8601 time such as 2026-11-22T10:00:00Z, found '\(now)'")
                }
                context.now = seconds
            }
            if let timeZone {
                // The C library's zone rules, chosen for this process (nothing else here reads the clock's zone).
                guard LocalTime.use(zone: timeZone) else {
                    throw ValidationError("--time-zone: unknown time zone '\(timeZone)' (a name from /usr/share/zoneinfo, e.g. Europe/Paris, or UTC)")
                }
                context.timeZone = .local
            }
            let decoded: JSONValue
            do {
                decoded = try JSONDecoder().decode(JSONValue.self, from: Data(item.utf8))
            } catch {
                Terminal.error("--item: not valid JSON (\(Terminal.jsonProblem(error)))")
                throw ExitCode(2)
            }
            guard case .object(let object) = decoded else {
                Terminal.error("--item: expected a JSON object such as {\"name\": \"Item_1\"}, found \(decoded.kindNoun)")
                throw ExitCode(2)
            }
            let values: AttributeDictionary
            do {
                values = try AttributeDictionary(json: object)
            } catch {
                Terminal.error("--item: \(error)")
                throw ExitCode(2)
            }
            print(predicate.evaluate(values, context: context) ? "true" : "false")
        }
    }

    struct Attributes: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attributes",
            abstract: "List every attribute with its aliases and type."
        )

        @Flag(help: "Print JSON lines instead of a table.")
        var json = false

        func run() throws {
            if json {
                for attribute in Attribute.all {
                    print(try Terminal.json(.object([
                        "name": .string(attribute.canonicalName),
                        "aliases": .array(attribute.aliases.map(JSONValue.string)),
                        "type": .string(attribute.type.rawValue),
                        "summary": .string(attribute.summary),
                    ])))
                }
                return
            }
            let rows = Attribute.all.map { a in
                [a.canonicalName, a.type.rawValue, a.aliases.joined(separator: ", ")]
            }
            print(Terminal.table(header: ["ATTRIBUTE", "TYPE", "ALIASES"], rows: rows))
        }
    }
}
