import Testing
@testable import UbiquityPredicate

// Name hints (semantics: "from == (exact; prefix if wildcard), LIKE (prefix before first wildcard,
// exact if none), BEGINSWITH (prefix), IN {strings} (exact set) on kMDItemFSName; AND picks the
// cheapest side, OR unions only if all sides have hints; NOT/[d]/w -> none; [c] -> caseInsensitive").

typealias HintConstraint = NameHint.Constraint

private func hint(_ text: String, args: [Value] = []) -> NameHint?? {
    guard let p = try? MetadataPredicate(parsing: text, arguments: args) else { return .none }
    return .some(p.nameHint)
}

/// Whether `name` satisfies at least one constraint of `hint` (lowercasing both sides when the hint says so).
func nameSatisfies(_ name: String, _ hint: NameHint) -> Bool {
    let subject = hint.caseInsensitive ? name.lowercased() : name
    return hint.constraints.contains { constraint in
        switch constraint {
        case .exact(let s): subject == (hint.caseInsensitive ? s.lowercased() : s)
        case .prefix(let p): subject.hasPrefix(hint.caseInsensitive ? p.lowercased() : p)
        }
    }
}

@Suite("Index hints")
struct IndexHintTests {
    /// (predicate, expected constraints, expected caseInsensitive)
    static let exactHints: [(String, [HintConstraint], Bool, Int)] = [
        ("name == 'x'", [.exact("x")], false, #line),
        ("kMDItemFSName == 'Report.pdf'", [.exact("Report.pdf")], false, #line),
        ("NSMetadataItemFSNameKey = 'x'", [.exact("x")], false, #line),
        ("name == 'Item*'", [.prefix("Item")], false, #line),
        ("name == 'Item_*'c", [.prefix("Item_")], true, #line),
        ("name ==[c] 'Item_*'", [.prefix("Item_")], true, #line),
        ("name == 'a?c'", [.prefix("a")], false, #line),
        ("name == 'Item_1'", [.exact("Item_1")], false, #line),
        (#"name == 'a\*'"#, [.exact(#"a\*"#)], false, #line),            // no wildcard: literal, backslash kept
        ("name LIKE 'Item_*'", [.prefix("Item_")], false, #line),
        ("name LIKE 'abc'", [.exact("abc")], false, #line),
        ("name LIKE 'ab?d*'", [.prefix("ab")], false, #line),
        (#"name LIKE 'a\*b'"#, [.exact("a*b")], false, #line),
        (#"name LIKE 'a\*b*'"#, [.prefix("a*b")], false, #line),
        ("name LIKE[c] 'ABC*'", [.prefix("ABC")], true, #line),
        ("name BEGINSWITH 'ab'", [.prefix("ab")], false, #line),
        ("name BEGINSWITH[c] 'AB'", [.prefix("AB")], true, #line),
        ("name BEGINSWITH 'a*'", [.prefix("a*")], false, #line),         // BEGINSWITH has no wildcards
        ("name IN {'a', 'b'}", [.exact("a"), .exact("b")], false, #line),
        ("name IN[c] {'A'}", [.exact("A")], true, #line),
        ("name == %@", [.exact("q")], false, #line),
        ("name == 'x' AND size > 1", [.exact("x")], false, #line),
        ("size > 1 AND name BEGINSWITH 'ab'", [.prefix("ab")], false, #line),
        ("name BEGINSWITH 'a' AND name == 'abc'", [.exact("abc")], false, #line),
        ("name LIKE 'a*' AND name IN {'ab'}", [.exact("ab")], false, #line),
        ("name IN {'a', 'b', 'c'} AND name == 'a'", [.exact("a")], false, #line),
        ("name == 'x' AND NOT name == 'y'", [.exact("x")], false, #line),
        ("name == 'a' OR name == 'b'", [.exact("a"), .exact("b")], false, #line),
        ("name == 'a' OR name BEGINSWITH 'x'", [.exact("a"), .prefix("x")], false, #line),
        ("name == 'a' OR name LIKE 'b*' OR name IN {'c'}", [.exact("a"), .prefix("b"), .exact("c")], false, #line),
        ("(name == 'a' OR name == 'b') AND size > 1", [.exact("a"), .exact("b")], false, #line),
        ("name ==[c] 'A' OR name ==[c] 'B'", [.exact("A"), .exact("B")], true, #line),
    ]

    @Test("hints from ==, LIKE, BEGINSWITH, IN, AND and OR")
    func hints() {
        for (text, constraints, ci, line) in Self.exactHints {
            guard case .some(let h) = hint(text, args: text.contains("%@") ? [.string("q")] : []) else {
                Issue.record("line \(line): \(text) does not parse")
                continue
            }
            #expect(h?.constraints == constraints, "line \(line): \(text) gave \(String(describing: h))")
            #expect(h?.caseInsensitive == ci, "line \(line): \(text) caseInsensitive \(String(describing: h?.caseInsensitive))")
        }
    }

    @Test("an OR with one case-insensitive side is case-insensitive")
    func orUnionCaseInsensitive() throws {
        let h = try #require(try MetadataPredicate(parsing: "name ==[c] 'A' OR name == 'b'").nameHint)
        #expect(Set(h.constraints.map { "\($0)" }) == Set([HintConstraint.exact("A"), .exact("b")].map { "\($0)" }))
        #expect(h.caseInsensitive)
    }

    static let noHints: [(String, Int)] = [
        ("NOT name == 'a'", #line),
        ("NOT NOT name == 'a'", #line),
        ("!(name == 'a' OR name == 'b')", #line),
        ("name ==[d] 'a'", #line),
        ("name ==[cd] 'a'", #line),
        ("name == 'Item_*'cd", #line),
        ("name BEGINSWITH[cd] 'a'", #line),
        ("name LIKE[d] 'a*'", #line),
        ("name IN[d] {'a'}", #line),
        ("name == 'a'w", #line),
        ("name ==[cw] 'list*'", #line),
        ("name LIKE[w] 'a*'", #line),
        ("name != 'a'", #line),
        ("name != 'a*'", #line),
        ("name CONTAINS 'a'", #line),
        ("name ENDSWITH '.txt'", #line),
        ("name MATCHES 'a.*'", #line),
        ("name < 'b'", #line),
        ("name BETWEEN {'a', 'b'}", #line),
        ("name == nil", #line),
        ("displayName == 'a'", #line),
        ("path BEGINSWITH '/home'", #line),
        ("ANY tags == 'a'", #line),
        ("size > 1", #line),
        ("TRUEPREDICATE", #line),
        ("name == 'a' OR size > 1", #line),
        ("name == 'a' OR NOT name == 'b'", #line),
        ("name == 'a' OR name ==[d] 'b'", #line),
        ("size > 1 AND isHidden == NO", #line),
    ]

    @Test("no hint from NOT, [d], w, other operators and attributes")
    func noHint() {
        for (text, line) in Self.noHints {
            guard case .some(let h) = hint(text) else {
                Issue.record("line \(line): \(text) does not parse")
                continue
            }
            #expect(h == nil, "line \(line): \(text) gave \(String(describing: h))")
        }
    }

    @Test("a leading wildcard gives no useful constraint")
    func leadingWildcard() {
        for text in ["name == '*x'", "name LIKE '*'", "name LIKE '?abc'", "name == '?'"] {
            guard case .some(let h) = hint(text) else {
                Issue.record("\(text) does not parse")
                continue
            }
            // Either no hint or an empty prefix (which excludes nothing) is correct.
            #expect(h == nil || h?.constraints == [.prefix("")], "\(text) gave \(String(describing: h))")
        }
    }

    @Test("hints never exclude an item the predicate matches")
    func soundness() throws {
        let names = ["a", "A", "ab", "abc", "ABC", "Abc.txt", "b", "B", "x", "Item_1", "item_1", "ITEM_", "Item",
                     "a*", "a*b", #"a\*"#, "é", "e\u{301}", "É", "\u{212A}", "k", "İ", "i", "ß", "", "GroceryList.txt"]
        let predicates = [
            "name == 'a'", "name ==[c] 'a'", "name == 'Item_*'", "name == 'Item_*'c", "name LIKE 'a*'",
            "name LIKE[c] 'AB?'", "name BEGINSWITH[c] 'a'", "name IN {'a', 'b'}", "name IN[c] {'A', 'É'}",
            "name == 'é'", "name ==[c] 'É'", "name ==[c] 'k'", "name LIKE[c] 'i*'", "name BEGINSWITH[c] 'İ'",
            #"name LIKE 'a\*'"#, #"name == 'a\*'"#, "name == 'a*b'", "name == 'e\u{301}*'",
            "name == 'a' OR name ==[c] 'b'", "name BEGINSWITH 'a' AND name LIKE '*c'", "name LIKE 'a?c' OR name == ''",
        ]
        for text in predicates {
            let p = try MetadataPredicate(parsing: text)
            guard let h = p.nameHint else { continue }
            for name in names where p.evaluate(Items.name(name), context: Clock.context) {
                #expect(nameSatisfies(name, h), "\(text) matches \(name.debugDescription) but its hint \(h) excludes it")
            }
        }
    }
}
