@testable import UbiquityPredicate

// String operators, modifiers, LIKE / MATCHES patterns, Unicode, Spotlight's `==` wildcard forms.

private let grocery = Items.name("GroceryList.txt")
private let a = Items.name("a")
private let b = Items.name("b")
private let emptyName = Items.name("")

extension Conformance {
    static let stringCases: [ConformanceCase] = [
        // MARK: ==, = and friends on strings
        row("name == 'GroceryList.txt'", grocery, true),
        row("name = 'GroceryList.txt'", grocery, true),
        row("name == 'grocerylist.txt'", grocery, false),
        row("name ==[c] 'grocerylist.txt'", grocery, true),
        row("name == 'GroceryList'", grocery, false),
        row("name != 'GroceryList.txt'", grocery, false),
        row("name <> 'Other'", grocery, true),
        row("name != 'grocerylist.txt'", grocery, true),
        row("name !=[c] 'grocerylist.txt'", grocery, false),
        row("name < 'b'", a, true),
        row("name < 'a'", a, false),
        row("name <= 'a'", a, true),
        row("name =< 'a'", a, true),
        row("name > 'a'", b, true),
        row("name > 'b'", b, false),
        row("name >= 'b'", b, true),
        row("name => 'c'", b, false),
        row("name < 'B'", a, false),            // "B" (U+0042) sorts before "a" (U+0061)
        row("name <[c] 'B'", a, true),
        row("name >[c] 'A'", b, true),

        // MARK: BEGINSWITH / ENDSWITH / CONTAINS
        row("name BEGINSWITH 'Gro'", grocery, true),
        row("name BEGINSWITH 'gro'", grocery, false),
        row("name BEGINSWITH[c] 'gro'", grocery, true),
        row("name BEGINSWITH 'List'", grocery, false),
        row("name BEGINSWITH 'GroceryList.txt'", grocery, true),
        row("name BEGINSWITH 'GroceryList.txt2'", grocery, false),
        row("name ENDSWITH '.txt'", grocery, true),
        row("name ENDSWITH '.TXT'", grocery, false),
        row("name ENDSWITH[c] '.TXT'", grocery, true),
        row("name ENDSWITH 'Grocery'", grocery, false),
        row("name CONTAINS 'List'", grocery, true),
        row("name CONTAINS 'list'", grocery, false),
        row("name CONTAINS[c] 'LIST'", grocery, true),
        row("name CONTAINS 'xyz'", grocery, false),
        row("name CONTAINS 'GroceryList.txt'", grocery, true),
        row("name CONTAINS[cd] 'CERYLI'", grocery, true),
        row("name BEGINSWITH[d] 'Gro'", grocery, true),
        row("name ENDSWITH[cd] 'LIST.TXT'", grocery, true),

        // MARK: LIKE
        row("name LIKE 'Gro*'", grocery, true),
        row("name LIKE 'gro*'", grocery, false),
        row("name LIKE[c] 'gro*'", grocery, true),
        row("name LIKE '*List*'", grocery, true),
        row("name LIKE '*list*'", grocery, false),
        row("name LIKE 'Grocery?ist.txt'", grocery, true),
        row("name LIKE 'Grocery??ist.txt'", grocery, false),
        row("name LIKE 'G*t'", grocery, true),
        row("name LIKE 'G*x'", grocery, false),
        row("name LIKE '*.txt'", grocery, true),
        row("name LIKE 'GroceryList.tx'", grocery, false),     // LIKE is whole-string
        row("name LIKE 'roceryList.txt'", grocery, false),
        row("name LIKE '*r*r*'", grocery, true),
        row("name LIKE '*r*r*r*'", grocery, false),
        row("name LIKE 'G*y*L*t'", grocery, true),
        row("name LIKE '?rocery*'", grocery, true),
        row("name LIKE '*?'", grocery, true),
        row("name LIKE '???'", Items.name("abc"), true),
        row("name LIKE '????'", Items.name("abc"), false),
        row("name LIKE '*a*a*a*a*a*a*a*b'", Items.name(String(repeating: "a", count: 40) + "c"), false),
        row("name LIKE '*a*b'", Items.name("aXbYaZb"), true),
        row("name LIKE 'a*b*c'", Items.name("abc"), true),
        row("name LIKE 'a*bc*c'", Items.name("abc"), false),
        row("name LIKE 'Item_1'", Items.name("Item_1"), true),       // `_` is literal
        row("name LIKE 'Item_1'", Items.name("ItemX1"), false),
        row("name LIKE '100%'", Items.name("100%"), true),           // `%` is literal
        row("name LIKE '100%'", Items.name("1000"), false),
        row("name LIKE[cd] 'GROCERY*'", grocery, true),
        row("name like 'Gro*'", grocery, true),
        row("name Like[c] 'GRO*'", grocery, true),

        // MARK: LIKE escapes (format-text escapes, then LIKE escapes)
        row(#"name LIKE 'a\*'"#, Items.name("a*"), true),
        row(#"name LIKE 'a\*'"#, Items.name("ab"), false),
        row(#"name LIKE 'a\\*'"#, Items.name("a*"), true),
        row(#"name LIKE 'a\\*'"#, Items.name("abc"), false),
        row(#"name LIKE 'a\?'"#, Items.name("a?"), true),
        row(#"name LIKE 'a\?'"#, Items.name("ab"), false),
        row(#"name LIKE 'a\\\\*'"#, Items.name(#"a\xyz"#), true),   // escaped backslash, then a real star
        row(#"name LIKE 'a\\\\*'"#, Items.name("a*"), false),
        row(#"name LIKE '*\**'"#, Items.name("x*y"), true),
        row(#"name LIKE '*\**'"#, Items.name("xy"), false),
        row(#"name LIKE 'a\b'"#, Items.name("ab"), true),                 // `\b` escapes a plain b
        row(#"name LIKE 'a\b'"#, Items.name(#"a\b"#), false),
        row(#"name LIKE 'a\\'"#, Items.name(#"a\"#), true),               // a trailing escaped backslash
        row(#"name LIKE 'a\\\\'"#, Items.name(#"a\"#), true),
        row("name CONTAINS '*'", Items.name("a*b"), true),                  // only LIKE and == have wildcards
        row("name CONTAINS '*'", Items.name("ab"), false),
        row("name BEGINSWITH '?'", Items.name("?x"), true),
        row("name BEGINSWITH '?'", Items.name("ax"), false),
        row("name ENDSWITH '*'", Items.name("a"), false),

        // MARK: Empty strings
        row("name == ''", emptyName, true),
        row("name == ''", a, false),
        row("name != ''", a, true),
        row("name != ''", emptyName, false),
        row("name BEGINSWITH 'a'", emptyName, false),
        row("name ENDSWITH 'a'", emptyName, false),
        row("name CONTAINS 'a'", emptyName, false),
        row("name LIKE '*'", emptyName, true),
        row("name LIKE '*'", grocery, true),
        row("name LIKE '**'", emptyName, true),
        row("name LIKE ''", emptyName, true),
        row("name LIKE ''", a, false),
        row("name LIKE '?'", emptyName, false),
        row("name LIKE '?*'", emptyName, false),
        row("name MATCHES ''", emptyName, true),
        row("name MATCHES ''", a, false),
        row("name < 'a'", emptyName, true),

        // MARK: MATCHES (whole-string regular expressions)
        row(#"name MATCHES 'Gro.*\.txt'"#, grocery, true),
        row("name MATCHES 'List'", grocery, false),                 // whole string, not a search
        row("name MATCHES '.*List.*'", grocery, true),
        row("name MATCHES[c] 'grocery.*'", grocery, true),
        row("name MATCHES 'grocery.*'", grocery, false),
        row(#"name MATCHES '[A-Z][a-z]+List\.txt'"#, grocery, true),
        row("name MATCHES 'a|b'", b, true),
        row("name MATCHES 'a|b'", Items.name("ab"), false),
        row(#"name MATCHES '\d+'"#, Items.name("2026"), true),
        row(#"name MATCHES '\d+'"#, Items.name("20x26"), false),
        row("name MATCHES '(ab)*c'", Items.name("ababc"), true),
        row("name MATCHES 'x{2,3}'", Items.name("xxxx"), false),
        row("name matches 'a.c'", Items.name("abc"), true),
        row("name MATCHES[d] 'cafe'", Items.name("café"), true),
        row("name MATCHES[cd] 'CAFE'", Items.name("Café"), true),
        row("name MATCHES[c] 'ÉCOLE'", Items.name("école"), true),
        row("name MATCHES 'é'", Items.name("e\u{301}"), true),              // canonical equivalence
        row("name MATCHES 'caf.'", Items.name("cafe\u{301}"), true),
        row("name MATCHES '\u{AC00}\u{11A8}'", Items.name("\u{AC01}"), true),    // 각 as jamo (Foundation's NFC missed it)
        row("name MATCHES '\u{AC01}'", Items.name("\u{AC00}\u{11A8}"), true),
        row("name MATCHES '\u{1100}\u{1161}\u{11A8}'", Items.name("\u{AC01}"), true),
        row("name == '\u{AC00}\u{11A8}'", Items.name("\u{AC01}"), true),
        row("name MATCHES '(a*)*b'", Items.name(String(repeating: "a", count: 40) + "c"), false),
        row("name MATCHES '(a|aa)*c'", Items.name(String(repeating: "a", count: 40) + "c"), true),
    ]

    static let unicodeCases: [ConformanceCase] = [
        // MARK: `?` is exactly one Character (grapheme cluster)
        row("name LIKE '?'", Items.name("é"), true),
        row("name LIKE '?'", Items.name("e\u{301}"), true),          // decomposed é is one Character
        row("name LIKE '??'", Items.name("e\u{301}"), false),
        row("name LIKE '?'", Items.name("🇫🇷"), true),               // a flag: two scalars, one Character
        row("name LIKE '??'", Items.name("🇫🇷"), false),
        row("name LIKE '?'", Items.name("👍🏽"), true),               // emoji + skin tone modifier
        row("name LIKE '?'", Items.name("👨‍👩‍👧"), true),              // ZWJ sequence
        row("name LIKE '?'", Items.name("日"), true),
        row("name LIKE '??'", Items.name("日本"), true),
        row("name LIKE '?'", Items.name("日本"), false),
        row("name LIKE 'caf?'", Items.name("café"), true),
        row("name LIKE 'caf?'", Items.name("cafe\u{301}"), true),
        row("name LIKE '?*?'", Items.name("🇫🇷"), false),
        row("name LIKE 'a?b'", Items.name("a\r\nb"), true),          // CR LF is one Character
        row("name LIKE 'a??b'", Items.name("a\r\nb"), false),
        row("name LIKE '?'", Items.name("\r\n"), true),
        row("name == 'a?b'", Items.name("a\r\nb"), true),
        row("name LIKE '*本'", Items.name("日本"), true),
        row("name LIKE '日*'", Items.name("日本語"), true),
        row("name CONTAINS '本'", Items.name("日本語"), true),
        row("name LIKE '*🎉*'", Items.name("party🎉time"), true),

        // MARK: [c] and [d]
        row("name ==[cd] 'e'", Items.name("É"), true),
        row("name ==[c] 'e'", Items.name("É"), false),
        row("name ==[c] 'é'", Items.name("É"), true),
        row("name ==[d] 'E'", Items.name("É"), true),
        row("name ==[d] 'e'", Items.name("É"), false),
        row("name == 'é'", Items.name("e\u{301}"), true),             // canonical equivalence, no options
        row("name == 'e\\u0301'", Items.name("é"), true),
        row("name != 'é'", Items.name("e\u{301}"), false),
        row("name == 'e'", Items.name("e\u{301}"), false),
        row("name ==[d] 'e'", Items.name("e\u{301}"), true),
        row("name BEGINSWITH 'caf\\u00E9'", Items.name("cafe\u{301} au lait"), true),
        row("name ENDSWITH 'é'", Items.name("cafe\u{301}"), true),
        row("name CONTAINS[d] 'naive'", Items.name("naïve"), true),
        row("name CONTAINS 'naive'", Items.name("naïve"), false),
        row("name LIKE[cd] 'creme*'", Items.name("Crème brûlée"), true),
        row("name LIKE[c] 'creme*'", Items.name("Crème brûlée"), false),
        row("name LIKE[d] 'creme*'", Items.name("crème brûlée"), true),
        row("name LIKE[d] 'creme*'", Items.name("Crème brûlée"), false),
        row("name ==[cd] 'ZURICH'", Items.name("Zürich"), true),
        row("name ==[cd] 'ÅNGSTRÖM'", Items.name("ångström"), true),
        row("name ==[c] 'ÅNGSTRÖM'", Items.name("ångström"), true),
        row("name ==[c] 'STRASSE'", Items.name("straße"), false),     // lowercase mapping, not case folding
        row("name ==[c] 'k'", Items.name("\u{212A}"), true),          // KELVIN SIGN lowercases to k
        row("name ==[cd] 'i'", Items.name("İ"), true),
        row("name BEGINSWITH[cd] 'ecole'", Items.name("École normale"), true),
        row("name ENDSWITH[d] 'e'", Items.name("café"), true),
        row("name IN {'é'}", Items.name("e\u{301}"), true),
        row("name IN[cd] {'E'}", Items.name("é"), true),
        row("name IN[c] {'É'}", Items.name("é"), true),
        row("name IN[c] {'E'}", Items.name("é"), false),
        row("name ==[cd] 'مرحبا'", Items.name("مرحبا"), true),       // RTL text
        row("name CONTAINS 'שלום'", Items.name("a שלום b"), true),

        // MARK: w (word-based)
        row("name == 'list*'cw", grocery, true),
        row("name == 'grocery'cw", grocery, true),
        row("name == 'txt'w", grocery, true),
        row("name == 'list'w", grocery, false),
        row("name == 'List'w", grocery, true),
        row("name ==[cw] 'LIST'", grocery, true),
        row("name LIKE[cw] 'gro*'", grocery, true),
        row("name == 'rocery'cw", grocery, false),
        row("name == 'grocerylist.txt'cw", grocery, true),
        row("name == 'list*'c", grocery, false),
        row("name != 'list'cw", grocery, false),
        row("name != 'milk'cw", grocery, true),
        row("name ==[cdw] 'cafe'", Items.name("Mon Café"), true),
        row("name == 'final'cw", Items.name("draft-v2_final.doc"), true),
    ]

    static let spotlightCases: [ConformanceCase] = [
        // MARK: Spotlight `== 'x'cd` and `==`/`!=` with wildcards
        row("name == 'Item_*'cd", Items.name("item_42"), true),
        row("name == 'Item_*'cd", Items.name("ÎTEM_x"), true),
        row("name == 'Item_*'cd", Items.name("Items"), false),
        row("name == \"Item_*\"cd", Items.name("ITEM_"), true),
        row("name ==[cd] 'Item_*'", Items.name("item_42"), true),
        row("name == 'Item_*'", Items.name("Item_1"), true),
        row("name == 'Item_*'", Items.name("item_1"), false),
        row("name == 'Item_*'c", Items.name("item_1"), true),
        row("name == 'Item_*'d", Items.name("Ítem_1"), true),
        row("name == 'Item?'", Items.name("Item1"), true),
        row("name == 'Item?'", Items.name("Item12"), false),
        row("name == '*'", emptyName, true),
        row("name == '*.txt'", grocery, true),
        row("name != 'Item_*'", Items.name("Item_1"), false),
        row("name != 'Item_*'", Items.name("Other"), true),
        row("name != 'Item_*'cd", Items.name("ITEM_1"), false),
        row("name <> 'Gro*'", grocery, false),
        row("name == 'Item_1'", Items.name("Item_1"), true),           // no wildcard: `_` is literal
        row("name == 'Item_1'", Items.name("ItemX1"), false),
        row(#"name == 'Ite\*'"#, Items.name(#"Ite\*"#), true),         // escaped star: literal, backslash kept
        row(#"name == 'Ite\*'"#, Items.name("Ite*"), false),
        row(#"name == 'Ite\*'"#, Items.name("Item"), false),
        row(#"name == 'a\\b'"#, Items.name(#"a\b"#), true),
        row(#"name == 'a\b'"#, Items.name(#"a\b"#), true),                  // no wildcard: literal, backslash kept
        row(#"name == 'a\b'"#, Items.name("ab"), false),
        row(#"name == 'a\**'"#, Items.name("a*xyz"), true),                // an escaped star, then a wildcard
        row(#"name == 'a\**'"#, Items.name("abc"), false),
        row(#"name == 'x\qy'"#, Items.name(#"x\qy"#), true),           // unknown escape keeps both characters
        row("name == 'a*'cd", Items.name("Ä-file"), true),
        row("name == 'cafe'd", Items.name("café"), true),
        row("name == 'CAFE'c", Items.name("café"), false),
        row("name == 'Gro*'c AND name == '*.TXT'c", grocery, true),
    ]
}
