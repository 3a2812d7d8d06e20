// The root of `ubiq` (UbiqCommands.swift says what the module owns); UbiqCommandLine runs it.
import ArgumentParser
import CommandLineSupport
import Glibc
import UbiquityProtocol

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
              ubiq kv set sortOrder name

            Exit status: 0 success, 1 the daemon refused the request, 2 invalid predicate or input, 3 \
            daemon not running or connection lost, 64 usage error.

            Language reference: docs/predicates.md; commands: docs/ubiq.md.
            """,
        version: UbiquityVersion.string,
        subcommands: [QueryCommand.self, WatchCommand.self, ContainersCommand.self, StatusCommand.self,
                      PredicateCommand.self, KVCommand.self, StoreCommand.self, PublishCommand.self,
                      EvictCommand.self, DownloadCommand.self, MoveInCommand.self, MoveOutCommand.self, RemoveCommand.self,
                      StorageCommand.self]
    )

    /// SIGPIPE is ignored from the start, so a reader that goes away early (`ubiq ... | head -1`)
    /// is an EPIPE (Terminal.write exits 0; print's buffered output is dropped) rather than death
    /// by signal; NIO would ignore it anyway once it opens the daemon's socket.
    static func main() async {
        MallocTuning.oneGrowingHeap()
        signal(SIGPIPE, SIG_IGN)
        await main(globalOptions.hoisted(Array(CommandLine.arguments.dropFirst())))
    }

    /// Options every daemon command takes, also accepted before the subcommand (`ubiq --socket P query …`).
    static let globalOptions = GlobalOptions(valued: ["--socket", "--timeout", "--container"], flags: ["--json"], groups: ["kv"])
}
