import Testing
@testable import UbiquityPredicate

// Sort descriptors: `name`, `+name`, `-modified`, `modified:desc`, `size:asc`; missing values first
// (ascending); strings case-insensitive then exact; final tie-break by path ascending.

private func entry(_ path: String, _ values: [Attribute: Value] = [:]) -> AttributeDictionary {
    var all = values
    all[.path] = .string(path)
    return AttributeDictionary(all)
}

private func sorted(_ items: [AttributeDictionary], _ keys: [String]) throws -> [String] {
    let descriptors = try keys.map { try MetadataSortDescriptor(parsing: $0) }
    return items.sorted { MetadataSortDescriptor.areInIncreasingOrder($0, $1, by: descriptors) }
        .map { if case .string(let p)? = $0[.path] { p } else { "?" } }
}

@Suite("Sort descriptors")
struct SortDescriptorTests {
    // MARK: Parsing

    static let spellings: [(String, Attribute, Bool, Int)] = [
        ("name", .name, true, #line),
        ("+name", .name, true, #line),
        ("-name", .name, false, #line),
        ("kMDItemFSName", .name, true, #line),
        ("NSMetadataItemFSNameKey", .name, true, #line),
        ("-modified", .contentChangeDate, false, #line),
        ("modified:desc", .contentChangeDate, false, #line),
        ("modified:asc", .contentChangeDate, true, #line),
        ("size:asc", .size, true, #line),
        ("size:desc", .size, false, #line),
        ("size:DESC", .size, false, #line),
        ("+kMDItemFSSize:asc", .size, true, #line),
        ("-kMDItemFSContentChangeDate", .contentChangeDate, false, #line),
        ("created", .creationDate, true, #line),
        ("isHidden:desc", .isHidden, false, #line),
        ("tags", .userTags, true, #line),
    ]

    @Test("every spelling parses to its attribute and direction")
    func spellingsParse() throws {
        for (text, attribute, ascending, line) in Self.spellings {
            let d = try MetadataSortDescriptor(parsing: text)
            #expect(d.attribute == attribute, "line \(line): \(text) → \(d.attribute)")
            #expect(d.ascending == ascending, "line \(line): \(text) ascending \(d.ascending)")
            #expect(d == MetadataSortDescriptor(attribute, ascending: ascending), "line \(line)")
            // The printed form parses back to the same descriptor.
            #expect(try MetadataSortDescriptor(parsing: d.description) == d, "line \(line): \(d.description)")
        }
    }

    static let errors: [(String, String, ClosedRange<Int>, String, Int)] = [
        ("", "predicate.syntax", 0...0, "empty sort key", #line),
        (":desc", "predicate.syntax", 0...0, "empty sort key", #line),
        ("-", "predicate.syntax", 0...1, "empty sort key", #line),
        ("nme", "predicate.unknownAttribute", 0...0, "did you mean 'name'?", #line),
        ("-nme", "predicate.unknownAttribute", 1...1, "unknown sort attribute 'nme'", #line),
        ("+sise:desc", "predicate.unknownAttribute", 1...1, "did you mean 'size'?", #line),
        ("bogus", "predicate.unknownAttribute", 0...0, "unknown sort attribute 'bogus'", #line),
        ("name:up", "predicate.syntax", 5...5, "expected asc or desc", #line),
        ("-modified:sideways", "predicate.syntax", 10...10, "expected asc or desc", #line),
        ("modified:", "predicate.syntax", 9...9, "expected asc or desc", #line),
        ("  name:up", "predicate.syntax", 7...7, "expected asc or desc", #line),     // offsets count from the text
    ]

    @Test("malformed sort keys are rejected with code, offset and message")
    func malformed() {
        for (text, code, offsets, message, line) in Self.errors {
            do {
                let d = try MetadataSortDescriptor(parsing: text)
                Issue.record("line \(line): \(text.debugDescription) parsed as \(d)")
            } catch {
                #expect(error.code.rawValue == code, "line \(line): \(text.debugDescription) code \(error.code)")
                #expect(offsets.contains(error.offset), "line \(line): \(text.debugDescription) offset \(error.offset)")
                #expect(error.message.contains(message), "line \(line): \(text.debugDescription) message \(error.message)")
                #expect(error.description == "predicate error at \(error.offset): \(error.message)")
            }
        }
    }

    // MARK: Ordering

    @Test("missing values sort first when ascending, last when descending")
    func missingFirst() throws {
        let items = [entry("/2", [.size: .integer(2)]), entry("/none"), entry("/1", [.size: .integer(1)]),
                     entry("/null", [.size: .null])]
        #expect(try sorted(items, ["size"]) == ["/none", "/null", "/1", "/2"])
        #expect(try sorted(items, ["-size"]) == ["/2", "/1", "/none", "/null"])
    }

    @Test("strings sort case-insensitively, then exactly")
    func strings() throws {
        let names = ["banana", "Apple", "cherry", "apple", "Banana", "APPLE"]
        let items = names.map { entry("/\($0)", [.name: .string($0)]) }
        // Case-insensitive groups first; inside a group the exact order (uppercase before lowercase).
        #expect(try sorted(items, ["name"]) == ["/APPLE", "/Apple", "/apple", "/Banana", "/banana", "/cherry"])
        #expect(try sorted(items, ["name:desc"]) == ["/cherry", "/banana", "/Banana", "/apple", "/Apple", "/APPLE"])
    }

    @Test("numbers sort numerically across integers and doubles")
    func numbers() throws {
        let items = [entry("/ten", [.size: .integer(10)]), entry("/two", [.size: .integer(2)]),
                     entry("/one-and-half", [.size: .double(1.5)]), entry("/minus", [.size: .integer(-3)]),
                     entry("/big", [.size: .integer(Int64.max)])]
        #expect(try sorted(items, ["size"]) == ["/minus", "/one-and-half", "/two", "/ten", "/big"])
        #expect(try sorted(items, ["size:desc"]) == ["/big", "/ten", "/two", "/one-and-half", "/minus"])
    }

    @Test("dates sort chronologically; -modified is newest first")
    func dates() throws {
        let items = [entry("/today", [.contentChangeDate: .date(Clock.today)]),
                     entry("/old", [.contentChangeDate: .date(-86_400)]),
                     entry("/now", [.contentChangeDate: .date(Clock.now)]),
                     entry("/half", [.contentChangeDate: .date(Clock.now + 0.5)])]
        #expect(try sorted(items, ["modified"]) == ["/old", "/today", "/now", "/half"])
        #expect(try sorted(items, ["-modified"]) == ["/half", "/now", "/today", "/old"])
        #expect(try sorted(items, ["modified:desc"]) == ["/half", "/now", "/today", "/old"])
    }

    @Test("equal keys fall back to the path, ascending, whatever the direction")
    func pathTieBreak() throws {
        let items = [entry("/c", [.name: .string("same")]), entry("/a", [.name: .string("same")]),
                     entry("/b", [.name: .string("same")]), entry("/a/z", [.name: .string("same")])]
        #expect(try sorted(items, ["name"]) == ["/a", "/a/z", "/b", "/c"])
        #expect(try sorted(items, ["-name"]) == ["/a", "/a/z", "/b", "/c"])
        #expect(try sorted(items, []) == ["/a", "/a/z", "/b", "/c"])
    }

    @Test("later keys break ties of earlier keys")
    func multipleKeys() throws {
        let items = [entry("/1", [.isDirectory: .bool(false), .name: .string("b")]),
                     entry("/2", [.isDirectory: .bool(true), .name: .string("z")]),
                     entry("/3", [.isDirectory: .bool(false), .name: .string("a")]),
                     entry("/4", [.isDirectory: .bool(true), .name: .string("c")])]
        #expect(try sorted(items, ["-isDirectory", "name"]) == ["/4", "/2", "/3", "/1"])
        #expect(try sorted(items, ["isDirectory", "-name"]) == ["/1", "/3", "/2", "/4"])
    }

    @Test("the order is a strict total order: irreflexive, asymmetric, independent of input order")
    func strictTotalOrder() throws {
        var items: [AttributeDictionary] = []
        for i in 0..<24 {
            var values: [Attribute: Value] = [:]
            if i % 3 != 0 { values[.name] = .string(["a", "B", "b", "A", "c"][i % 5]) }
            if i % 4 != 0 { values[.size] = i % 2 == 0 ? .integer(Int64(i % 5)) : .double(Double(i % 5) + 0.5) }
            items.append(entry("/p\(i)", values))
        }
        let descriptors = [MetadataSortDescriptor(.name), MetadataSortDescriptor(.size, ascending: false)]
        for a in items {
            #expect(!MetadataSortDescriptor.areInIncreasingOrder(a, a, by: descriptors))
            for b in items where MetadataSortDescriptor.areInIncreasingOrder(a, b, by: descriptors) {
                #expect(!MetadataSortDescriptor.areInIncreasingOrder(b, a, by: descriptors))
            }
        }
        let forward = items.sorted { MetadataSortDescriptor.areInIncreasingOrder($0, $1, by: descriptors) }
        let backward = items.reversed().sorted { MetadataSortDescriptor.areInIncreasingOrder($0, $1, by: descriptors) }
        #expect(forward == backward)
        // Missing names come first, and inside them the size order applies (descending, missing last).
        #expect(forward.first?[.name] == nil)
    }

    /// Names spelt decomposed and precomposed, where Swift 6.3's `String` `<` is no order
    /// (`"e\u{301}"` and `"\u{E9}5"`: neither is `<` the other, nor `==`; `"\u{345}"` before
    /// `"\u{323}\u{345}"` against their NFC forms). The order compared with is worked out apart:
    /// each name's NFC form from the standard library's normalizer, byte by byte (with the
    /// case folded first; equal ones then byte by byte, as paths are told apart).
    static let canonicalSpellings = ["e\u{301}", "\u{E9}5", "\u{E9}", "e", "E\u{301}", "\u{C9}4", "\u{345}", "\u{323}\u{345}",
                            "a\u{30A}", "\u{E5}0", "\u{212B}", "\u{C5}", "\u{1100}\u{1161}\u{11A8}", "\u{AC01}1", "z"]

    @Test("strings are ordered canonically: a strict total order over every spelling")
    func canonicalStringOrder() throws {
        let values = Self.canonicalSpellings.map(Value.string)
        for x in values {
            for y in values {
                let xy = try #require(Test.order(x, y, [])), yx = try #require(Test.order(y, x, []))
                #expect(xy == -yx, "\(x) against \(y): \(xy), reversed \(yx)")
                guard case .string(let a) = x, case .string(let b) = y else { continue }
                let reference = Self.referenceOrder(a, b)
                #expect(xy == reference, "\(Array(a.unicodeScalars)) against \(Array(b.unicodeScalars))")
                #expect((xy == 0) == (a == b))
            }
        }
        // Sorted by name, in any input order, the same sequence: the NFC forms' order.
        let items = Self.canonicalSpellings.enumerated().map { entry("/p\($0.offset)", [.name: .string($0.element)]) }
        let descriptors = [MetadataSortDescriptor(.name)]
        let forward = items.sorted { MetadataSortDescriptor.areInIncreasingOrder($0, $1, by: descriptors) }
        let backward = items.reversed().sorted { MetadataSortDescriptor.areInIncreasingOrder($0, $1, by: descriptors) }
        #expect(forward == backward)
        for (a, b) in zip(forward, forward.dropFirst()) {
            guard case .string(let x)? = a[.name], case .string(let y)? = b[.name] else { continue }
            let folded = Self.referenceOrder(Folding.fold(x, .caseInsensitive), Folding.fold(y, .caseInsensitive))
            // Equal but for case (and spelling): then exactly, byte by byte, as paths are told apart.
            #expect(folded < 0 || folded == 0 && !y.utf8.lexicographicallyPrecedes(x.utf8),
                    "\(Array(x.unicodeScalars)) before \(Array(y.unicodeScalars))")
        }
    }

    private static func referenceOrder(_ a: String, _ b: String) -> Int {
        let x = Array(a.canonicallyComposed.utf8), y = Array(b.canonicallyComposed.utf8)
        return x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1
    }
}
