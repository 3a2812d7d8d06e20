import Foundation

/// Every `--help` page of a built tool (the tool itself and each subcommand, found by following
/// the SUBCOMMANDS sections), as a reader sees it, and the committed expected page of each.
///
/// Expected pages live in `Expected/<name>-help.txt` beside the test file (`ubiq-help.txt` for the
/// tool, `predicate-check-help.txt` for `ubiq predicate check`). To regenerate them after an
/// intended change, run the tests with `UPDATE_EXPECTED=1` in the environment and review the diff:
///
/// ```
/// UPDATE_EXPECTED=1 swift test --skip-build --filter HelpPageTests
/// ```
public struct HelpPages: Sendable {
    /// Pages are checked and compared at a classic terminal's width.
    public static let columns = 80
    /// So wide that the parser wraps nothing: each line is printed as the source wrote it.
    public static let unwrappedColumns = 10_000

    public let tool: BuiltExecutable
    /// The test source whose `Expected/` folder holds the pages (``ExpectedOutput``).
    let testFile: String

    public init(_ tool: BuiltExecutable, expectedBeside file: String = #filePath) {
        self.tool = tool
        testFile = file
    }

    /// `<tool> <path> --help` with COLUMNS set (swift-argument-parser reads the width from it).
    public func page(_ path: [String], columns: Int = HelpPages.columns) throws -> CLIResult {
        try tool.run(path + ["--help"], environment: ["COLUMNS": String(columns)])
    }

    /// `<tool> help <path>`: the other way to ask for a subcommand's page.
    public func helpCommandPage(_ path: [String]) throws -> CLIResult {
        try tool.run(["help"] + path, environment: ["COLUMNS": String(Self.columns)])
    }

    /// What is wrong with the page of `path`, one sentence per problem with the line at fault:
    /// a failed run, a line wider than ``columns``, a hard-wrapped paragraph, a broken example
    /// or help entry (``HelpLayout``), or `help <path>` printing something else than `--help`.
    public func problems(_ path: [String]) throws -> [String] {
        let wrapped = try page(path), unwrapped = try page(path, columns: Self.unwrappedColumns)
        var problems: [String] = []
        for run in [wrapped, unwrapped] where run.status != 0 || !run.stderr.isEmpty {
            problems.append("--help exited \(run.status): \(run.stderr)")
        }
        problems += HelpLayout.overlongLines(wrapped.stdout, columns: Self.columns)
            .map { "wider than \(Self.columns) columns: \($0)" }
        problems += HelpLayout.hardWrappedProse(unwrapped: unwrapped.stdout)
            .map { "a paragraph broken mid-sentence in the source (write it as one line): \($0)" }
        problems += HelpLayout.brokenExamples(unwrapped: unwrapped.stdout, wrapped: wrapped.stdout)
            .map { "an example line wrapped at \(Self.columns) columns (shorten it): \($0)" }
        problems += HelpLayout.brokenQuotations(unwrapped: unwrapped.stdout, wrapped: wrapped.stdout)
            .map { "quoted text split across lines at \(Self.columns) columns (reword around it): \($0)" }
        problems += HelpLayout.brokenEntries(unwrapped: unwrapped.stdout)
            .map { "a help string with a line break of its own: \($0)" }
        if !path.isEmpty, try helpCommandPage(path).stdout != wrapped.stdout {
            problems.append("`help \(path.joined(separator: " "))` differs from `--help`")
        }
        return problems
    }

    /// `[]` for the tool, then every subcommand path (`["predicate", "check"]`), breadth first.
    public func commandPaths() throws -> [[String]] {
        var found: [[String]] = []
        var queue: [[String]] = [[]]
        while !queue.isEmpty {
            let path = queue.removeFirst()
            found.append(path)
            let listed = HelpLayout.subcommands(try page(path, columns: Self.unwrappedColumns).stdout)
            queue += listed.map { path + [$0] }
        }
        return found
    }

    public func expectedName(_ path: [String]) -> String {
        (path.isEmpty ? [tool.url.lastPathComponent] : path).joined(separator: "-") + "-help.txt"
    }

    /// The expected help pages committed, to find those of commands that no longer exist.
    public func expectedNamesOnDisk() throws -> Set<String> {
        Set(try ExpectedOutput.names(beside: testFile).filter { $0.hasSuffix("-help.txt") })
    }

    /// The committed expected page of `path`; with UPDATE_EXPECTED=1, `current` is written there first.
    public func expectedPage(_ path: [String], current: String) throws -> String {
        try ExpectedOutput.text(expectedName(path), beside: testFile, current: current)
    }
}
