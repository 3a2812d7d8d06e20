import Testing
import UbiquityTesting

/// The checks behind every tool's HelpPageTests, on the two breakages the issue quotes: each
/// must flag its page, or those tests could not fail.
@Suite struct HelpLayoutTests {
    /// `grocery --help` as it was: the discussion hard-wrapped in the source at ~95 columns.
    static let hardWrapped = """
        OVERVIEW: A shopping list kept in a Ubiquity container, live across processes.

        Each item is a file Documents/Item_<UUID> holding its name (the default), or a row of
        the one package Documents/grocery.gro that also holds pictures (--store package).

        USAGE: grocery <subcommand>

        """

    @Test func aParagraphBrokenInTheSourceIsFound() {
        #expect(HelpLayout.hardWrappedProse(unwrapped: Self.hardWrapped)
            == ["Each item is a file Documents/Item_<UUID> holding its name (the default), or a row of"])
        let asParagraph = Self.hardWrapped.replacingOccurrences(of: "a row of\nthe", with: "a row of the")
        #expect(HelpLayout.hardWrappedProse(unwrapped: asParagraph) == [])
    }

    /// `ubiq query --help`'s example, one line in the source, wrapped by the parser at 80 columns.
    @Test func anExampleWrappedByTheParserIsFound() {
        let example = #"  $ ubiq query --container com.example.grocery --scope documents "size > %@" 1000"#
        let unwrapped = "OVERVIEW: Run a query once.\n\nExamples:\n\(example)\n\nUSAGE: ubiq query\n"
        let wrapped = "OVERVIEW: Run a query once.\n\nExamples:\n\(example.dropLast(5))\n1000\n\nUSAGE: ubiq query\n"
        #expect(HelpLayout.brokenExamples(unwrapped: unwrapped, wrapped: wrapped) == [example])
        #expect(HelpLayout.brokenExamples(unwrapped: unwrapped, wrapped: unwrapped) == [])
        #expect(HelpLayout.overlongLines(unwrapped, columns: 80) == [example])
    }

    @Test func quotedTextSplitByTheParserIsFound() {
        let unwrapped = "OVERVIEW: Watch.\n\nThen it says \"reconnected, re-gathered N items\" and goes on.\n\nUSAGE: x\n"
        let wrapped = "OVERVIEW: Watch.\n\nThen it says \"reconnected, re-gathered\nN items\" and goes on.\n\nUSAGE: x\n"
        #expect(HelpLayout.brokenQuotations(unwrapped: unwrapped, wrapped: wrapped) == ["\"reconnected, re-gathered N items\""])
        #expect(HelpLayout.brokenQuotations(unwrapped: unwrapped, wrapped: unwrapped) == [])
    }

    @Test func aHelpStringWithItsOwnLineBreakIsFound() {
        let page = """
            USAGE: ubiq query <predicate>

            OPTIONS:
              --scope <scope>         documents, data
                                      or all.
              -h, --help              Show help information.

            """
        #expect(HelpLayout.brokenEntries(unwrapped: page) == ["                          or all."])
    }

    @Test func subcommandsAreReadFromTheirSection() {
        let page = "USAGE: ubiq predicate <subcommand>\n\nSUBCOMMANDS:\n  check (default)         Parse.\n"
            + "  eval                    Evaluate a\n                          predicate.\n\n  See 'ubiq help'.\n"
        #expect(HelpLayout.subcommands(page) == ["check", "eval"])
    }
}
