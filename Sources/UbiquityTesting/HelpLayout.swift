/// What makes a `--help` page read well, checked on the text the tool printed. Each check returns
/// the offending lines (none: the page is fine), so a failure shows what to fix.
///
/// A page is swift-argument-parser's layout: the overview (`OVERVIEW:` with the abstract, then the
/// discussion), `USAGE:`, then sections (`ARGUMENTS:`, `OPTIONS:`, `SUBCOMMANDS:`) of entries
/// whose label is indented two spaces. The parser wraps paragraphs at the terminal width and
/// keeps every newline of the source, so prose must be written as paragraphs (one line each)
/// and example lines must fit as they are.
public enum HelpLayout {
    /// Lines wider than `columns` characters.
    public static func overlongLines(_ page: String, columns: Int) -> [String] {
        lines(page).filter { $0.count > columns }
    }

    /// Prose lines of the overview that stop in the middle of a sentence, in a page rendered wide
    /// enough that the parser wrapped nothing: there every line break is the source's own, and
    /// a break inside a paragraph is a hard wrap that a narrower terminal turns into a short
    /// fragment (`row of` / `the one package`). Example lines (indented) are not prose.
    public static func hardWrappedProse(unwrapped page: String) -> [String] {
        overview(page).filter { line in
            guard let last = line.last, line.first != " " else { return false }
            return !".:!?".contains(last)
        }
    }

    /// Example lines (the overview's indented lines, as the source wrote them in `unwrapped`)
    /// that do not appear whole in `wrapped`: the parser broke them, as it did with
    /// `"size > %@"` / `1000`.
    public static func brokenExamples(unwrapped: String, wrapped: String) -> [String] {
        let shown = Set(overview(wrapped))
        return overview(unwrapped).filter { $0.first == " " && !shown.contains($0) }
    }

    /// Quoted text in the overview's prose (`"reconnected, re-gathered N items"`, a predicate)
    /// that the parser split across lines of `wrapped`: a reader cannot copy it whole.
    public static func brokenQuotations(unwrapped: String, wrapped: String) -> [String] {
        let shown = overview(wrapped)
        let quoted = overview(unwrapped).filter { $0.first != " " }.flatMap { line in
            line.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 && $0.element.contains(" ") }.map { "\"\($0.element)\"" }
        }
        return quoted.filter { quotation in !shown.contains { $0.contains(quotation) } }
    }

    /// Lines of the sections that do not start an entry, in a page rendered without wrapping:
    /// an argument's or option's help with a line break of its own.
    public static func brokenEntries(unwrapped page: String) -> [String] {
        sections(page).filter { line in
            guard !line.isEmpty, !line.hasSuffix(":") || line.first == " " else { return false }
            return !(line.hasPrefix("  ") && line.dropFirst(2).first != " ")
        }
    }

    /// The names of the subcommands a page lists (`check (default)` is `check`).
    public static func subcommands(_ page: String) -> [String] {
        let all = lines(page)
        guard let header = all.firstIndex(of: "SUBCOMMANDS:") else { return [] }
        return all[(header + 1)...].prefix { !$0.isEmpty }.compactMap { line in
            guard line.hasPrefix("  "), line.dropFirst(2).first != " " else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
    }

    /// The abstract and the discussion: every line before `USAGE:`.
    static func overview(_ page: String) -> [String] {
        Array(lines(page).prefix { !$0.hasPrefix("USAGE:") })
    }

    /// Every line after the usage (which ends at its first empty line).
    static func sections(_ page: String) -> [String] {
        let all = lines(page)
        guard let usage = all.firstIndex(where: { $0.hasPrefix("USAGE:") }),
              let end = all[usage...].firstIndex(of: "") else { return [] }
        return Array(all[end...])
    }

    static func lines(_ page: String) -> [String] {
        page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}
