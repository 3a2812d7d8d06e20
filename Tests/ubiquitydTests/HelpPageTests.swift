import Testing
import UbiquityTesting

/// The `ubiquityd` built beside this test bundle.
let daemon = BuiltExecutable("ubiquityd")

/// The `--help` of `ubiquityd`, as a reader at an 80-column terminal sees it: it matches
/// Snapshots/ (regenerate with UPDATE_SNAPSHOTS=1, see HelpPages), no line is wider than 80
/// columns, paragraphs are not hard-wrapped in the source and examples are not broken.
@Suite(.ownThreads) struct DaemonHelpPageTests {
    static let pages = HelpPages(daemon)

    @Test(arguments: try pages.commandPaths())
    func readsWellAt80Columns(path: [String]) throws {
        let problems = try Self.pages.problems(path)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test(arguments: try pages.commandPaths())
    func matchesSnapshot(path: [String]) throws {
        let r = try Self.pages.page(path)
        #expect(r.status == 0)
        #expect(r.stdout == (try Self.pages.snapshot(path, current: r.stdout)),
                "update Tests/ubiquitydTests/Snapshots/\(Self.pages.snapshotName(path)) if intended (UPDATE_SNAPSHOTS=1)")
    }

    /// A snapshot for every command and none for a command that is gone.
    @Test func everyCommandHasOneSnapshot() throws {
        let expected = Set(try Self.pages.commandPaths().map(Self.pages.snapshotName))
        #expect(expected == (try Self.pages.snapshotNamesOnDisk()))
    }
}
