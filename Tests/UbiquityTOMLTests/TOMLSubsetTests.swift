import Testing
import UbiquityTesting
@testable import UbiquityTOML

// The TOML subset parser on its own: every construct it accepts, and every refusal with its
// exact line and column. TOMLDifferentialTests checks the same parser against Python's tomllib.

// MARK: - The TOML subset

@Suite("TOML subset", .ownThreads)
struct TOMLSubsetTests {
    @Test func parsesEveryConstruct() throws {
        let text = """
            # a comment line
            bare_key-1 = "basic \\"quoted\\" \\\\ \\n\\t\\u00E9\\U0001F600" # trailing comment
            "quoted key" = 'C:\\literal\\path'
            '' = "empty key"
            int = 1_000_000
            negative = -42
            plus = +7
            float = 3.25
            negative_float = -6_022.5
            small = 0.001
            yes = true
            no = false
            empty = []
            mixed = [ 1, "two", 3.0, [4], { five = 5 }, ]
            multi = [
              "a",   # first
              # between
              'b',
            ]
            inline = { gro = "com.example.grocery.package", 'x y' = 1, nested = { deep = [true] } }
            empty_inline = {}

            [table]
            key = "in table"

            [[items]]
            name = "first"
            [[ items ]]
            name = "second"
            ["quoted table"]
            """
        let document = try TOML.parse(text)
        #expect(document.entries.map(\.key) == [
            "bare_key-1", "quoted key", "", "int", "negative", "plus", "float",
            "negative_float", "small", "yes", "no", "empty", "mixed", "multi", "inline", "empty_inline",
            "table", "items", "quoted table",
        ])
        #expect(document["bare_key-1"]?.kind == .string("basic \"quoted\" \\ \n\té😀"))
        #expect(document["quoted key"]?.kind == .string("C:\\literal\\path"))
        #expect(document[""]?.kind == .string("empty key"))
        #expect(document["int"]?.kind == .integer(1_000_000))
        #expect(document["negative"]?.kind == .integer(-42))
        #expect(document["plus"]?.kind == .integer(7))
        #expect(document["float"]?.kind == .float(3.25))
        #expect(document["negative_float"]?.kind == .float(-6022.5))
        #expect(document["small"]?.kind == .float(0.001))
        #expect(document["yes"]?.kind == .boolean(true))
        #expect(document["no"]?.kind == .boolean(false))
        #expect(document["empty"]?.kind == .array([]))
        guard case .array(let mixed)? = document["mixed"]?.kind else { Issue.record("mixed"); return }
        #expect(mixed.map(\.typeName) == ["an integer", "a string", "a float", "an array", "a table"])
        guard case .array(let multi)? = document["multi"]?.kind else { Issue.record("multi"); return }
        #expect(multi.map(\.kind) == [.string("a"), .string("b")])
        #expect(multi.map(\.position) == [TOMLPosition(line: 16, column: 3), TOMLPosition(line: 18, column: 3)])
        guard case .table(let inline)? = document["inline"]?.kind else { Issue.record("inline"); return }
        #expect(inline["gro"]?.kind == .string("com.example.grocery.package"))
        #expect(inline["x y"]?.kind == .integer(1))
        guard case .table(let nested)? = inline["nested"]?.kind else { Issue.record("nested"); return }
        #expect(nested["deep"]?.kind == .array([TOMLValue(kind: .boolean(true), position: TOMLPosition(line: 20, column: 79))]))
        guard case .table(let table)? = document["table"]?.kind else { Issue.record("table"); return }
        #expect(table["key"]?.kind == .string("in table"))
        #expect(document["table"]?.position == TOMLPosition(line: 23, column: 1))
        guard case .array(let items)? = document["items"]?.kind else { Issue.record("items"); return }
        #expect(items.count == 2)
        #expect(items.map(\.position.line) == [26, 28])
        if case .table(let second) = items[1].kind { #expect(second["name"]?.kind == .string("second")) }
        #expect(document["quoted table"]?.kind == .table(TOMLTable()))
    }

    @Test func keysAfterAHeaderBelongToItAndCRLFIsALineEnd() throws {
        let document = try TOML.parse("top = 1\r\n[a]\r\nx = 1\r\n[[b]]\r\nx = 2\r\n")
        #expect(document.entries.map(\.key) == ["top", "a", "b"])
        guard case .table(let a)? = document["a"]?.kind else { Issue.record("a"); return }
        #expect(a["x"]?.kind == .integer(1))
        #expect(a.entry("x")?.keyPosition == TOMLPosition(line: 3, column: 1))
    }

    @Test func emptyAndCommentOnlyDocuments() throws {
        #expect(try TOML.parse("").entries.isEmpty)
        #expect(try TOML.parse("# nothing\n\n   \t\n# more").entries.isEmpty)
    }

    /// Each malformed input and the exact `line:column: message` it gets.
    static let malformed: [(String, String)] = [
        ("a = ", "1:5: expected a value after '=', found end of file"),
        ("a = \n", "1:5: expected a value after '=', found end of line"),
        ("a = # c", "1:5: expected a value after '=', found a comment"),
        ("a 1", "1:3: expected '=' after the key 'a', found '1'"),
        ("= 1", "1:1: expected a key at the start of a line, found '='"),
        ("a = 1\na = 2", "2:1: duplicate key 'a' (first defined at line 1)"),
        ("a = \"abc", "1:9: unterminated string: expected '\"' before end of file"),
        ("a = 'abc\nb = 1", "1:9: unterminated literal string: expected \"'\" before end of line"),
        ("a = \"\\q\"", "1:6: invalid escape sequence '\\q'; valid: \\\" \\\\ \\b \\t \\n \\f \\r \\uXXXX \\UXXXXXXXX"),
        ("a = \"\\u12\"", "1:10: expected 4 hexadecimal digits after \\u, found '\"'"),
        ("a = \"\\uD800\"", "1:6: \\uD800 is not a Unicode scalar value"),
        ("a = \"tab\u{01}\"", "1:9: control character U+0001 must be escaped in a string"),
        ("a = 1_000_", "1:5: invalid number '1_000_': '_' must sit between two digits"),
        ("a = 0123", "1:5: invalid number '0123': leading zeros are not allowed"),
        ("a = 99999999999999999999", "1:5: invalid number '99999999999999999999': out of range (integers are 64-bit)"),
        ("a = 1.", "1:5: invalid number '1.': expected digits after '.'"),
        ("a = 1e", "1:5: invalid number '1e': exponents are not supported; write the number out (1500, 0.001)"),
        ("a = 1e999", "1:5: invalid number '1e999': exponents are not supported; write the number out (1500, 0.001)"),
        ("a = -2.5E3", "1:5: invalid number '-2.5E3': exponents are not supported; write the number out (1500, 0.001)"),
        ("a = 0xFF", "1:5: invalid number '0xFF': hexadecimal, octal and binary integers are not supported; write a decimal number"),
        ("a = 0o755", "1:5: invalid number '0o755': hexadecimal, octal and binary integers are not supported; write a decimal number"),
        ("a = +0x10", "1:5: invalid number '+0x10': hexadecimal, octal and binary integers are not supported; write a decimal number"),
        ("a = 0b102", "1:5: invalid number '0b102': hexadecimal, octal and binary integers are not supported; write a decimal number"),
        ("a = 1e999999999999999999999", "1:5: invalid number '1e999999999999999999999': exponents are not supported; write the number out (1500, 0.001)"),
        ("a = 1" + String(repeating: "0", count: 400) + ".0", "1:5: invalid number '1" + String(repeating: "0", count: 400) + ".0': out of range for a 64-bit float"),
        ("a = 12abc", "1:5: invalid number '12abc': 'a' is not a decimal digit"),
        ("a = 1979-05-27", "1:5: dates and times are not supported (found '1979-05-27'); write a string or a number"),
        ("a = inf", "1:5: inf and nan are not supported"),
        ("a = -nan", "1:5: inf and nan are not supported"),
        ("a = hello", "1:5: expected a value after '=', found 'hello' (strings must be quoted: \"hello\")"),
        ("a = \"\"\"x\"\"\"", "1:5: multi-line strings (\"\"\") are not supported"),
        ("a = [1, 2", "1:10: expected ',' or ']' in the array, found end of file"),
        ("a = [1 2]", "1:8: expected ',' or ']' in the array, found '2'"),
        ("a = [1,,2]", "1:8: expected a value after ',' in the array, found ','"),
        ("a = { b = 1, }", "1:14: a trailing comma is not allowed in an inline table"),
        ("a = { b = 1\n}", "1:12: expected ',' or '}' in the inline table, found end of line"),
        ("a = { b = 1, b = 2 }", "1:14: duplicate key 'b' (first defined at line 1)"),
        ("a = { # c }", "1:7: expected a key after '{', found a comment"),
        ("[t]\nx = 1\n[t]", "3:1: table [t] is defined twice (first at line 1)"),
        ("t = 1\n[t]", "2:1: 't' is already defined at line 1 as an integer; it cannot also be a table"),
        ("[[t]]\n[t]", "2:1: 't' is already defined at line 1 as an array of tables; it cannot also be a table"),
        ("a = [1]\n[[a]]", "2:1: cannot append to 'a' with [[a]]: it is a static array defined at line 1"),
        ("[a.b]", "1:3: nested table names such as [a.b] are not supported; this subset has one level of tables"),
        ("a.b = 1", "1:2: dotted keys such as a.b = ... are not supported; use a [table] header or an inline table"),
        ("[t", "1:3: expected ']' to close the header [t], found end of file"),
        ("[[t]", "1:5: expected ']]' to close the header [[t]], found end of file"),
        ("[]", "1:2: expected a key after '[', found ']'"),
        ("[t] x = 1", "1:5: expected end of line after the table header, found 'x'"),
        ("a = 1 b = 2", "1:7: expected end of line after the value, found 'b'"),
        ("a = \"é\" x", "1:9: expected end of line after the value, found 'x'"),
        ("ключ = 1", "1:1: expected a key at the start of a line, found 'к'"),
        ("a = 1\rb = 2", "1:6: expected end of line after the value, found a carriage return without a line feed"),
        ("# bell \u{07}", "1:8: control character U+0007 is not allowed in a comment"),
        ("a = 1\nb = \"\u{FF}\"", "2:6: the file is not valid UTF-8 (invalid byte 0xFF)"),
        ("a = " + String(repeating: "[", count: 40), "1:37: arrays and inline tables nest deeper than 32 levels"),
    ]

    @Test(arguments: 0..<malformed.count)
    func malformedInputNamesLineAndColumn(_ index: Int) {
        let (input, expected) = Self.malformed[index]
        // "\u{FF}" stands for the raw byte 0xFF, which a Swift string cannot hold.
        let bytes = Array(Array(input.utf8).replacing([0xC3, 0xBF], with: [0xFF]))
        #expect(throws: TOMLError.self) { try TOML.parse(bytes) }
        do {
            _ = try TOML.parse(bytes)
        } catch {
            #expect(error.description == expected, "input: \(input.debugDescription)")
        }
    }

    @Test func refusesMoreThanOneMebibyte() {
        let big = [UInt8](repeating: 0x23, count: TOML.maxBytes + 1)
        #expect(throws: TOMLError(position: TOMLPosition(line: 1, column: 1),
                                  message: "the file is 1048577 bytes; at most 1048576 bytes (1 MiB) are accepted")) {
            try TOML.parse(big)
        }
    }

    @Test func aLongSingleLineArrayParsesInLinearTime() throws {
        // 1 MiB on one line: positions are computed incrementally, not from the line start each time.
        let text = "a = [" + String(repeating: "1,", count: (TOML.maxBytes - 10) / 2) + "]"
        guard case .array(let items)? = try TOML.parse(text)["a"]?.kind else { Issue.record("no array"); return }
        #expect(items.count == (TOML.maxBytes - 10) / 2)
        #expect(items.last?.position.column == 5 + 2 * items.count - 1)
    }
}
