import Testing
import UbiquityPredicate

// MARK: - Table types

struct MatchCase: Sendable, CustomTestStringConvertible {
    let pattern: String
    let subject: String
    let expected: Bool
    let caseInsensitive: Bool
    let diacriticInsensitive: Bool

    init(_ pattern: String, _ subject: String, _ expected: Bool, ci: Bool = false, di: Bool = false) {
        self.pattern = pattern
        self.subject = subject
        self.expected = expected
        self.caseInsensitive = ci
        self.diacriticInsensitive = di
    }

    var testDescription: String {
        let options = (caseInsensitive ? "[c]" : "") + (diacriticInsensitive ? "[d]" : "")
        return "\(pattern.debugDescription)\(options) ~ \(subject.debugDescription) == \(expected)"
    }
}

struct RejectCase: Sendable, CustomTestStringConvertible {
    let pattern: String
    let offset: Int
    let fragment: String

    init(_ pattern: String, _ offset: Int, _ fragment: String) {
        self.pattern = pattern
        self.offset = offset
        self.fragment = fragment
    }

    var testDescription: String { "\(pattern.debugDescription) rejected at \(offset): \(fragment)" }
}

func check(_ c: MatchCase) throws {
    let regex = try LinearRegex(c.pattern, caseInsensitive: c.caseInsensitive, diacriticInsensitive: c.diacriticInsensitive)
    #expect(regex.matches(c.subject) == c.expected, "\(c.testDescription)")
}

func rejection(_ pattern: String) -> LinearRegexError? {
    do {
        _ = try LinearRegex(pattern)
        return nil
    } catch {
        return error
    }
}

// MARK: - Tables

let wholeMatchCases: [MatchCase] = [
    MatchCase("abc", "abc", true),
    MatchCase("abc", "xabcx", false),
    MatchCase("abc", "abcx", false),
    MatchCase("abc", "xabc", false),
    MatchCase("abc", "ab", false),
    MatchCase("abc", "", false),
    MatchCase("", "", true),
    MatchCase("", "a", false),
    MatchCase("a", "A", false),
    MatchCase("hello world", "hello world", true),
    MatchCase("ab|cd", "ab", true),
    MatchCase("ab|cd", "cd", true),
    MatchCase("ab|cd", "abcd", false),
    MatchCase("a|b|c", "c", true),
    MatchCase("a|b|c", "d", false),
    MatchCase("x(a|b)y", "xby", true),
    MatchCase("x(a|b)y", "xy", false),
    MatchCase("x(a|)y", "xy", true),
    MatchCase("(?:ab)+", "ababab", true),
    MatchCase("(?:ab)+", "ababa", false),
    MatchCase("(?<word>ab)c", "abc", true),
    MatchCase("(?P<w1>a)b", "ab", true),
    MatchCase("(?'w'a)b", "ab", true),
    MatchCase("a()b", "ab", true),
    MatchCase("(|a)b", "b", true),
    MatchCase("a|", "", true),
    MatchCase("((a|b)(c|d))+", "acbdad", true),
    MatchCase("((a|b)(c|d))+", "acbda", false),
    MatchCase("a}b]", "a}b]", true),
    MatchCase("a(?#a comment)b", "ab", true),
    MatchCase("日本語", "日本語", true),
    MatchCase("日本語", "日本", false),
]

let dotCases: [MatchCase] = [
    MatchCase(".", "a", true),
    MatchCase(".", "", false),
    MatchCase(".", "ab", false),
    MatchCase(".", "\n", false),
    MatchCase(".", "\r", false),
    MatchCase(".", "\u{85}", false),
    MatchCase(".", "\u{2028}", false),
    MatchCase(".", "\u{2029}", false),
    MatchCase(".", "\t", true),
    MatchCase("a.c", "a\nc", false),
    MatchCase("(?s)a.c", "a\nc", true),
    MatchCase("(?s:.)", "\r", true),
    MatchCase(".", "é", true),
    MatchCase(".", "e\u{301}", true),
    MatchCase(".", "😀", true),
    MatchCase("..", "😀", false),
    MatchCase(".", "🇺🇸", false),
    MatchCase("..", "🇺🇸", true),
    MatchCase(".{5}", "👨‍👩‍👧", true),
    MatchCase(".+", "👨‍👩‍👧", true),
    MatchCase("a.b", "a😀b", true),
    MatchCase("日本.", "日本語", true),
    MatchCase(".*", "", true),
    MatchCase(".*", "any thing at all", true),
    MatchCase(".*", "two\nlines", false),
]

let escapeCases: [MatchCase] = [
    MatchCase(#"\."#, ".", true),
    MatchCase(#"\."#, "a", false),
    MatchCase(#"\*\+\?"#, "*+?", true),
    MatchCase(#"\(\)\[\]\{\}"#, "()[]{}", true),
    MatchCase(#"\|\^\$\/\-\\"#, #"|^$/-\"#, true),
    MatchCase(#"\t"#, "\t", true),
    MatchCase(#"\n"#, "\n", true),
    MatchCase(#"\r"#, "\r", true),
    MatchCase(#"\f"#, "\u{0C}", true),
    MatchCase(#"\e"#, "\u{1B}", true),
    MatchCase(#"\a"#, "\u{07}", true),
    MatchCase(#"\u00e9"#, "é", true),
    MatchCase(#"\u00E9"#, "e", false),
    MatchCase(#"\x41"#, "A", true),
    MatchCase(#"\x{41}"#, "A", true),
    MatchCase(#"\x{1F600}"#, "😀", true),
    MatchCase(#"\U0001F600"#, "😀", true),
    MatchCase(#"\0101"#, "A", true),
    MatchCase(#"\cA"#, "\u{01}", true),
    MatchCase(#"\Qa.b*\E"#, "a.b*", true),
    MatchCase(#"\Qa.b\E"#, "axb", false),
    MatchCase(#"\Qab\E+"#, "abbb", true),
    MatchCase(#"\Q(x|"#, "(x|", true),
    MatchCase(#"a\ b"#, "a b", true),
    MatchCase(##"\#\@\!"##, "#@!", true),
    MatchCase(#"e\x{301}"#, "é", true),
    MatchCase(#"\x{212B}"#, "Å", true),
]

let classCases: [MatchCase] = [
    MatchCase("[abc]", "b", true),
    MatchCase("[abc]", "d", false),
    MatchCase("[abc]", "ab", false),
    MatchCase("[abc]+", "cabbage", false),
    MatchCase("[abc]+", "cabba", true),
    MatchCase("[a-z]", "m", true),
    MatchCase("[a-z]", "M", false),
    MatchCase("[^a-z]", "M", true),
    MatchCase("[^a-z]", "m", false),
    MatchCase("[^a-z]", "\n", true),
    MatchCase("[]a]", "]", true),
    MatchCase("[]a]", "a", true),
    MatchCase("[^]a]", "b", true),
    MatchCase("[^]a]", "]", false),
    MatchCase("[-a]", "-", true),
    MatchCase("[a-]", "-", true),
    MatchCase("[a-]", "b", false),
    MatchCase("[a-c-e]", "-", true),
    MatchCase("[a-c-e]", "d", false),
    MatchCase(#"[\d]"#, "7", true),
    MatchCase(#"[\w.]+"#, "a.b_c", true),
    MatchCase(#"[\]]"#, "]", true),
    MatchCase(#"[\\]"#, #"\"#, true),
    MatchCase(#"[\n\t]"#, "\t", true),
    MatchCase(#"[\x{1F600}-\x{1F64F}]"#, "😃", true),
    MatchCase(#"[\x{1F600}-\x{1F64F}]"#, "👍", false),
    MatchCase("[α-ω]", "λ", true),
    MatchCase("[α-ω]", "Λ", false),
    MatchCase("[[:alpha:]]", "é", true),
    MatchCase("[[:digit:]]+", "123", true),
    MatchCase("[[:^digit:]]", "a", true),
    MatchCase("[[:^digit:]]", "1", false),
    MatchCase("[[:punct:][:space:]]+", "!, ?", true),
    MatchCase("[a-z&&[^aeiou]]+", "bcd", true),
    MatchCase("[a-z&&[^aeiou]]+", "bed", false),
    MatchCase(#"[\p{L}--[a-z]]"#, "A", true),
    MatchCase(#"[\p{L}--[a-z]]"#, "a", false),
    MatchCase("[a[0-9]]", "5", true),
    MatchCase("[a[0-9]]", "b", false),
    MatchCase("[é]", "é", true),
    MatchCase("[é]", "e\u{301}", true),
    MatchCase("[é]", "e", false),
    MatchCase(#"[\b]"#, "\u{08}", true),
    MatchCase("[.]", "a", false),
    MatchCase("[.]", ".", true),
    MatchCase("[$^*+?(){}|]+", "$^*+?(){}|", true),
    MatchCase("[😀-😂]", "😁", true),
]

let shorthandCases: [MatchCase] = [
    MatchCase(#"\d"#, "5", true),
    MatchCase(#"\d"#, "٣", true),
    MatchCase(#"\d"#, "５", true),
    MatchCase(#"\d"#, "a", false),
    MatchCase(#"\d"#, "½", false),
    MatchCase(#"\D"#, "a", true),
    MatchCase(#"\D"#, "5", false),
    MatchCase(#"\w"#, "_", true),
    MatchCase(#"\w"#, "ß", true),
    MatchCase(#"\w"#, "-", false),
    MatchCase(#"\w+"#, "naïve", true),
    MatchCase(#"\w+"#, "日本語", true),
    MatchCase(#"\w"#, "😀", false),
    MatchCase(#"\W"#, "-", true),
    MatchCase(#"\W"#, "a", false),
    MatchCase(#"\s"#, " ", true),
    MatchCase(#"\s"#, "\u{A0}", true),
    MatchCase(#"\s"#, "\u{3000}", true),
    MatchCase(#"\s"#, "\n", true),
    MatchCase(#"\s"#, "x", false),
    MatchCase(#"\S"#, "x", true),
    MatchCase(#"\S"#, " ", false),
    MatchCase(#"\h"#, "\t", true),
    MatchCase(#"\h"#, "\n", false),
    MatchCase(#"\H"#, "\n", true),
    MatchCase(#"\v"#, "\u{2029}", true),
    MatchCase(#"\V"#, "a", true),
    MatchCase(#"\R"#, "\r\n", true),
    MatchCase(#"\R"#, "\n", true),
    MatchCase(#"\R"#, "x", false),
    MatchCase(#"\d+(\.\d+)?"#, "3.14", true),
    MatchCase(#"\d+(\.\d+)?"#, "3.", false),
]

let propertyCases: [MatchCase] = [
    MatchCase(#"\p{L}"#, "ж", true),
    MatchCase(#"\p{L}"#, "1", false),
    MatchCase(#"\p{Lu}"#, "Ж", true),
    MatchCase(#"\p{Lu}"#, "ж", false),
    MatchCase(#"\p{Ll}"#, "ж", true),
    MatchCase(#"\p{Lt}"#, "ǅ", true),
    MatchCase(#"\p{Lo}"#, "中", true),
    MatchCase(#"\p{N}"#, "Ⅻ", true),
    MatchCase(#"\p{Nd}"#, "Ⅻ", false),
    MatchCase(#"\p{Nl}"#, "Ⅻ", true),
    MatchCase(#"\p{No}"#, "½", true),
    MatchCase(#"\p{P}"#, "!", true),
    MatchCase(#"\p{P}"#, "«", true),
    MatchCase(#"\p{Pd}"#, "-", true),
    MatchCase(#"\p{Ps}\p{Pe}"#, "()", true),
    MatchCase(#"\p{S}"#, "€", true),
    MatchCase(#"\p{Sc}"#, "€", true),
    MatchCase(#"\p{Sm}"#, "+", true),
    MatchCase(#"\p{So}"#, "👍", true),
    MatchCase(#"\p{Z}"#, "\u{2003}", true),
    MatchCase(#"\p{Zs}"#, " ", true),
    MatchCase(#"\p{Zl}"#, "\u{2028}", true),
    MatchCase(#"\p{M}"#, "\u{301}", true),
    MatchCase(#"\p{Mn}"#, "\u{301}", true),
    MatchCase(#"\p{Cc}"#, "\u{07}", true),
    MatchCase(#"\p{C}"#, "a", false),
    MatchCase(#"\P{L}"#, "1", true),
    MatchCase(#"\P{L}"#, "a", false),
    MatchCase(#"\pL\pN"#, "x9", true),
    MatchCase(#"\p{^L}"#, "1", true),
    MatchCase(#"\P{^L}"#, "a", true),
    MatchCase(#"\p{Letter}"#, "q", true),
    MatchCase(#"\p{Uppercase_Letter}"#, "q", false),
    MatchCase(#"\p{gc=Lu}"#, "Q", true),
    MatchCase(#"\p{Alphabetic}"#, "中", true),
    MatchCase(#"\p{Any}"#, "\n", true),
    MatchCase(#"\p{ASCII}+"#, "plain", true),
    MatchCase(#"\p{ASCII}"#, "é", false),
    MatchCase(#"[\p{Lu}\d]+"#, "A1B2", true),
    MatchCase(#"[\P{L}]"#, "a", false),
    MatchCase(#"[^\p{L}]"#, "1", true),
]

let anchorCases: [MatchCase] = [
    MatchCase("^abc$", "abc", true),
    MatchCase("^abc", "abc", true),
    MatchCase("abc$", "abc", true),
    MatchCase("a^b", "ab", false),
    MatchCase("a$b", "ab", false),
    MatchCase(#"abc$\n"#, "abc\n", true),
    MatchCase(#"abc\Z\n"#, "abc\n", true),
    MatchCase(#"abc\z\n"#, "abc\n", false),
    MatchCase(#"\Aabc\z"#, "abc", true),
    MatchCase(#"a\Ab"#, "ab", false),
    MatchCase(#"\Gabc"#, "abc", true),
    MatchCase(#"(?m)a$\n^b"#, "a\nb", true),
    MatchCase(#"a$\n^b"#, "a\nb", false),
    MatchCase(#"(?m)a$\r\n^b"#, "a\r\nb", true),
    MatchCase(#"(?m)a\r$\nb"#, "a\r\nb", false),
    MatchCase(#"\bfoo\b"#, "foo", true),
    MatchCase(#"foo\b.*"#, "foo bar", true),
    MatchCase(#"foo\b.*"#, "foobar", false),
    MatchCase(#"foo\B.*"#, "foobar", true),
    MatchCase(#"foo\B.*"#, "foo bar", false),
    MatchCase(#".*\bbar"#, "foo bar", true),
    MatchCase(#".*\bbar"#, "foobar", false),
    MatchCase(#"café\b.*"#, "café bar", true),
    MatchCase(#"café\b.*"#, "caféine", false),
    MatchCase(#"\bé\b"#, "é", true),
    MatchCase(#"über\b!"#, "über!", true),
    MatchCase(#".\b."#, "😀a", true),
    MatchCase(#".\b."#, "😀!", false),
    MatchCase(#"日\B本"#, "日本", true),
    MatchCase(#"\b"#, "", false),
    MatchCase(#"\B"#, "", true),
]

let quantifierCases: [MatchCase] = [
    MatchCase("a*", "", true),
    MatchCase("a*", "aaaa", true),
    MatchCase("a*", "aab", false),
    MatchCase("a+", "", false),
    MatchCase("a+", "aaa", true),
    MatchCase("a?", "", true),
    MatchCase("a?", "aa", false),
    MatchCase("a{3}", "aaa", true),
    MatchCase("a{3}", "aa", false),
    MatchCase("a{3}", "aaaa", false),
    MatchCase("a{2,}", "aa", true),
    MatchCase("a{2,}", "aaaaaaa", true),
    MatchCase("a{2,}", "a", false),
    MatchCase("a{2,4}", "aaaa", true),
    MatchCase("a{2,4}", "aaaaa", false),
    MatchCase("a{2,4}", "a", false),
    MatchCase("a{0}", "", true),
    MatchCase("a{0}b", "b", true),
    MatchCase("a{0,0}", "a", false),
    MatchCase("a*?", "aaa", true),
    MatchCase("a+?b", "aab", true),
    MatchCase("a??", "a", true),
    MatchCase("a{2,3}?", "aaa", true),
    MatchCase("(ab){2}", "abab", true),
    MatchCase("(a|b){3}", "aba", true),
    MatchCase("(a|b){3}", "abab", false),
    MatchCase("(?:a{2}){2}", "aaaa", true),
    MatchCase("(?:a{2}){2}", "aaa", false),
    MatchCase("x*y*z*", "xxzz", true),
    MatchCase("é+", "ééé", true),
    MatchCase("é+", "e\u{301}e\u{301}", true),
    MatchCase("😀+", "😀😀", true),
    MatchCase("(?x) a + b", "aab", true),
    MatchCase("a{1000}", String(repeating: "a", count: 1000), true),
    MatchCase("a{1000}", String(repeating: "a", count: 999), false),
    MatchCase("(a*)*", "aaaa", true),
    MatchCase("(a?){3}a{3}", "aaa", true),
]

let inlineFlagCases: [MatchCase] = [
    MatchCase("(?i)abc", "ABC", true),
    MatchCase("(?i)abc", "AbC", true),
    MatchCase("abc", "ABC", false),
    MatchCase("a(?i)bc", "aBC", true),
    MatchCase("a(?i)bc", "ABC", false),
    MatchCase("(?i:a)b", "Ab", true),
    MatchCase("(?i:a)b", "AB", false),
    MatchCase("(?i)a(?-i)b", "Ab", true),
    MatchCase("(?i)a(?-i)b", "AB", false),
    MatchCase("(?i:x(?-i:y))", "XY", false),
    MatchCase("(?i:x(?-i:y))", "Xy", true),
    MatchCase("((?i)a)b", "AB", false),
    MatchCase("((?i)a)b", "Ab", true),
    MatchCase("(?i)a|b", "B", true),
    MatchCase("(?i)[a-z]+", "HeLLo", true),
    MatchCase("(?i)ж", "Ж", true),
    MatchCase("(?s).", "\n", true),
    MatchCase("(?s)(?-s).", "\n", false),
    MatchCase("(?x) a b c # comment", "abc", true),
    MatchCase(#"(?x)a\ b"#, "a b", true),
    MatchCase("(?x)[ ]", " ", true),
    MatchCase("(?m)^b$", "b", true),
    MatchCase("(?im)^A$\n^b$", "a\nB", true),
    MatchCase("(?i)caseless", "CASELESS", true, ci: false),
    MatchCase("(?-i)exact", "EXACT", false, ci: true),
]

let caseInsensitiveCases: [MatchCase] = [
    MatchCase("abc", "ABC", true, ci: true),
    MatchCase("abc", "abd", false, ci: true),
    MatchCase("[a-z]", "Q", true, ci: true),
    MatchCase("[A-Z]+", "mixedCASE", true, ci: true),
    MatchCase("[^a-z]", "Q", false, ci: true),
    MatchCase("[^a-z]", "1", true, ci: true),
    MatchCase("straße", "STRASSE", false, ci: true),
    MatchCase("ß", "ẞ", true, ci: true),
    MatchCase("k", "\u{212A}", true, ci: true),
    MatchCase("[k]", "\u{212A}", true, ci: true),
    MatchCase(#"[\x{212A}]"#, "k", true, ci: true),
    MatchCase(#"[\x{212A}]"#, "k", false),
    MatchCase("[s]", "ſ", true, ci: true),
    MatchCase("σ", "ς", true, ci: true),
    MatchCase("Σ+", "σςΣ", true, ci: true),
    MatchCase("ǆ", "ǅ", true, ci: true),
    MatchCase("i", "ı", false, ci: true),
    MatchCase("i", "İ", false, ci: true),
    MatchCase("é", "É", true, ci: true),
    MatchCase("ὈΔΥΣΣΕΎΣ", "ὀδυσσεύς", true, ci: true),
    MatchCase("[α-ω]+", "ΑΒΓ", true, ci: true),
    MatchCase(#"\d"#, "7", true, ci: true),
    MatchCase(".", "X", true, ci: true),
    MatchCase("Ꭰ", "ꭰ", true, ci: true),
]

let diacriticCases: [MatchCase] = [
    MatchCase("cafe", "café", true, di: true),
    MatchCase("café", "cafe", true, di: true),
    MatchCase("café", "cafe", false),
    MatchCase("cafe", "café", false),
    MatchCase("café", "café", true),
    MatchCase("café", "cafe\u{301}", true),
    MatchCase("cafe\u{301}", "café", true),
    MatchCase("[e]", "é", true, di: true),
    MatchCase("[é]", "e", true, di: true),
    MatchCase("caf[é]", "cafè", true, di: true),
    MatchCase("naive", "naïve", true, di: true),
    MatchCase("Ångström", "Angstrom", true, di: true),
    MatchCase("résumé", "RESUME", true, ci: true, di: true),
    MatchCase("resume", "RÉSUMÉ", true, ci: true, di: true),
    MatchCase("[a-z]+", "àéîõü", true, di: true),
    MatchCase("[a-z]+", "àéîõü", false),
    MatchCase("한국어", "한국어", true, di: true),
    MatchCase("한", "하", false, di: true),
    MatchCase("e", "é", false),
    MatchCase(".", "é", true, di: true),
    MatchCase("..", "e\u{301}", false, di: true),
    MatchCase("Å", "\u{212B}", true),
    MatchCase(#"\w+"#, "crème brûlée", false, di: true),
    MatchCase(#"\w+ \w+"#, "crème brûlée", true, di: true),
    MatchCase("creme brulee", "crème brûlée", true, di: true),
]

let rejectionCases: [RejectCase] = [
    RejectCase("a++a", 2, "possessive quantifiers such as 'a++' are not supported (MATCHES uses a linear-time engine)"),
    RejectCase("a*+", 2, "possessive quantifiers"),
    RejectCase("a{2}+", 4, "possessive quantifiers"),
    RejectCase(#"(a)\1"#, 3, "backreferences are not supported (MATCHES uses a linear-time engine)"),
    RejectCase(#"\9"#, 0, "backreferences are not supported"),
    RejectCase(#"(?<n>a)\k<n>"#, 7, "backreferences are not supported"),
    RejectCase("(?P=n)", 0, "backreferences are not supported"),
    RejectCase("(?=a)", 0, "lookahead '(?=' is not supported"),
    RejectCase("a(?!b)", 1, "negative lookahead '(?!' is not supported"),
    RejectCase("(?<=a)b", 0, "lookbehind '(?<=' is not supported"),
    RejectCase("b(?<!a)", 1, "negative lookbehind '(?<!' is not supported"),
    RejectCase("x(?>a)", 1, "atomic groups '(?>' are not supported"),
    RejectCase("(?R)", 0, "recursion"),
    RejectCase("(a", 0, "missing ')'"),
    RejectCase("x((a)", 1, "missing ')'"),
    RejectCase("a)", 1, "unbalanced ')'"),
    RejectCase("(a))", 3, "unbalanced ')'"),
    RejectCase("[abc", 0, "missing ']'"),
    RejectCase("ab[[c]", 2, "missing ']'"),
    RejectCase("[]", 0, "empty character class '[]'"),
    RejectCase("x[^]", 1, "empty character class '[]'"),
    RejectCase("*a", 0, "nothing to repeat"),
    RejectCase("a**", 2, "nothing to repeat"),
    RejectCase("a+*", 2, "nothing to repeat"),
    RejectCase("a*?+", 3, "nothing to repeat"),
    RejectCase("a|+", 2, "nothing to repeat"),
    RejectCase("(*)", 1, "nothing to repeat"),
    RejectCase("{2}", 0, "nothing to repeat"),
    RejectCase("^*", 1, "nothing to repeat"),
    RejectCase(#"\b+"#, 2, "nothing to repeat"),
    RejectCase("(?i)*", 4, "nothing to repeat"),
    RejectCase("a{2}{3}", 4, "nothing to repeat"),
    RejectCase("[z-a]", 1, "range 'z-a' is out of order"),
    RejectCase("[a-cz-y]", 4, "out of order"),
    RejectCase("a{5,2}", 1, "minimum greater than its maximum"),
    RejectCase("a{1001}", 1, "exceeds the maximum of 1000"),
    RejectCase("a{1,1001}", 1, "exceeds the maximum of 1000"),
    RejectCase("a{", 1, "malformed repetition"),
    RejectCase("a{x}", 1, "malformed repetition"),
    RejectCase("a{,3}", 1, "malformed repetition"),
    RejectCase(#"abc\"#, 3, "trailing backslash"),
    RejectCase(#"\q"#, 0, #"unknown escape '\q'"#),
    RejectCase(#"a\y"#, 1, #"unknown escape '\y'"#),
    RejectCase(#"[\q]"#, 1, "unknown escape"),
    RejectCase(#"\p{Foo}"#, 0, #"unknown Unicode property '\p{Foo}'"#),
    RejectCase(#"x\P{Greek}"#, 1, "unknown Unicode property"),
    RejectCase(#"\p{Lu"#, 0, "missing '}'"),
    RejectCase("[[:foo:]]", 1, "unknown POSIX class"),
    RejectCase(#"\x{110000}"#, 0, "not a valid Unicode scalar value"),
    RejectCase(#"\uD800"#, 0, "not a valid Unicode scalar value"),
    RejectCase(#"\u12"#, 0, "expected 4 hex digits"),
    RejectCase(#"\xG1"#, 0, "expected 2 hex digits"),
    RejectCase(#"\x{}"#, 0, "malformed"),
    RejectCase("(?<1a>x)", 3, "invalid group name"),
    RejectCase("(?z)", 2, "inline flag 'z' is not supported"),
    RejectCase("(?i", 0, "missing ')'"),
    RejectCase("(?%)", 0, "unknown group syntax"),
    RejectCase("(?#abc", 0, "missing ')' to close the comment"),
    RejectCase(#"\X"#, 0, #"'\X' is not supported"#),
    RejectCase(#"\N{DIGIT ONE}"#, 0, "not supported"),
    RejectCase(#"[\d-z]"#, 1, "invalid range"),
    RejectCase(#"[a-\d]"#, 3, "invalid range"),
    RejectCase(#"[\A]"#, 1, "inside a character class"),
    RejectCase(#"[\R]"#, 1, "inside a character class"),
    RejectCase("(a{1000}){1000}", 9, "pattern too complex"),
    RejectCase("(?:(?:a|b|c){1000}){3}", 19, "pattern too complex"),
    RejectCase("e\u{301}x)", 2, "unbalanced ')'"),
    RejectCase("👨‍👩‍👧)", 1, "unbalanced ')'"),
    RejectCase("😀**", 2, "nothing to repeat"),
    RejectCase("日本{1001}", 2, "exceeds the maximum"),
    RejectCase("ü[z-a]", 2, "out of order"),
]

// MARK: - Table-driven tests

@Test(arguments: wholeMatchCases) func wholeStringMatching(_ c: MatchCase) throws { try check(c) }
@Test(arguments: dotCases) func dotMatchesAnyScalarButLineTerminators(_ c: MatchCase) throws { try check(c) }
@Test(arguments: escapeCases) func escapes(_ c: MatchCase) throws { try check(c) }
@Test(arguments: classCases) func characterClasses(_ c: MatchCase) throws { try check(c) }
@Test(arguments: shorthandCases) func unicodeShorthands(_ c: MatchCase) throws { try check(c) }
@Test(arguments: propertyCases) func unicodeProperties(_ c: MatchCase) throws { try check(c) }
@Test(arguments: anchorCases) func anchorsAndWordBoundaries(_ c: MatchCase) throws { try check(c) }
@Test(arguments: quantifierCases) func quantifiers(_ c: MatchCase) throws { try check(c) }
@Test(arguments: inlineFlagCases) func inlineFlags(_ c: MatchCase) throws { try check(c) }
@Test(arguments: caseInsensitiveCases) func caseInsensitiveOption(_ c: MatchCase) throws { try check(c) }
@Test(arguments: diacriticCases) func diacriticInsensitiveOptionAndNormalization(_ c: MatchCase) throws { try check(c) }

@Test(arguments: rejectionCases) func rejectsUnsupportedOrMalformedSyntax(_ c: RejectCase) {
    let error = rejection(c.pattern)
    #expect(error != nil, "expected \(c.pattern.debugDescription) to be rejected")
    guard let error else { return }
    #expect(error.offset == c.offset, "offset of \(error) for \(c.pattern.debugDescription)")
    #expect(error.message.contains(c.fragment), "message \(error.message.debugDescription) lacks \(c.fragment.debugDescription)")
}

// MARK: - Pathological patterns (exponential for backtracking engines)

let pathologicalCases: [MatchCase] = [
    MatchCase("(a+)+b", String(repeating: "a", count: 5_000), false),
    MatchCase("(a|aa)*c", String(repeating: "a", count: 5_000), false),
    MatchCase("(a*)*b", String(repeating: "a", count: 5_000), false),
    MatchCase("(x+x+)+y", String(repeating: "x", count: 5_000), false),
    MatchCase("(a|a)*b", String(repeating: "a", count: 5_000), false),
    MatchCase(#"(\w+\s?)*$"#, String(repeating: "word ", count: 1_000) + "!", false),
    MatchCase("(.*a){12}", String(repeating: "a", count: 11) + String(repeating: "b", count: 5_000), false),
    MatchCase("(a+)+b", String(repeating: "a", count: 5_000) + "b", true),
    MatchCase("(x+x+)+y", String(repeating: "x", count: 5_000) + "y", true),
    MatchCase("(a?){500}a{500}", String(repeating: "a", count: 500), true),
    MatchCase("(?i)(A+)+B", String(repeating: "a", count: 5_000), false),
    MatchCase("(é+)+x", String(repeating: "é", count: 5_000), false),
]

@Test(arguments: pathologicalCases) func pathologicalPatternsFinish(_ c: MatchCase) throws { try check(c) }

// MARK: - Single-purpose tests

@Test func errorOffsetsCountCharactersNotScalars() {
    // "🇺🇸" is two scalars but one Character; "e\u{301}" likewise.
    #expect(rejection("🇺🇸e\u{301}a)")?.offset == 3)
    #expect(rejection("🇺🇸e\u{301}a)")?.message == "unbalanced ')'")
}

@Test func errorDescriptionNamesOffsetAndMessage() {
    let error = rejection("ab(?=c)")
    #expect(error?.offset == 2)
    #expect(error?.description.contains("offset 2") == true)
    #expect(error?.description.contains("lookahead") == true)
}

@Test func errorsAreHashableValues() {
    let first = rejection("a**")
    let second = rejection("a**")
    #expect(first != nil)
    #expect(first == second)
    #expect(first != rejection("a++*"))
}

@Test func programSizeLimitBoundary() {
    // Each literal is one instruction, plus the final match instruction.
    #expect(rejection(String(repeating: "a", count: 19_999)) == nil)
    let error = rejection(String(repeating: "a", count: 20_000))
    #expect(error?.offset == 19_999)
    #expect(error?.message.contains("pattern too complex") == true)
}

@Test func maximumRepetitionCountIsAccepted() throws {
    let regex = try LinearRegex("(?:ab){1000}")
    #expect(regex.matches(String(repeating: "ab", count: 1_000)))
    #expect(!regex.matches(String(repeating: "ab", count: 1_001)))
}

@Test func deepNestingIsRejectedNotCrashing() {
    let deep = String(repeating: "(", count: 5_000) + "a" + String(repeating: ")", count: 5_000)
    let error = rejection(deep)
    #expect(error?.message.contains("pattern too complex") == true)
    #expect(rejection(String(repeating: "(", count: 50) + "a" + String(repeating: ")", count: 50)) == nil)
}

@Test func storesPatternAndFlags() throws {
    let regex = try LinearRegex("a+", caseInsensitive: true, diacriticInsensitive: true)
    #expect(regex.pattern == "a+")
    #expect(regex.caseInsensitive)
    #expect(regex.diacriticInsensitive)
    let plain = try LinearRegex("a+")
    #expect(!plain.caseInsensitive)
    #expect(!plain.diacriticInsensitive)
}

@Test func equalityAndHashingUsePatternAndFlags() throws {
    let a = try LinearRegex("a+")
    let b = try LinearRegex("a+")
    let c = try LinearRegex("a+", caseInsensitive: true)
    let d = try LinearRegex("a+", diacriticInsensitive: true)
    let e = try LinearRegex("b+")
    #expect(a == b)
    #expect(a != c)
    #expect(a != d)
    #expect(a != e)
    #expect(Set([a, b, c, d, e]).count == 4)
}

@Test func regexIsUsableAcrossConcurrentTasks() async throws {
    let regex = try LinearRegex(#"[\p{L}]+\d{2}"#, caseInsensitive: true)
    let results = await withTaskGroup(of: Bool.self) { group in
        for index in 0..<8 {
            group.addTask { regex.matches("Ünïcode\(10 + index)") }
        }
        var collected: [Bool] = []
        for await result in group { collected.append(result) }
        return collected
    }
    #expect(results.count == 8)
    #expect(results.allSatisfy { $0 })
}

@Test func longSubjectsMatchInLinearTime() throws {
    let regex = try LinearRegex(#"(?:[a-z]+\d*,)*[a-z]+"#)
    let chunk = "alpha42,beta,"
    #expect(regex.matches(String(repeating: chunk, count: 2_000) + "omega"))
    #expect(!regex.matches(String(repeating: chunk, count: 2_000) + "omega!"))
}

@Test func reusesCompiledRegexForManySubjects() throws {
    let regex = try LinearRegex(#"[A-Z][a-z]+(?: [A-Z][a-z]+)*"#)
    let good = ["Alice", "Bob Smith", "Élodie Durand"]
    let bad = ["alice", "Bob smith", "Bob  Smith", ""]
    #expect(good.filter(regex.matches) == ["Alice", "Bob Smith"])
    #expect(bad.filter(regex.matches).isEmpty)
}
