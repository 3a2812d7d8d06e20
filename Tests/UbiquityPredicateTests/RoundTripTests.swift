import Testing
@testable import UbiquityPredicate

// The canonical printed form parses back to an equal predicate, and printing that gives the
// same text again (semantics: `MetadataPredicate(parsing: p.description) == p` for every valid p).

struct RoundTripCase: Sendable, CustomTestStringConvertible {
    let text: String
    let arguments: [Value]
    let variables: [String: Value]
    let line: Int
    var testDescription: String { "line \(line): \(text.debugDescription)" }
}

private func trip(_ text: String, args: [Value] = [], vars: [String: Value] = [:], line: Int = #line) -> RoundTripCase {
    RoundTripCase(text: text, arguments: args, variables: vars, line: line)
}

/// Parses `description` again and checks equality and a stable second printing.
func expectRoundTrip(_ p: MetadataPredicate, _ label: String) {
    let printed = p.description
    do {
        let reparsed = try MetadataPredicate(parsing: printed)
        #expect(reparsed == p, "\(label): printed \(printed.debugDescription) reparses to a different predicate: \(reparsed)")
        #expect(reparsed.description == printed,
                "\(label): printed twice differently: \(printed.debugDescription) then \(reparsed.description.debugDescription)")
    } catch {
        Issue.record("\(label): the printed form \(printed.debugDescription) does not parse: \(error)")
    }
}

enum RoundTrip {
    static let tricky: [RoundTripCase] = [
        // Strings: quotes, backslashes, newlines, control characters, combining marks, emoji, RTL.
        trip(#"name == 'it\'s "quoted"'"#),
        trip(#"name == "a \"b\" 'c'""#),
        trip(#"name == 'back\\slash\\'"#),
        trip(#"name == '\\\\server\\share'"#),
        trip(#"name == 'tab\tnew\nline\rcr'"#),
        trip("name == 'raw\nnewline'"),
        trip(#"name == '\u0007bell\u001Fus\u007Fdel\u0000nul'"#),
        trip(#"name == '\u0301abc'"#),                        // a combining mark right after the quote
        trip("name == %@", args: [.string("\u{301}")]),
        trip("name == %@", args: [.string("\u{301}\u{308}x\u{20DD}")]),
        trip("name == '😀🇫🇷👨‍👩‍👧👍🏽'"),
        trip("name == 'مرحبا بالعالم' OR name == 'שלום'"),
        trip(#"name == '\u200Fmark\u200E'"#),                  // RTL/LTR marks (format characters)
        trip(#"name == '\u2028\u2029'"#),
        trip(#"name == '\uFEFF'"#),
        trip(#"name == '\u{10FFFF}\u{E000}\u{FFFD}'"#),
        trip("name == %@", args: [.string("\u{85}next line")]),
        trip(#"name LIKE 'a\*b\?c\\d'"#),
        trip(#"name == 'Ite\*'"#),
        trip(#"name MATCHES '\d+\.txt'"#),
        trip("name == ''"),
        trip("name == '%@ $X #y'"),
        // Numbers.
        trip("size == 1e20"),
        trip("size == 1e+20"),
        trip("size == -0.5"),
        trip("size == -0.0"),
        trip("size == 0.1"),
        trip("size == 1.7976931348623157e308"),
        trip("size == 5e-324"),
        trip("size == 123456789.123456789"),
        trip("size == -9223372036854775808"),
        trip("size == 9223372036854775807"),
        trip("size > 0x7fffffffffffffff"),
        trip("size IN {1, 2.5, nil, -3e-7}"),
        trip("size == %f", args: [.double(1.0 / 3.0)]),
        // Dates, including fractions and the ends of the printable range.
        trip("modified == $time.iso(2026-11-22T10:00:00.123Z)"),
        trip("modified == $time.iso(2026-11-22T10:00:00.999999Z)"),
        trip("modified == $time.iso(2026-11-22T10:00:00.5+05:30)"),
        trip("modified == $time.iso(1969-12-31T23:59:59.5Z)"),
        trip("modified == $time.iso(1970-01-01T00:00:00.1Z)"),
        trip("modified == $time.iso(1980-06-15T08:30:00.25Z)"),
        trip("modified == $time.iso(1985-01-01T00:00:00.3Z)"),
        trip("modified == $time.iso(0001-01-01)"),
        trip("modified == $time.iso(9999-12-31T23:59:59Z)"),
        trip("modified == CAST(1e12, 'NSDate')"),
        trip("modified == CAST(-1e12, 'NSDate')"),
        trip("modified == CAST(0.1, 'NSDate')"),
        trip("modified == %@", args: [.date(0.1)]),
        trip("modified == %@", args: [.date(Clock.now + 0.000_001)]),
        trip("modified BETWEEN {$time.this_month(-1), $time.now(-100000000000)}"),
        trip("modified IN {$time.today, $time.yesterday(-3), $time.this_year(1000000)}"),
        trip("InRange(modified, $time.this_week(-2), '2026-11-22')"),
        // Logic.
        trip("NOT (NOT (name == 'a' OR NOT size == 1) AND (isHidden == YES OR (name == 'b' AND NOT size == 2)))"),
        trip("((name == 'a' AND size == 1) AND isHidden == NO)"),
        trip("name == 'a' OR (size == 1 OR isHidden == YES)"),
        trip("NOT NOT NOT name == 'a'"),
        trip("!(!name == 'a')"),
        trip("NOT TRUEPREDICATE OR (FALSEPREDICATE AND NOT FALSEPREDICATE)"),
        // Modifiers, quantifiers, membership, substitution, odd operand orders.
        trip("name ==[cdw] 'x' AND name == 'y*'cd AND name LIKE[n] 'z'"),
        trip("ANY tags LIKE[cd] 'a*' AND ALL tags IN {'a', 'b'} AND NONE tags == 'c'"),
        trip("'x' IN[c] tags AND tags CONTAINS[d] 'y'"),
        trip("%@ IN tags", args: [.string("red")]),
        trip("'x' == name AND nil == name AND 3 < size"),
        trip("name IN {}"),
        trip("name IN %@", args: [.list([])]),
        trip("isHidden == %@", args: [.string("yes")]),
        trip("%K == %@", args: [.string("size"), .string("3")]),
        trip("%K BETWEEN %@", args: [.string("modified"), .list([.string("2026-01-01"), .date(Clock.now)])]),
        trip("name == $N AND size IN $S", vars: ["N": .string("\"q\""), "S": .list([.integer(1), .double(2.5)])]),
        trip("modified > CAST('2026-11-22T10:00:00Z', 'NSDate') AND size == CAST('7', 'NSNumber')"),
        trip("name == CAST(2.5, 'NSString')"),
    ]

    /// (input, arguments, exact canonical form)
    static let canonical: [(String, [Value], String, Int)] = [
        ("name like 'Item_*' or size > 10 and isHidden == NO", [],
         #"kMDItemFSName LIKE "Item_*" OR (kMDItemFSSize > 10 AND kMDItemFSInvisible == FALSE)"#, #line),
        ("name == 'Item_*'cd", [], #"kMDItemFSName ==[cd] "Item_*""#, #line),
        ("name == \"Item_*\"dc", [], #"kMDItemFSName ==[cd] "Item_*""#, #line),
        ("name == 'list*'cw", [], #"kMDItemFSName ==[cw] "list*""#, #line),
        ("size = 3", [], "kMDItemFSSize == 3", #line),
        ("size <> 3", [], "kMDItemFSSize != 3", #line),
        ("size =< 3", [], "kMDItemFSSize <= 3", #line),
        ("size => 3", [], "kMDItemFSSize >= 3", #line),
        ("size<3", [], "kMDItemFSSize < 3", #line),
        ("InRange(size, 1, 3)", [], "kMDItemFSSize BETWEEN {1, 3}", #line),
        ("size between {1,3}", [], "kMDItemFSSize BETWEEN {1, 3}", #line),
        ("isHidden == 1", [], "kMDItemFSInvisible == TRUE", #line),
        ("isHidden == yes", [], "kMDItemFSInvisible == TRUE", #line),
        ("isHidden == %@", [.string("no")], "kMDItemFSInvisible == FALSE", #line),
        ("modified > '2026-11-22'", [], "kMDItemFSContentChangeDate > $time.iso(2026-11-22T00:00:00Z)", #line),
        ("modified > $time.today(-1)", [], "kMDItemFSContentChangeDate > $time.today(-1)", #line),
        ("modified >= $TIME.THIS_WEEK", [], "kMDItemFSContentChangeDate >= $time.this_week", #line),
        ("modified >= $time.this_year(0)", [], "kMDItemFSContentChangeDate >= $time.this_year", #line),
        ("modified == CAST(817034400, 'NSDate')", [], "kMDItemFSContentChangeDate == $time.iso(2026-11-22T10:00:00Z)", #line),
        ("modified == $time.iso(2026-11-22T12:00:00+02:00)", [],
         "kMDItemFSContentChangeDate == $time.iso(2026-11-22T10:00:00Z)", #line),
        ("modified BETWEEN {$time.today, $time.now(-60)}", [],
         "kMDItemFSContentChangeDate BETWEEN {$time.today, $time.now(-60)}", #line),
        ("size == 1e3", [], "kMDItemFSSize == 1000.0", #line),
        ("size == 0x10", [], "kMDItemFSSize == 16", #line),
        ("size == 0b11", [], "kMDItemFSSize == 3", #line),
        ("size == 2.", [], "kMDItemFSSize == 2.0", #line),
        ("size == .5", [], "kMDItemFSSize == 0.5", #line),
        ("size == -0.5", [], "kMDItemFSSize == -0.5", #line),
        ("size == 1e20", [], "kMDItemFSSize == 1e+20", #line),
        ("size == %f", [.integer(2)], "kMDItemFSSize == 2.0", #line),
        ("size == %d", [.string("7")], "kMDItemFSSize == 7", #line),
        ("%K == %@", [.string("size"), .string("3")], "kMDItemFSSize == 3", #line),
        ("NOT (name == 'a' AND size == 1)", [], #"NOT (kMDItemFSName == "a" AND kMDItemFSSize == 1)"#, #line),
        ("!name == 'a'", [], #"NOT kMDItemFSName == "a""#, #line),
        ("not not name == 'a'", [], #"NOT NOT kMDItemFSName == "a""#, #line),
        ("name == 'a' && size == 1 || isHidden == YES", [],
         #"(kMDItemFSName == "a" AND kMDItemFSSize == 1) OR kMDItemFSInvisible == TRUE"#, #line),
        ("name == 'a' AND size == 1 AND isHidden == YES", [],
         #"kMDItemFSName == "a" AND kMDItemFSSize == 1 AND kMDItemFSInvisible == TRUE"#, #line),
        ("name == 'a' OR (size == 1 OR isHidden == YES)", [],
         #"kMDItemFSName == "a" OR (kMDItemFSSize == 1 OR kMDItemFSInvisible == TRUE)"#, #line),
        ("NOT (name == 'a')", [], #"NOT kMDItemFSName == "a""#, #line),
        ("(TRUEPREDICATE)", [], "TRUEPREDICATE", #line),
        ("falsepredicate", [], "FALSEPREDICATE", #line),
        ("any tags == 'red'", [], #"ANY kMDItemUserTags == "red""#, #line),
        ("SOME tags == 'red'", [], #"ANY kMDItemUserTags == "red""#, #line),
        ("none tags == 'red'", [], #"NONE kMDItemUserTags == "red""#, #line),
        ("all tags BEGINSWITH 'r'", [], #"ALL kMDItemUserTags BEGINSWITH "r""#, #line),
        ("'red' IN tags", [], #""red" IN kMDItemUserTags"#, #line),
        ("tags CONTAINS[c] 'X'", [], #"kMDItemUserTags CONTAINS[c] "X""#, #line),
        ("name IN {'a', \"b\"}", [], #"kMDItemFSName IN {"a", "b"}"#, #line),
        ("3 < size", [], "3 < kMDItemFSSize", #line),
        ("NSMetadataItemFSNameKey == 'x'", [], #"kMDItemFSName == "x""#, #line),
        ("name == 'it\\'s'", [], #"kMDItemFSName == "it's""#, #line),
        ("name == 'a\"b'", [], #"kMDItemFSName == "a\"b""#, #line),
        (#"name == 'line\nbreak'"#, [], #"kMDItemFSName == "line\nbreak""#, #line),
        (#"name == 'back\\slash'"#, [], #"kMDItemFSName == "back\\slash""#, #line),
        (#"name LIKE 'a\*'"#, [], #"kMDItemFSName LIKE "a\\*""#, #line),
        ("name BEGINSWITH[dc] 'x'", [], #"kMDItemFSName BEGINSWITH[cd] "x""#, #line),
        ("name ==[cn] 'x'", [], #"kMDItemFSName ==[c] "x""#, #line),
        ("name ==[l] 'x'", [], #"kMDItemFSName == "x""#, #line),
        (#"name == '\u{200B}'"#, [], #"kMDItemFSName == "\u{200B}""#, #line),
        ("name == NULL", [], "kMDItemFSName == nil", #line),
        ("name == $N", [], #"kMDItemFSName == "x""#, #line),
    ]
}

@Suite("Round trip")
struct RoundTripTests {
    @Test("every valid conformance predicate round-trips", arguments: Conformance.all)
    func conformance(_ c: ConformanceCase) {
        // Cases the implementation rejects are reported by the conformance suite itself.
        guard let p = try? MetadataPredicate(parsing: c.text, arguments: c.arguments, variables: c.variables) else {
            return
        }
        expectRoundTrip(p, c.label)
    }

    @Test("tricky predicates round-trip", arguments: RoundTrip.tricky)
    func tricky(_ c: RoundTripCase) {
        do {
            let p = try MetadataPredicate(parsing: c.text, arguments: c.arguments, variables: c.variables)
            expectRoundTrip(p, c.testDescription)
        } catch {
            Issue.record("\(c.testDescription): does not parse: \(error)")
        }
    }

    @Test("exact canonical forms")
    func canonicalForms() {
        for (text, args, expected, line) in RoundTrip.canonical {
            do {
                let p = try MetadataPredicate(parsing: text, arguments: args, variables: ["N": .string("x")])
                #expect(p.description == expected, "line \(line): \(text.debugDescription) printed as \(p.description)")
                expectRoundTrip(p, "line \(line)")
            } catch {
                Issue.record("line \(line): \(text.debugDescription) does not parse: \(error)")
            }
        }
    }

    @Test("hand-built predicates with extreme values round-trip")
    func handBuilt() {
        var strings = [String]()
        strings.append(String(String.UnicodeScalarView((0..<128).map { Unicode.Scalar(UInt8($0)) })))   // all ASCII
        strings += ["\u{301}", "\"", "\\", "\\\"", "'", "\u{0}", "\u{7F}", "\u{85}", "\u{A0}", "\u{AD}", "\u{200D}",
                    "\u{2066}x\u{2069}", "\u{FEFF}", "\u{378}", "\u{E0041}", "\u{1F1FA}", "🇺🇸", "e\u{301}", "é",
                    "a\r\nb", "Ω", "\u{10FFFF}", "\u{FFFF}", "*?\\*", "%K %@ $x #y"]
        for s in strings {
            let p = MetadataPredicate.comparison(Comparison(.attribute(.name), .equal, .constant(.string(s))))
            expectRoundTrip(p, "string \(s.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        let doubles: [Double] = [0, -0.0, 1, -1, 0.1, -0.5, 1e20, 1e-20, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
                                 .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude,
                                 9_007_199_254_740_992, 1.0 / 3.0, 123_456_789.123_456_789, 2e15, 1e16, 4.35]
        for d in doubles {
            let p = MetadataPredicate.comparison(Comparison(.attribute(.size), .less, .constant(.double(d))))
            expectRoundTrip(p, "double \(d)")
        }
        for i: Int64 in [0, -1, .max, .min, .min + 1, 1 << 53, -(1 << 53) - 1] {
            let p = MetadataPredicate.comparison(Comparison(.attribute(.size), .greaterOrEqual, .constant(.integer(i))))
            expectRoundTrip(p, "integer \(i)")
        }
        let dates: [Double] = [Clock.now, Clock.now + 0.5, Clock.now + 0.123, 0, -0.5, 0.1, 1e-3, 3.25,
                               315_532_800.1, 978_307_200, 978_307_200.000_1, 1e9 + 0.3, -62_135_596_800,
                               -62_135_596_801, 253_402_300_799, 253_402_300_800, 1e15, -1e15, 1e15 + 0.5]
        for d in dates {
            let p = MetadataPredicate.comparison(Comparison(.attribute(.contentChangeDate), .greater, .constant(.date(d))))
            expectRoundTrip(p, "date \(d)")
        }
        for anchor in RelativeDate.Anchor.allCases {
            for offset: Int64 in [0, 1, -1, 1_000_000, -1_000_000] {
                let p = MetadataPredicate.comparison(Comparison(.attribute(.creationDate), .lessOrEqual,
                                                                .relativeDate(RelativeDate(anchor, offset: offset))))
                expectRoundTrip(p, "relative \(anchor) \(offset)")
            }
        }
        let options: [ComparisonOptions] = [[], .caseInsensitive, .diacriticInsensitive, .wordBased,
                                            [.caseInsensitive, .diacriticInsensitive, .wordBased]]
        for o in options {
            let p = MetadataPredicate.comparison(Comparison(.attribute(.name), .like, .constant(.string("x*")), options: o))
            expectRoundTrip(p, "options \(o.letters)")
        }
        let a = MetadataPredicate.comparison(Comparison(.attribute(.name), .equal, .constant(.string("a"))))
        let b = MetadataPredicate.comparison(Comparison(.attribute(.size), .equal, .constant(.integer(1))))
        let nested: [MetadataPredicate] = [
            .and([a, .and([b, a])]), .or([.or([a, b]), b]), .not(.not(a)), .not(.and([a, .or([b, .not(a)])])),
            .and([.not(.or([a, b])), .constant(true)]), .or([.constant(false), .and([.not(.constant(true)), a])]),
        ]
        for p in nested { expectRoundTrip(p, "nested \(p)") }
    }
}
