// `ubiq`: the query CLI, like `mdfind`. Argument parsing and wiring only; the language lives in
// UbiquityPredicate, and talking to the daemon (query, watch, containers, status) in UbiquityKit.
import ArgumentParser
import Glibc

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

            Examples:
              ubiq query "name LIKE 'Item_*'" --attr name --attr size
              ubiq watch --container com.example.grocery "name LIKE 'Item_*'"
              ubiq status

            Exit status: 0 success, 1 the daemon refused the request, 2 invalid predicate
            or input, 3 daemon not running or connection lost, 64 usage error.
            Language reference: docs/predicates.md; commands: docs/ubiq.md.
            """,
        version: UbiqVersion.string,
        subcommands: [QueryCommand.self, WatchCommand.self, ContainersCommand.self, StatusCommand.self,
                      PredicateCommand.self]
    )

    /// SIGPIPE is ignored from the start, so a reader that goes away early (`ubiq ... | head -1`)
    /// is an EPIPE (Terminal.write exits 0; print's buffered output is dropped) rather than death
    /// by signal; NIO would ignore it anyway once it opens the daemon's socket.
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        await main(nil)
    }
}

enum UbiqVersion {
    static let string = "0.1.0"
}
