// `ubiq`: the query CLI, like `mdfind`. Argument parsing and wiring only; the language lives in
// UbiquityPredicate, and daemon queries (query, watch, status) will live in UbiquityKit.
import ArgumentParser

@main
struct Ubiq: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ubiq",
        abstract: "Query Ubiquity containers with Spotlight-style predicates.",
        discussion: """
            Predicates use NSPredicate / Spotlight syntax, for example:
              kMDItemFSName LIKE 'Item_*'
              name ENDSWITH[c] '.txt' AND size > 1000
              modified >= $time.today(-7)

            Exit status: 0 success, 2 invalid predicate or input, 64 usage error.
            Language reference: docs/predicates.md.
            """,
        version: UbiqVersion.string,
        subcommands: [PredicateCommand.self]
    )
}

enum UbiqVersion {
    static let string = "0.1.0"
}
