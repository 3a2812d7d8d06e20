import Testing
import UbiquityTesting

/// The `--help` of `grocery` and every subcommand, as a reader at an 80-column terminal sees it: it matches
/// Expected/ (regenerate with UPDATE_EXPECTED=1, see HelpPages), no line is wider than 80
/// columns, paragraphs are not hard-wrapped in the source and examples are not broken.
@Suite(.ownThreads) struct GroceryHelpPageTests {
    static let pages = HelpPages(grocery)

    @Test(arguments: try pages.commandPaths())
    func readsWellAt80Columns(path: [String]) throws {
        let problems = try Self.pages.problems(path)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test(arguments: try pages.commandPaths())
    func matchesExpectedPage(path: [String]) throws {
        let r = try Self.pages.page(path)
        #expect(r.status == 0)
        #expect(r.stdout == (try Self.pages.expectedPage(path, current: r.stdout)),
                "update Tests/groceryTests/Expected/\(Self.pages.expectedName(path)) if intended (UPDATE_EXPECTED=1)")
    }

    /// An expected page for every command and none for a command that is gone.
    @Test func everyCommandHasOneExpectedPage() throws {
        let expected = Set(try Self.pages.commandPaths().map(Self.pages.expectedName))
        #expect(expected == (try Self.pages.expectedNamesOnDisk()))
    }
}
