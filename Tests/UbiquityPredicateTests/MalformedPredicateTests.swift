import Testing
@testable import UbiquityPredicate

// Malformed predicates: each asserts the exact error code, the exact offset (0-based, in Unicode
// scalars) and a distinctive part of the message, and that `description` is
// "predicate error at OFFSET: MESSAGE".

struct MalformedCase: Sendable, CustomTestStringConvertible {
    let text: String
    let arguments: [Value]
    let variables: [String: Value]
    let code: String
    /// The exact offset, or a range when the semantics leave the exact scalar open (regex errors).
    let offsets: ClosedRange<Int>
    let message: String
    /// When true, `message` must be the whole message, not just a part of it.
    let exactMessage: Bool
    let line: Int

    var testDescription: String {
        let shown = text.count > 60 ? String(text.prefix(57)) + "..." : text
        return "line \(line): \(shown.debugDescription)"
    }
}

private func bad(
    _ text: String, _ code: String, at offset: Int, _ message: String, exact: Bool = false,
    args: [Value] = [], vars: [String: Value] = [:], line: Int = #line
) -> MalformedCase {
    MalformedCase(text: text, arguments: args, variables: vars, code: code, offsets: offset...offset,
                  message: message, exactMessage: exact, line: line)
}

private func bad(
    _ text: String, _ code: String, within offsets: ClosedRange<Int>, _ message: String,
    args: [Value] = [], line: Int = #line
) -> MalformedCase {
    MalformedCase(text: text, arguments: args, variables: [:], code: code, offsets: offsets, message: message,
                  exactMessage: false, line: line)
}

private let syntax = "predicate.syntax"
private let unknown = "predicate.unknownAttribute"
private let type = "predicate.type"
private let argument = "predicate.argument"
private let unbound = "predicate.unboundVariable"
private let regex = "predicate.regex"
private let tooComplex = "predicate.tooComplex"

enum Malformed {
    static let syntaxCases: [MalformedCase] = [
        bad("", syntax, at: 0, "expected a predicate, found an empty string", exact: true),
        bad("name == 'abc", syntax, at: 8, "unterminated string: no closing ' before end of predicate", exact: true),
        bad("name == \"abc", syntax, at: 8, "unterminated string: no closing \" before end of predicate", exact: true),
        bad(#"name == 'it\'s"#, syntax, at: 8, "unterminated string"),
        bad("name == 'naïve", syntax, at: 8, "unterminated string"),
        bad("name ==", syntax, at: 7, "expected a value after ==, found end of predicate", exact: true),
        bad("(name LIKE )", syntax, at: 11, "expected a value after LIKE, found ')'", exact: true),
        bad("== 'x'", syntax, at: 0, "expected a value"),
        bad("name 'x'", syntax, at: 5, "after name, found string \"x\""),
        bad("name 'x'", syntax, at: 5, "expected an operator"),
        bad("size", syntax, at: 4, "expected an operator"),
        bad("(name == 'x'", syntax, at: 12, "expected ')' to close '(' at 0, found end of predicate", exact: true),
        bad("name == 'x' AND (size > 1", syntax, at: 25,
            "expected ')' to close '(' at 16, found end of predicate", exact: true),
        bad("((name == 'x')", syntax, at: 14, "expected ')' to close '(' at 0, found end of predicate"),
        bad("name == 'x')", syntax, at: 11, "unbalanced ')'"),
        bad("name IN {'a', 'b'", syntax, at: 17, "expected ',' or '}' in the aggregate opened at 8, found end of predicate"),
        bad("name IN {'a' 'b'}", syntax, at: 13, "expected ',' or '}' in the aggregate opened at 8"),
        bad("name IN {'a',}", syntax, at: 13, "expected a value after ',', found '}'"),
        bad("name IN {'a'}}", syntax, at: 13, "expected AND, OR or end of predicate, found '}'"),
        bad("name ==[c 'x'", syntax, at: 10, "expected ']' to close '[' at 7"),
        bad("name ==[q] 'x'", syntax, at: 8, "unknown modifier 'q'"),
        bad("name ==[cq] 'x'", syntax, at: 9, "unknown modifier 'q'"),
        bad("name ==[] 'x'", syntax, at: 8, "expected modifier letters"),
        bad("name ==] 'x'", syntax, at: 7, "expected a value after ==, found ']'"),
        bad("size == 0x", syntax, at: 8, "invalid number '0x'"),
        bad("size == 0b102", syntax, at: 8, "invalid number '0b102'"),
        bad("size == 12abc", syntax, at: 8, "a number cannot run into a name"),
        bad("size == 99999999999999999999", syntax, at: 8, "out of range"),
        bad("size == -9223372036854775809", syntax, at: 8, "out of range"),
        bad("size == 1e999", syntax, at: 8, "invalid number '1e999'"),
        bad(#"name == '\uZZZZ'"#, syntax, at: 9, "invalid unicode escape"),
        bad(#"name == '\u{110000}'"#, syntax, at: 9, "invalid unicode escape"),
        bad(#"name == '\u{41'"#, syntax, at: 9, "expected '}' to end the \\u{...} escape"),
        bad("name == %x", syntax, at: 8, "unknown format specifier '%x'"),
        bad("name == %", syntax, at: 8, "unknown format specifier"),
        bad("name == 'x' foo", syntax, at: 12, "expected AND, OR or end of predicate, found 'foo'", exact: true),
        bad("size == 1 size == 2", syntax, at: 10, "expected AND, OR or end of predicate, found 'size'"),
        bad("size == 1.5.2", syntax, at: 11, "expected AND, OR or end of predicate"),
        bad("name == 'a' ]", syntax, at: 12, "found ']'"),
        bad("name == 'x'cx", syntax, at: 11, "expected AND, OR or end of predicate, found 'cx'"),   // not Spotlight modifiers
        bad("name == 'x' cd", syntax, at: 12, "expected AND, OR or end of predicate, found 'cd'"),
        bad("name == 'x' AND", syntax, at: 15, "expected a comparison after 'AND', found end of predicate", exact: true),
        bad("name == 'x' AND OR size > 1", syntax, at: 16, "expected a comparison after 'AND', found 'OR'"),
        bad("size == 1 ||", syntax, at: 12, "expected a comparison after '||'"),
        bad("AND name == 'x'", syntax, at: 0, "expected a comparison"),
        bad("NOT", syntax, at: 3, "expected a comparison after 'NOT', found end of predicate"),
        bad("()", syntax, at: 1, "expected a comparison after '(', found ')'"),
        bad("name == 'x' AND (", syntax, at: 17, "found end of predicate"),
        bad("name == 'x' @", syntax, at: 12, "unexpected character '@'"),
        bad("name ~ 'x'", syntax, at: 5, "unexpected character '~'"),
        bad("size = = 1", syntax, at: 7, "expected a value after =, found '='"),
        bad("size == --1", syntax, at: 8, "unexpected character '-'"),
        bad("name IN {name}", syntax, at: 9, "an aggregate {...} holds values only"),
        bad("# == 1", syntax, at: 0, "expected an attribute name after '#'"),
        bad("name == $", syntax, at: 8, "expected a variable name after '$'"),
        bad("modified > $time.iso(2026-13-01)", syntax, at: 11, "invalid date '2026-13-01'"),
        bad("modified > $time.iso(2026-02-30)", syntax, at: 11, "invalid date '2026-02-30'"),
        bad("modified > $time.iso 2026", syntax, at: 20, "expected '(' after $time.iso"),
        bad("modified > $time.iso(2026-11-22", syntax, at: 11, "expected ')' to close $time.iso("),
        bad("modified > $time.today(x)", syntax, at: 23, "expected a whole-number offset"),
        bad("modified > $time.today(1", syntax, at: 24, "expected ')' to close '(' at 22"),
        bad("modified > $time.tomorrow", syntax, at: 11, "unknown date '$time.tomorrow'"),
        bad("InRange(size, 1)", syntax, at: 15, "expected ',' after the lower bound of InRange, found ')'"),
        bad("modified == CAST(1, NSDate)", syntax, at: 20, "expected a type name such as 'NSDate' in CAST"),
        // Offsets count Unicode scalars: the flag is two scalars, decomposed é is two.
        bad("name == \"🇫🇷\" AND", syntax, at: 16, "expected a comparison after 'AND'"),
        bad("name == \"e\u{301}\" ~", syntax, at: 13, "unexpected character '~'"),
        bad("name == '日本' OR", syntax, at: 15, "expected a comparison after 'OR'"),
    ]

    static let attributeCases: [MalformedCase] = [
        bad("kMDItemFSNam == 'x'", unknown, at: 0,
            "unknown attribute 'kMDItemFSNam'; did you mean 'kMDItemFSName'?", exact: true),
        bad("Name == 'x'", unknown, at: 0, "unknown attribute 'Name'; did you mean 'name'?", exact: true),
        bad("size > 1 AND sise > 2", unknown, at: 13, "unknown attribute 'sise'; did you mean 'size'?", exact: true),
        bad("ANY tag == 'x'", unknown, at: 4, "unknown attribute 'tag'; did you mean 'tags'?", exact: true),
        bad("kMDItemFSSize > 1 OR modifed > $time.today", unknown, at: 21,
            "unknown attribute 'modifed'; did you mean 'modified'?", exact: true),
        bad("foo == 1", unknown, at: 0, "unknown attribute 'foo'", exact: true),     // nothing close: no hint
        bad("#AND == 'x'", unknown, at: 0, "unknown attribute 'AND'"),
        bad("%K == 1", unknown, at: 0, "unknown attribute 'nope'", args: [.string("nope")]),
    ]

    static let typeCases: [MalformedCase] = [
        bad("size == 'abc'", type, at: 8,
            "expected a number to compare with kMDItemFSSize, found a string \"abc\"", exact: true),
        bad("size == '3'", type, at: 8, "found a string \"3\""),          // literals are not converted
        bad("modified > 'yesterday'", type, at: 11,
            "expected a date to compare with kMDItemFSContentChangeDate, found a string \"yesterday\""),
        bad("modified > 5", type, at: 11, "expected a date to compare with kMDItemFSContentChangeDate, found a number 5"),
        bad("name == 5", type, at: 8, "expected a string to compare with kMDItemFSName, found a number 5"),
        bad("isHidden == 2", type, at: 12, "expected a boolean to compare with kMDItemFSInvisible, found a number 2"),
        bad("isHidden == 'true'", type, at: 12, "found a string \"true\""),
        bad("size > %@", type, at: 7, "expected a number to compare with kMDItemFSSize, found a string \"abc\"",
            args: [.string("abc")]),
        bad("size IN {1, 'x'}", type, at: 12, "expected a number to compare with kMDItemFSSize, found a string \"x\""),
        bad("modified > $time.today AND size > 'big'", type, at: 34, "found a string \"big\""),
        bad("size ==[c] 3", type, at: 5, "modifier [c] applies to strings"),
        bad("size == 3 AND modified ==[cd] $time.now", type, at: 23, "modifier [cd] applies to strings"),
        bad("name < nil", type, at: 7, "cannot compare with nil using <"),
        bad("size > nil", type, at: 7, "cannot compare with nil using >"),
        bad("size BETWEEN {1, 2, 3}", type, at: 13, "BETWEEN needs exactly two values {low, high}, found 3"),
        bad("size BETWEEN {1}", type, at: 13, "BETWEEN needs exactly two values"),
        bad("size BETWEEN 5", type, at: 13, "expected an aggregate such as {1, 10} after BETWEEN"),
        bad("size BETWEEN {nil, 1}", type, at: 14, "nil"),
        bad("name BEGINSWITH nil", type, at: 16, "nil"),
        bad("isHidden ==[d] YES", type, at: 9, "modifier [d] applies to strings"),
        bad("name == %@", type, at: 8, "expected a string to compare with kMDItemFSName", args: [.list([.string("a")])]),
        bad("name == %@", type, at: 8, "expected a string to compare with kMDItemFSName", args: [.date(Clock.now)]),
        bad("size > $X", type, at: 7, "expected a number to compare with kMDItemFSSize", vars: ["X": .string("big")]),
        bad("modified > %@", type, at: 11, "expected a date", args: [.string("next tuesday")]),
        bad("isHidden == %@", type, at: 12, "expected a boolean", args: [.string("maybe")]),
        bad("name IN 'x'", type, at: 8, "expected an aggregate such as {1, 10} after IN"),
        bad("'x' IN name", type, at: 7, "expected an aggregate such as {1, 10} after IN"),
        bad("ANY name == 'x'", type, at: 4, "ANY needs a multi-valued attribute"),
        bad("ALL size > 1", type, at: 4, "ALL needs a multi-valued attribute"),
        bad("NONE isHidden == YES", type, at: 5, "NONE needs a multi-valued attribute"),
        bad("name LIKE displayName", type, at: 10, "the pattern of LIKE must be a string literal or argument"),
        bad("name MATCHES path", type, at: 13, "the pattern of MATCHES must be a string literal or argument"),
        bad("isHidden < TRUE", type, at: 9, "orders strings, numbers and dates"),
        bad("isHidden BETWEEN {0, 1}", type, at: 0, "BETWEEN needs a string, number or date on its left"),
        bad("size LIKE '1*'", type, at: 0, "LIKE compares strings"),
        bad("name BEGINSWITH 5", type, at: 16, "expected a string after BEGINSWITH, found a number 5"),
        bad("name BEGINSWITH[w] 'x'", type, at: 5, "the word modifier w applies to ==, != and LIKE only"),
        bad("name == tags", type, at: 8, "is a list"),
        bad("modified == CAST('soon', 'NSDate')", type, at: 17, "CAST to NSDate needs an ISO-8601 date"),
        bad("size == CAST(1, 'NSFoo')", type, at: 16, "CAST supports 'NSDate', 'NSNumber' and 'NSString'"),
    ]

    static let regexCases: [MalformedCase] = [
        // The pattern starts at offset 14 (just after the quote).
        bad("name MATCHES '('", regex, within: 14...15, "invalid MATCHES pattern"),
        bad("name MATCHES 'a)'", regex, at: 15, "invalid MATCHES pattern"),
        bad("name MATCHES '*a'", regex, at: 14, "invalid MATCHES pattern"),
        bad("name MATCHES '[a'", regex, within: 14...16, "invalid MATCHES pattern"),
        // A backreference: at the `\1` (17) or, when escapes make positions uncertain, at the quote (13).
        bad(#"name MATCHES '(a)\1'"#, regex, within: 13...17, "backreferences are not supported"),
        bad("name MATCHES '🇫🇷)'", regex, at: 16, "invalid MATCHES pattern"),   // offsets count scalars: the flag is two
        bad("name MATCHES 'é)'", regex, at: 15, "invalid MATCHES pattern"),
        // A pattern from an argument is not in the text: the error points at the %@.
        bad("name MATCHES %@", regex, at: 13, "invalid MATCHES pattern", args: [.string("abcdefghij)")]),
        bad("name MATCHES $P", regex, at: 13, "invalid MATCHES pattern", vars: ["P": .string("(((")]),
        bad("name MATCHES '(?=a)a'", regex, within: 14...16, "invalid MATCHES pattern"),  // lookahead
        bad("name MATCHES '(?<!a)b'", regex, within: 14...17, "invalid MATCHES pattern"), // lookbehind
    ]

    static let argumentCases: [MalformedCase] = [
        bad("size > %d", argument, at: 7, "no argument for %d (argument 1; 0 given)", exact: true),
        bad("%K == 'x'", argument, at: 0, "no argument for %K"),
        bad("name == %@ AND size > %d", argument, at: 22, "no argument for %d (argument 2; 1 given)",
            args: [.string("a")]),
        bad("size > 1", argument, at: 8, "given but the predicate uses only 0", args: [.integer(1)]),
        bad("size == %d AND name == %@", argument, at: 25, "3 arguments given but the predicate uses only 2",
            args: [.integer(1), .string("a"), .string("extra")]),
        bad("size > %d", argument, at: 7, "argument 1 for %d: expected an integer, found \"abc\"", exact: true,
            args: [.string("abc")]),
        bad("size > %d", argument, at: 7, "argument 1 for %d: expected an integer", args: [.double(2.5)]),
        bad("size > %f", argument, at: 7, "argument 1 for %f", args: [.string("x")]),
        bad("%K == 1", argument, at: 0, "argument 1 for %K: expected an attribute name", args: [.integer(3)]),
        bad("size > %@", argument, at: 7, "not a finite number", args: [.double(.infinity)]),
    ]

    static let variableCases: [MalformedCase] = [
        bad("name == $NAME", unbound, at: 8, "variable $NAME has no value"),
        bad("name IN {'a', $B}", unbound, at: 14, "variable $B has no value"),
        bad("size > $min", unbound, at: 7, "variable $min has no value", vars: ["MIN": .integer(1)]),   // names are case-sensitive
        bad("size > $MIN AND name == $N", unbound, at: 24, "variable $N has no value", vars: ["MIN": .integer(1)]),
    ]

    static let limitCases: [MalformedCase] = [
        bad(String(repeating: "(", count: 129) + "name == 'x'" + String(repeating: ")", count: 129),
            tooComplex, at: 128, "nests deeper than 128 levels"),
        bad(String(repeating: "NOT ", count: 129) + "name == 'x'", tooComplex, at: 512, "nests deeper than 128"),
        bad(String(repeating: "(", count: 128) + "size IN {1}" + String(repeating: ")", count: 128),
            tooComplex, at: 136, "nests deeper than 128"),
        bad("name == '" + String(repeating: "a", count: 65_536 - 9) + "'", tooComplex, at: 0,
            "predicate is 65537 bytes long; the limit is 65536", exact: true),
        // 32,775 scalars, but 65,540 UTF-8 bytes: the limit counts bytes, not scalars.
        bad("name == '" + String(repeating: "é", count: 32_765) + "'", tooComplex, at: 0, "the limit is 65536"),
        bad("size IN {" + String(repeating: "1, ", count: 10_000) + "1}", tooComplex, at: 30_009,
            "aggregate has more than 10000 elements"),
        bad(String(repeating: "size == 1 OR ", count: 4_096) + "size == 1", tooComplex, at: 53_248,
            "more than 4096 comparisons"),
        bad("modified > $time.today(1000001)", tooComplex, at: 23, "beyond"),
        bad("modified > $time.this_year(-1000001)", tooComplex, at: 27, "beyond"),
        bad("modified > $time.now(100000000001)", tooComplex, at: 21, "beyond"),
    ]

    static let all = syntaxCases + attributeCases + typeCases + regexCases + argumentCases + variableCases + limitCases
}

@Suite("Malformed predicates")
struct MalformedPredicateTests {
    @Test("there are enough malformed cases")
    func count() {
        #expect(Malformed.all.count >= 55, "only \(Malformed.all.count) malformed cases")
    }

    @Test("error code, offset and message", arguments: Malformed.all)
    func rejects(_ c: MalformedCase) {
        do {
            let p = try MetadataPredicate(parsing: c.text, arguments: c.arguments, variables: c.variables)
            Issue.record("line \(c.line): \(c.testDescription) parsed as \(p); expected \(c.code) at \(c.offsets)")
        } catch {
            #expect(error.code.rawValue == c.code,
                    "line \(c.line): code \(error.code.rawValue), expected \(c.code) (\(error))")
            #expect(c.offsets.contains(error.offset),
                    "line \(c.line): offset \(error.offset), expected \(c.offsets) (\(error.message))")
            if c.exactMessage {
                #expect(error.message == c.message, "line \(c.line): message \(error.message.debugDescription)")
            } else {
                #expect(error.message.contains(c.message),
                        "line \(c.line): message \(error.message.debugDescription) lacks \(c.message.debugDescription)")
            }
            #expect(error.description == "predicate error at \(error.offset): \(error.message)", "line \(c.line)")
            if c.offsets.count == 1 {
                #expect(error.description.hasPrefix("predicate error at \(c.offsets.lowerBound): "),
                        "line \(c.line): \(error.description)")
            }
            let length = c.text.unicodeScalars.count
            #expect((0...length).contains(error.offset), "line \(c.line): offset outside the text")
        }
    }

    @Test("limits are inclusive: exactly at each limit still parses")
    func limitsAreInclusive() throws {
        let deep = String(repeating: "(", count: 128) + "name == 'x'" + String(repeating: ")", count: 128)
        #expect(throws: Never.self) { try MetadataPredicate(parsing: deep) }
        let nots = String(repeating: "NOT ", count: 128) + "name == 'x'"
        let notPredicate = try MetadataPredicate(parsing: nots)
        #expect(notPredicate.evaluate(Items.name("x"), context: Clock.context) == true)   // an even number of NOTs
        let longest = "name == '" + String(repeating: "a", count: 65_536 - 10) + "'"
        #expect(longest.utf8.count == 65_536)
        #expect(throws: Never.self) { try MetadataPredicate(parsing: longest) }
        let tooLong = longest + " "
        #expect(tooLong.utf8.count == 65_537)
        #expect(throws: MetadataPredicateError.self) { try MetadataPredicate(parsing: tooLong) }
        let aggregate = "size IN {" + String(repeating: "1, ", count: 9_999) + "2}"
        let inPredicate = try MetadataPredicate(parsing: aggregate)
        #expect(inPredicate.evaluate(Items.size(2), context: Clock.context))
        let comparisons = String(repeating: "size == 1 OR ", count: 4_095) + "size == 2"
        let orPredicate = try MetadataPredicate(parsing: comparisons)
        #expect(orPredicate.evaluate(Items.size(2), context: Clock.context))
        #expect(!orPredicate.evaluate(Items.size(3), context: Clock.context))
        #expect(throws: Never.self) { try MetadataPredicate(parsing: "modified > $time.today(1000000)") }
        #expect(throws: Never.self) { try MetadataPredicate(parsing: "modified > $time.now(-100000000000)") }
    }

    @Test("codes have their documented wire strings")
    func codeStrings() {
        #expect(MetadataPredicateError.Code.syntax.rawValue == "predicate.syntax")
        #expect(MetadataPredicateError.Code.unknownAttribute.rawValue == "predicate.unknownAttribute")
        #expect(MetadataPredicateError.Code.type.rawValue == "predicate.type")
        #expect(MetadataPredicateError.Code.argument.rawValue == "predicate.argument")
        #expect(MetadataPredicateError.Code.unboundVariable.rawValue == "predicate.unboundVariable")
        #expect(MetadataPredicateError.Code.regex.rawValue == "predicate.regex")
        #expect(MetadataPredicateError.Code.tooComplex.rawValue == "predicate.tooComplex")
        let e = MetadataPredicateError(.syntax, at: 19, "expected a value after LIKE, found ')'")
        #expect(e.description == "predicate error at 19: expected a value after LIKE, found ')'")
    }
}
