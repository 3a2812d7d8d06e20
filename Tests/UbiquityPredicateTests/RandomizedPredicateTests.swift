import Foundation
import Testing
@testable import UbiquityPredicate
import UbiquityTesting

// Seeded randomized tests. Every failure message names the seed and iteration; set
// UBIQ_PREDICATE_SEED (decimal or 0x hex) to run another seed.

// MARK: - Generator

enum Seeds {
    static let base: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["UBIQ_PREDICATE_SEED"] {
            if text.hasPrefix("0x"), let v = UInt64(text.dropFirst(2), radix: 16) { return v }
            if let v = UInt64(text) { return v }
        }
        return 0x5EED_2026_1122_0001
    }()

    static func describe(_ salt: UInt64, _ iteration: Int) -> String {
        "seed 0x\(String(base, radix: 16)) salt \(salt) iteration \(iteration) (UBIQ_PREDICATE_SEED=0x\(String(base, radix: 16)))"
    }

    static func generator(_ salt: UInt64, _ iteration: Int) -> SplitMix64 {
        SplitMix64(seed: base ^ (salt &* 0x1000_0000_01B3) &+ UInt64(iteration) &* 0x9E37_79B9)
    }
}

/// Records the first few failures of one property and counts the rest, so one bug cannot drown the log.
struct FailureLog {
    let property: String
    private(set) var count = 0
    /// UBIQ_PREDICATE_SHOW_FAILURES raises how many failures are shown per property.
    private let limit = Int(ProcessInfo.processInfo.environment["UBIQ_PREDICATE_SHOW_FAILURES"] ?? "") ?? 6

    init(_ property: String) { self.property = property }

    mutating func fail(_ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
        count += 1
        if count <= limit { Issue.record(Comment(rawValue: "\(property): \(message())"), sourceLocation: sourceLocation) }
    }

    func finish(sourceLocation: SourceLocation = #_sourceLocation) {
        if count > limit {
            Issue.record(Comment(rawValue: "\(property): \(count) failures in all (first \(limit) shown)"),
                         sourceLocation: sourceLocation)
        }
    }
}

// MARK: - Random values and items

enum Pools {
    static let strings: [String] = [
        "", "a", "A", "b", "abc", "ABC", "Item_1", "item_*", "Gro*", "*.txt", "a?c", "é", "e\u{301}", "É", "café",
        "naïve", "日本", "🇫🇷", "it's", "say \"hi\"", #"back\slash"#, #"a\*"#, "line\nbreak", "tab\t", "\u{301}lead",
        "%@", "$x", "\u{200B}", "Zürich", "straße", "İ", "x y z", "GroceryList.txt", "red", "Red", "blue", "🎉",
        "cr\rlf\r\n", "nul\u{0}", "\u{7F}", "\u{200F}rtl", "\u{2028}", "\u{FEFF}", "a\u{301}\u{302}", "\u{E0041}",
        "مرحبا", "👨‍👩‍👧", "\u{85}", "\u{10FFFF}",
    ]
    static let names: [String] = [
        "", "a", "A", "abc", "Abc.txt", "Item_1", "item_1", "ITEM_2", "GroceryList.txt", "grocery list", "café",
        "cafe\u{301}", "CAFÉ", "naïve.md", "日本語", "🇫🇷 flag", "é", "E", "x", "it's", #"a\*"#, "a*", "Zürich",
    ]
    static let tags: [String] = ["red", "Red", "blue", "green", "café", "cafe\u{301}", "", "work", "r"]
    static let regexes: [String] = ["a.*", "[a-z]+", #".*\.txt"#, "(ab|cd)*", "x?y+", #"\d{1,3}"#, "", "é.*",
                                    "[^/]*", #"\w+\s\w+"#, "(?i)abc"]
    static let integers: [Int64] = [0, 1, -1, 2, 3, 10, 255, 1000, 4096, .max, .min, 1 << 53, -(1 << 53) - 1]
    static let doubles: [Double] = [0.5, -0.5, 2.0, 2.5, 1e20, -1e-7, 1.0 / 3.0, 0.1, 1e3, -0.0, 9_007_199_254_740_992]
    static let dates: [Double] = [Clock.now, Clock.today, Clock.yesterday, Clock.thisWeek, Clock.now + 0.5, 0,
                                  -86_400, 978_307_200, 253_402_300_799, Clock.now - 3600, Clock.now + 0.25]

    static let stringAttributes: [Attribute] = [.name, .displayName, .path, .contentType, .container, .scope, .url]
    static let integerAttributes: [Attribute] = [.size, .ownerUserID, .ownerGroupID]
    static let dateAttributes: [Attribute] = [.creationDate, .contentChangeDate]
    static let boolAttributes: [Attribute] = [.isDirectory, .isPackage, .isHidden, .hasUnresolvedConflicts]
    static let listAttributes: [Attribute] = [.userTags, .contentTypeTree]
}

extension SplitMix64 {
    mutating func randomString() -> String {
        if chance(0.7) { return pick(Pools.strings) }
        let alphabet: [String] = ["a", "b", "A", "*", "?", "\\", "'", "\"", "é", "\u{301}", " ", "_", "%", "🇫🇷", "\n", "日"]
        return (0..<int(0...6)).map { _ in pick(alphabet) }.joined()
    }

    mutating func randomInteger() -> Int64 {
        chance(0.5) ? pick(Pools.integers) : Int64(int(-50...5000))
    }

    mutating func randomDouble() -> Double {
        chance(0.5) ? pick(Pools.doubles) : Double(int(-4000...4000)) / 8
    }

    mutating func randomDate() -> Double {
        switch int(0...9) {
        case 0...3: return pick(Pools.dates)
        case 4...7: return Clock.now + Double(int(-40 * 86_400...40 * 86_400))
        case 8: return Clock.now + Double(int(-1000...1000)) / 4
        default: return Double(int(0...2_000_000_000)) + Double(int(0...9)) / 10   // fractions before 2001 too
        }
    }

    mutating func randomRelativeDate() -> RelativeDate {
        let anchor = pick(RelativeDate.Anchor.allCases)
        let offset: Int64 = switch int(0...5) {
        case 0, 1: 0
        case 2, 3: Int64(int(-3...3))
        case 4: anchor == .now ? Int64(int(-100_000...100_000)) : Int64(int(-400...400))
        default: anchor == .now ? pick([-100_000_000_000, 100_000_000_000]) : pick([-1_000_000, 1_000_000])
        }
        return RelativeDate(anchor, offset: offset)
    }

    /// A random item: each attribute missing, nil, or a value of its type.
    mutating func randomItem() -> AttributeDictionary {
        var values: [Attribute: Value] = [:]
        for attribute in Attribute.all {
            let roll = int(0...19)
            if roll < 5 { continue }
            if roll == 5 { values[attribute] = .null; continue }
            switch attribute.type {
            case .string:
                values[attribute] = .string(attribute == .name ? pick(Pools.names) : randomString())
            case .integer:
                values[attribute] = chance(0.2) ? .double(randomDouble()) : .integer(randomInteger())
            case .date:
                values[attribute] = .date(chance(0.3) ? Clock.context.resolve(randomRelativeDate()) : randomDate())
            case .bool:
                values[attribute] = .bool(chance(0.5))
            case .stringList:
                values[attribute] = .list((0..<int(0...3)).map { _ in .string(pick(Pools.tags)) })
            }
        }
        return AttributeDictionary(values)
    }
}

// MARK: - Random canonical ASTs

/// Builds random predicates in the exact shape the parser produces for valid text, so that
/// `parse(print(ast)) == ast` must hold.
struct ASTBuilder {
    var rng: SplitMix64

    mutating func predicate(depth: Int = 0) -> MetadataPredicate {
        let roll = rng.int(0...9)
        if depth >= 3 || roll < 5 { return .comparison(comparison()) }
        switch roll {
        case 5: return .not(predicate(depth: depth + 1))
        case 6, 7: return .and((0..<rng.int(2...3)).map { _ in predicate(depth: depth + 1) })
        case 8: return .or((0..<rng.int(2...3)).map { _ in predicate(depth: depth + 1) })
        default: return rng.chance(0.3) ? .constant(rng.chance(0.5)) : .comparison(comparison())
        }
    }

    private mutating func stringOptions(word: Bool) -> ComparisonOptions {
        var o: ComparisonOptions = []
        if rng.chance(0.3) { o.insert(.caseInsensitive) }
        if rng.chance(0.2) { o.insert(.diacriticInsensitive) }
        if word, rng.chance(0.15) { o.insert(.wordBased) }
        return o
    }

    private mutating func constants(_ count: Int, _ make: (inout SplitMix64) -> Operand) -> Operand {
        .aggregate((0..<count).map { _ in make(&rng) })
    }

    mutating func comparison() -> Comparison {
        switch rng.int(0...11) {
        case 0...3: return stringComparison()
        case 4, 5: return integerComparison()
        case 6, 7: return dateComparison()
        case 8: return boolComparison()
        default: return listComparison()
        }
    }

    private mutating func stringComparison() -> Comparison {
        let a = Operand.attribute(rng.pick(Pools.stringAttributes))
        let op = rng.pick(ComparisonOperator.allCases)
        let word = [.equal, .notEqual, .like].contains(op)
        let options = stringOptions(word: word)
        let value = Operand.constant(.string(rng.randomString()))
        switch op {
        case .equal, .notEqual:
            switch rng.int(0...5) {
            case 0: return Comparison(a, op, .constant(.null), options: options)
            case 1: return Comparison(.attribute(rng.pick(Pools.stringAttributes)), op, a, options: options)
            case 2: return Comparison(value, op, a, options: options)
            default: return Comparison(a, op, value, options: options)
            }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if rng.chance(0.2) { return Comparison(value, op, a, options: options) }
            return Comparison(a, op, rng.chance(0.2) ? .attribute(rng.pick(Pools.stringAttributes)) : value, options: options)
        case .beginsWith, .endsWith, .contains, .like:
            return Comparison(a, op, value, options: options)
        case .matches:
            return Comparison(a, op, .constant(.string(rng.pick(Pools.regexes))), options: options)
        case .in:
            return Comparison(a, op, constants(rng.int(0...4)) { r in
                r.chance(0.1) ? .constant(.null) : .constant(.string(r.randomString()))
            }, options: options)
        case .between:
            return Comparison(a, op, constants(2) { r in .constant(.string(r.randomString())) }, options: options)
        }
    }

    private static func number(_ r: inout SplitMix64) -> Operand {
        r.chance(0.7) ? .constant(.integer(r.randomInteger())) : .constant(.double(r.randomDouble()))
    }

    private mutating func integerComparison() -> Comparison {
        let a = Operand.attribute(rng.pick(Pools.integerAttributes))
        let op = rng.pick([ComparisonOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .in, .between])
        switch op {
        case .in:
            return Comparison(a, op, constants(rng.int(0...4)) { r in
                r.chance(0.1) ? .constant(.null) : (r.chance(0.7) ? .constant(.integer(r.randomInteger())) : .constant(.double(r.randomDouble())))
            })
        case .between:
            return Comparison(a, op, constants(2) { r in
                r.chance(0.7) ? .constant(.integer(r.randomInteger())) : .constant(.double(r.randomDouble()))
            })
        default:
            if op == .equal || op == .notEqual, rng.chance(0.15) { return Comparison(a, op, .constant(.null)) }
            let value = ASTBuilder.number(&rng)
            switch rng.int(0...4) {
            case 0: return Comparison(value, op, a)
            case 1: return Comparison(a, op, .attribute(rng.pick(Pools.integerAttributes)))
            default: return Comparison(a, op, value)
            }
        }
    }

    private mutating func dateOperand() -> Operand {
        rng.chance(0.5) ? .constant(.date(rng.randomDate())) : .relativeDate(rng.randomRelativeDate())
    }

    private mutating func dateComparison() -> Comparison {
        let a = Operand.attribute(rng.pick(Pools.dateAttributes))
        let op = rng.pick([ComparisonOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .in, .between])
        switch op {
        case .in:
            return Comparison(a, op, .aggregate((0..<rng.int(0...3)).map { _ in dateOperand() }))
        case .between:
            return Comparison(a, op, .aggregate([dateOperand(), dateOperand()]))
        default:
            switch rng.int(0...5) {
            case 0: return Comparison(dateOperand(), op, a)
            case 1: return Comparison(a, op, .attribute(rng.pick(Pools.dateAttributes)))
            case 2 where !op.isOrdering: return Comparison(a, op, .constant(.null))
            default: return Comparison(a, op, dateOperand())
            }
        }
    }

    private mutating func boolComparison() -> Comparison {
        let a = Operand.attribute(rng.pick(Pools.boolAttributes))
        let op = rng.pick([ComparisonOperator.equal, .notEqual, .in])
        if op == .in {
            return Comparison(a, op, constants(rng.int(0...2)) { r in .constant(.bool(r.chance(0.5))) })
        }
        switch rng.int(0...4) {
        case 0: return Comparison(.constant(.bool(rng.chance(0.5))), op, a)
        case 1: return Comparison(a, op, .attribute(rng.pick(Pools.boolAttributes)))
        case 2: return Comparison(a, op, .constant(.null))
        default: return Comparison(a, op, .constant(.bool(rng.chance(0.5))))
        }
    }

    private mutating func listComparison() -> Comparison {
        let a = Operand.attribute(rng.pick(Pools.listAttributes))
        let tag = Operand.constant(.string(rng.chance(0.7) ? rng.pick(Pools.tags) : rng.randomString()))
        switch rng.int(0...5) {
        case 0:   // membership
            return Comparison(a, .contains, tag, options: stringOptions(word: false))
        case 1:
            return Comparison(tag, .in, a, options: stringOptions(word: false))
        case 2:   // implicit ANY
            let op = rng.pick([ComparisonOperator.equal, .notEqual, .beginsWith, .endsWith, .like, .less, .greaterOrEqual])
            return Comparison(a, op, tag, options: stringOptions(word: [.equal, .notEqual, .like].contains(op)))
        default:
            let quantifier = rng.pick([Quantifier.any, .all, .noElement])
            let op = rng.pick([ComparisonOperator.equal, .notEqual, .beginsWith, .endsWith, .contains, .like, .in, .less])
            let right: Operand = op == .in
                ? constants(rng.int(0...3)) { r in .constant(.string(r.pick(Pools.tags))) } : tag
            return Comparison(a, op, right, options: stringOptions(word: [.equal, .notEqual, .like].contains(op)),
                              quantifier: quantifier)
        }
    }
}

// MARK: - Random surface syntax for an AST

/// Writes an AST back as text in a random one of its many accepted spellings, moving some values
/// into `%@`/`%d`/`%f`/`%K` arguments and `$VARIABLES`. Parsing the result must give the AST back.
struct Renderer {
    var rng: SplitMix64
    var arguments: [Value] = []
    var variables: [String: Value] = [:]

    init(rng: SplitMix64) { self.rng = rng }

    private mutating func keyword(_ word: String) -> String {
        switch rng.int(0...3) {
        case 0: return word.lowercased()
        case 1: return word.prefix(1).uppercased() + word.dropFirst().lowercased()
        default: return word
        }
    }

    private mutating func space() -> String { rng.pick([" ", " ", " ", "  ", "\t", "\n", " \n "]) }

    mutating func predicate(_ p: MetadataPredicate) -> String {
        switch p {
        case .constant(let b):
            return keyword(b ? "TRUEPREDICATE" : "FALSEPREDICATE")
        case .not(let inner):
            let not = rng.chance(0.3) ? "!" + (rng.chance(0.5) ? "" : space()) : keyword("NOT") + space()
            switch inner {
            case .and, .or: return not + "(" + predicate(inner) + ")"
            default: return not + maybeParenthesised(inner)
            }
        case .and(let operands):
            return operands.map { operand($0) }.joined(separator: space() + (rng.chance(0.3) ? "&&" : keyword("AND")) + space())
        case .or(let operands):
            return operands.map { operand($0) }.joined(separator: space() + (rng.chance(0.3) ? "||" : keyword("OR")) + space())
        case .comparison(let c):
            return comparison(c)
        }
    }

    private mutating func maybeParenthesised(_ p: MetadataPredicate) -> String {
        rng.chance(0.15) ? "(" + space() + predicate(p) + space() + ")" : predicate(p)
    }

    private mutating func operand(_ p: MetadataPredicate) -> String {
        switch p {
        case .and, .or: return "(" + predicate(p) + ")"
        default: return maybeParenthesised(p)
        }
    }

    private func attributeType(_ o: Operand) -> AttributeType? {
        if case .attribute(let a) = o { return a.type }
        return nil
    }

    mutating func comparison(_ c: Comparison) -> String {
        let peerOfLeft = attributeType(c.right), peerOfRight = attributeType(c.left)
        if c.op == .between, c.quantifier == .single, case .attribute = c.left, case .aggregate(let bounds) = c.right,
           bounds.count == 2, c.options.isEmpty, rng.chance(0.4) {
            let peer = attributeType(c.left)
            return keyword("INRANGE").replacingOccurrences(of: "Inrange", with: "InRange") + "("
                + operand(c.left, peer: nil) + "," + space() + operand(bounds[0], peer: peer) + ", "
                + operand(bounds[1], peer: peer) + ")"
        }
        var text = ""
        switch c.quantifier {
        case .single: break
        case .any: text += keyword(rng.chance(0.5) ? "ANY" : "SOME") + space()
        case .all: text += keyword("ALL") + space()
        case .noElement: text += keyword("NONE") + space()
        }
        text += operand(c.left, peer: peerOfLeft)
        text += space() + opSpelling(c.op)
        // Modifiers: in brackets, or Spotlight-style after a string literal on the right, or split.
        var bracket = c.options, trailing: ComparisonOptions = []
        let rightIsStringLiteral: Bool = { if case .constant(.string) = c.right { true } else { false } }()
        if rightIsStringLiteral, !c.options.isEmpty, rng.chance(0.4) {
            for option in [ComparisonOptions.caseInsensitive, .diacriticInsensitive, .wordBased]
            where c.options.contains(option) && rng.chance(0.7) {
                bracket.remove(option)
                trailing.insert(option)
            }
        }
        if !bracket.isEmpty || rng.chance(0.05) {
            var letters = Array(bracket.letters)
            letters.shuffle(using: &rng)
            if rng.chance(0.2) { letters.append(rng.pick(["n", "l"])) }
            if letters.isEmpty { letters = ["n"] }
            text += "[" + String(letters) + "]"
        }
        text += space()
        if trailing.isEmpty {
            text += operand(c.right, peer: peerOfRight)
        } else {
            guard case .constant(.string(let s)) = c.right else { fatalError("unreachable") }
            var letters = Array(trailing.letters)
            letters.shuffle(using: &rng)
            text += stringLiteral(s) + String(letters)
        }
        return text
    }

    private mutating func opSpelling(_ op: ComparisonOperator) -> String {
        switch op {
        case .equal: return rng.pick(["==", "="])
        case .notEqual: return rng.pick(["!=", "<>"])
        case .lessOrEqual: return rng.pick(["<=", "=<"])
        case .greaterOrEqual: return rng.pick([">=", "=>"])
        case .less, .greater: return op.rawValue
        default: return keyword(op.rawValue)
        }
    }

    private mutating func argument(_ v: Value, spec: String = "@") -> String {
        arguments.append(v)
        return "%" + spec
    }

    private mutating func variable(_ v: Value) -> String {
        let name = "V\(variables.count)_\(rng.int(0...99))"
        variables[name] = v
        return "$" + name
    }

    mutating func operand(_ o: Operand, peer: AttributeType?) -> String {
        switch o {
        case .attribute(let a):
            if rng.chance(0.1) { return argument(.string(rng.pick([a.canonicalName] + a.aliases)), spec: "K") }
            let spelling = rng.pick([a.canonicalName] + a.aliases)
            return rng.chance(0.1) ? "#" + spelling : spelling
        case .column(let c):
            return c.name   // not generated: these predicates read attributes
        case .relativeDate(let r):
            var text = "$" + rng.pick(["time", "time", "TIME", "Time"]) + "." + keyword(r.anchor.rawValue)
            if r.offset != 0 || rng.chance(0.2) { text += "(" + String(r.offset) + ")" }
            return text
        case .aggregate(let items):
            let plain = items.compactMap { item -> Value? in if case .constant(let v) = item { v } else { nil } }
            if plain.count == items.count, rng.chance(0.15) {
                return rng.chance(0.5) ? argument(.list(plain)) : variable(.list(plain))
            }
            return "{" + items.map { operand($0, peer: peer) }.joined(separator: rng.pick([", ", ",", " , "])) + "}"
        case .constant(let v):
            switch rng.int(0...9) {
            case 0: return argument(v)
            case 1: return variable(v)
            case 2:
                if case .integer = v { return argument(v, spec: rng.pick(["d", "i", "ld", "lld", "u", "qi"])) }
                if case .double = v { return argument(v, spec: rng.pick(["f", "lf", "g", "e"])) }
                return literal(v, peer: peer)
            default:
                return literal(v, peer: peer)
            }
        }
    }

    mutating func stringLiteral(_ s: String) -> String {
        let quote: Character = rng.chance(0.5) ? "'" : "\""
        var out = String(quote)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "'" where quote == "'": out += "\\'"
            case "\"" where quote == "\"": out += "\\\""
            case "\n": out += rng.chance(0.5) ? "\\n" : "\n"
            case "\t": out += rng.chance(0.5) ? "\\t" : "\t"
            case "\r": out += rng.chance(0.5) ? "\\r" : "\r"
            case "\u{0}": out += rng.chance(0.5) ? "\\0" : "\u{0}"
            default:
                if scalar.value > 0x7F, rng.chance(0.2) {
                    out += rng.chance(0.5) || scalar.value > 0xFFFF
                        ? "\\u{" + String(scalar.value, radix: 16) + "}"
                        : "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                            + String(scalar.value, radix: 16, uppercase: true)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out.append(quote)
        return out
    }

    mutating func literal(_ v: Value, peer: AttributeType?) -> String {
        switch v {
        case .null:
            return rng.pick(["nil", "NIL", "null", "NULL", "Nil"])
        case .bool(let b):
            if peer == .bool, rng.chance(0.3) { return b ? "1" : "0" }
            return rng.pick(b ? ["TRUE", "YES", "true", "yes", "True"] : ["FALSE", "NO", "false", "no", "No"])
        case .integer(let i):
            switch rng.int(0...5) {
            case 0 where i >= 0: return "0x" + String(i, radix: 16, uppercase: rng.chance(0.5))
            case 1 where i >= 0: return "+" + String(i)
            case 2 where i >= 0 && i < 1 << 20: return "0b" + String(i, radix: 2)
            case 3 where i < 0: return "-0x" + String(i.magnitude, radix: 16)
            default: return String(i)
            }
        case .double(let d):
            let text = Printer.literal(v)
            if d == d.rounded(), abs(d) < 1e15, rng.chance(0.3) { return String(Int64(d)) + "." }
            if text.hasPrefix("0."), rng.chance(0.3) { return String(text.dropFirst()) }
            if text.hasPrefix("-0.") && d != 0, rng.chance(0.3) { return "-" + String(text.dropFirst(2)) }
            return text
        case .string(let s):
            return stringLiteral(s)
        case .date(let seconds):
            if ISODate.formatsExactly(seconds) {
                let iso = ISODate.format(seconds)
                switch rng.int(0...3) {
                case 0 where peer == .date: return stringLiteral(iso)
                case 1: return "$time.iso('" + iso + "')"
                case 2 where seconds.truncatingRemainder(dividingBy: 86_400) == 0:
                    return "$time.iso(" + String(iso.prefix(10)) + ")"
                default: return "$time.iso(" + iso + ")"
                }
            }
            let sinceReference = seconds - ISODate.referenceDateOffset
            if sinceReference + ISODate.referenceDateOffset == seconds, rng.chance(0.5) {
                return "CAST(" + Printer.literal(.double(sinceReference)) + ", 'NSDate')"
            }
            return Printer.literal(v)
        case .list(let items):
            return "{" + items.map { literal($0, peer: peer) }.joined(separator: ", ") + "}"
        }
    }
}

// MARK: - Tests

@Suite("Randomized", .ownThreads)
struct RandomizedPredicateTests {
    static let iterations = 2_000

    @Test("random canonical ASTs round-trip through their printed form and evaluate alike")
    func astRoundTrip() {
        var roundTrip = FailureLog("print/parse round trip")
        var evaluation = FailureLog("evaluation")
        for i in 0..<Self.iterations {
            var builder = ASTBuilder(rng: Seeds.generator(1, i))
            let ast = builder.predicate()
            var rng = builder.rng
            let text = ast.description
            let parsed: MetadataPredicate
            do {
                parsed = try MetadataPredicate(parsing: text)
            } catch {
                roundTrip.fail("\(Seeds.describe(1, i)): \(text.debugDescription) does not parse: \(error)")
                continue
            }
            if parsed != ast {
                roundTrip.fail("\(Seeds.describe(1, i)): \(text.debugDescription) parsed to \(parsed.description.debugDescription), not the AST \(ast)")
            }
            if parsed.description != text {
                roundTrip.fail("\(Seeds.describe(1, i)): printed twice differently: \(text.debugDescription) / \(parsed.description.debugDescription)")
            }
            let negated = try? MetadataPredicate(parsing: "NOT (" + text + ")")
            let compiledAST = ast.compiled(Clock.context), compiledParsed = parsed.compiled(Clock.context)
            for _ in 0..<3 {
                let item = rng.randomItem()
                let a = compiledAST.evaluate(item), b = compiledParsed.evaluate(item)
                let once = ast.evaluate(item, context: Clock.context)
                if a != b || a != once {
                    evaluation.fail("\(Seeds.describe(1, i)): \(text) gives \(a) (AST), \(b) (reparsed), \(once) (evaluate) on \(item.values)")
                }
                if let negated, negated.evaluate(item, context: Clock.context) == a {
                    evaluation.fail("\(Seeds.describe(1, i)): NOT (\(text)) is not the negation on \(item.values)")
                }
                if a, let hint = ast.nameHint {
                    let name: String? = if case .string(let s)? = item[.name] { s } else { nil }
                    if name.map({ !nameSatisfies($0, hint) }) ?? true {
                        evaluation.fail("\(Seeds.describe(1, i)): \(text) matches name \(String(describing: name)) outside its hint \(hint)")
                    }
                }
            }
        }
        roundTrip.finish()
        evaluation.finish()
    }

    @Test("random spellings of random ASTs parse to the same AST")
    func spellings() {
        var log = FailureLog("alternative spellings")
        for i in 0..<Self.iterations {
            var builder = ASTBuilder(rng: Seeds.generator(2, i))
            let ast = builder.predicate()
            var renderer = Renderer(rng: builder.rng)
            let text = renderer.predicate(ast)
            do {
                let parsed = try MetadataPredicate(parsing: text, arguments: renderer.arguments, variables: renderer.variables)
                if parsed != ast {
                    log.fail("\(Seeds.describe(2, i)): \(text.debugDescription) args \(renderer.arguments) vars \(renderer.variables) parsed to \(parsed), expected \(ast)")
                }
            } catch {
                log.fail("\(Seeds.describe(2, i)): \(text.debugDescription) args \(renderer.arguments) vars \(renderer.variables) (for \(ast)) does not parse: \(error)")
            }
        }
        log.finish()
    }

    static let soup: [String] = [
        "name", "size", "tags", "modified", "isHidden", "kMDItemFSName", "==", "=", "!=", "<>", "<", "<=", ">", ">=",
        "=>", "=<", "'", "\"", "'abc'", "\"x\"", "\\", "(", ")", "{", "}", "[", "]", "[c]", "[cd]", "cd", "w", ",",
        "%@", "%K", "%d", "%f", "%", "%ll", "$", "$X", "$time.", "$time.today", "$time.iso(", "$time.now(-1)", "AND",
        "OR", "NOT", "!", "&&", "||", "&", "|", "ANY", "ALL", "NONE", "SOME", "IN", "BETWEEN", "LIKE", "MATCHES",
        "BEGINSWITH", "CONTAINS", "0x", "0b2", "1e", "1e5", "-", "+", ".", "..", "1", "2.5", "-0", "99999999999999999999",
        "#", "#AND", "é", "\u{301}", "🇫🇷", "\u{0}", "\n", " ", " ", " ", "CAST(", "'NSDate'", "InRange(", "nil",
        "TRUEPREDICATE", "FALSEPREDICATE", "YES", "\u{FEFF}", "\u{202E}", "日本", "@", "~", "?", "*", ";",
    ]

    /// Checks the contract for arbitrary text: either a predicate that round-trips, or an error inside the text.
    static func checkArbitrary(_ text: String, _ arguments: [Value], _ where_: String, _ log: inout FailureLog, _ rng: inout SplitMix64) {
        do {
            let p = try MetadataPredicate(parsing: text, arguments: arguments)
            let printed = p.description
            do {
                let again = try MetadataPredicate(parsing: printed)
                if again != p {
                    log.fail("\(where_): \(text.debugDescription) args \(arguments) → \(printed.debugDescription) reparses differently: \(again)")
                }
            } catch {
                log.fail("\(where_): \(text.debugDescription) args \(arguments) printed \(printed.debugDescription), which does not parse: \(error)")
            }
            let item = rng.randomItem()
            if p.compiled(Clock.context).evaluate(item) != p.evaluate(item, context: Clock.context) {
                log.fail("\(where_): \(text.debugDescription) compiled and one-shot evaluation disagree")
            }
        } catch {
            let length = text.unicodeScalars.count
            if !(0...length).contains(error.offset) {
                log.fail("\(where_): \(text.debugDescription) error offset \(error.offset) outside 0...\(length): \(error)")
            }
            if error.message.isEmpty || error.description != "predicate error at \(error.offset): \(error.message)" {
                log.fail("\(where_): \(text.debugDescription) malformed error \(error.description.debugDescription)")
            }
        }
    }

    @Test("random token soup and bytes never crash and report offsets inside the text")
    func garbage() {
        var log = FailureLog("garbage text")
        for i in 0..<Self.iterations {
            var rng = Seeds.generator(3, i)
            var text = ""
            for _ in 0..<rng.int(0...14) {
                if rng.chance(0.15) {
                    // A random scalar, any plane (surrogates are not scalars).
                    let v = UInt32(rng.int(0...0x10FFFF))
                    text.unicodeScalars.append(Unicode.Scalar(v) ?? "?")
                } else {
                    text += Self.soup[rng.int(0...(Self.soup.count - 1))]
                }
                if rng.chance(0.5) { text += " " }
            }
            let arguments: [Value] = (0..<rng.int(0...3)).map { _ in
                rng.pick([.string("name"), .string("x"), .integer(3), .double(2.5), .null, .bool(true),
                          .date(Clock.now), .list([.string("a"), .integer(1)]), .string("2026-11-22")])
            }
            Self.checkArbitrary(text, arguments, Seeds.describe(3, i), &log, &rng)
        }
        log.finish()
    }

    @Test("single-edit mutations of valid predicates never crash and report offsets inside the text")
    func mutations() {
        var log = FailureLog("mutated text")
        for i in 0..<Self.iterations {
            var builder = ASTBuilder(rng: Seeds.generator(4, i))
            let ast = builder.predicate()
            var rng = builder.rng
            var scalars = Array(ast.description.unicodeScalars)
            for _ in 0..<rng.int(1...3) {
                let position = rng.int(0...scalars.count)
                switch rng.int(0...3) {
                case 0 where position < scalars.count: scalars.remove(at: position)
                case 1: scalars.insert(contentsOf: rng.pick(Self.soup).unicodeScalars, at: position)
                case 2 where position < scalars.count:
                    scalars[position] = rng.pick(Array("'\"\\(){}[],%$#!=<>&|*?.-+0123456789cdwé\u{301} ".unicodeScalars))
                default:
                    let cut = rng.int(0...scalars.count)
                    scalars = Array(scalars[..<min(position, cut)]) + Array(scalars[max(position, cut)...])
                }
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            Self.checkArbitrary(text, [], Seeds.describe(4, i), &log, &rng)
        }
        log.finish()
    }

    // MARK: Oracles

    /// Reference LIKE over Characters: `*` any run, `?` one Character, `\` escapes.
    static func likeOracle(_ pattern: [Character], _ text: [Character]) -> Bool {
        // Classic dynamic programming over (pattern index, text index).
        var units: [(Character?, Bool)] = []   // (literal, isStar); nil literal = `?`
        var i = 0
        while i < pattern.count {
            let c = pattern[i]
            if c == "\\", i + 1 < pattern.count { units.append((pattern[i + 1], false)); i += 2; continue }
            if c == "*" { units.append((nil, true)) } else if c == "?" { units.append((nil, false)) } else { units.append((c, false)) }
            i += 1
        }
        var row = [Bool](repeating: false, count: text.count + 1)
        row[0] = true
        for (literal, isStar) in units {
            var next = [Bool](repeating: false, count: text.count + 1)
            if isStar {
                var any = false
                for j in 0...text.count { any = any || row[j]; next[j] = any }
            } else {
                for j in 0..<text.count where row[j] && (literal == nil || literal == text[j]) { next[j + 1] = true }
            }
            row = next
        }
        return row[text.count]
    }

    static func hasUnescapedWildcard(_ pattern: String) -> Bool {
        var escaped = false
        for c in pattern {
            if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "*" || c == "?" { return true }
        }
        return false
    }

    @Test("LIKE and Spotlight == agree with a reference glob matcher (Characters, [c], canonical equivalence)")
    func likeOracle() throws {
        var log = FailureLog("LIKE oracle")
        let patternAlphabet: [String] = ["a", "b", "A", "?", "*", "*", "é", "e\u{301}", "🇫🇷", #"\*"#, "日", "."]
        let textAlphabet: [String] = ["a", "b", "A", "B", "é", "É", "e\u{301}", "🇫🇷", "*", "日", ".", "e", "\r\n"]
        for i in 0..<Self.iterations {
            var rng = Seeds.generator(5, i)
            // Every other iteration uses tiny alphabets, so that exact-length patterns often line up.
            let small = i % 2 == 0
            let pattern = (0..<rng.int(0...5)).map { _ in rng.pick(small ? ["a", "?", "?", "*"] : patternAlphabet) }.joined()
            let subject = (0..<rng.int(0...6)).map { _ in rng.pick(small ? ["a", "\r\n", "é"] : textAlphabet) }.joined()
            let caseInsensitive = rng.chance(0.3)
            let p = caseInsensitive ? pattern.lowercased() : pattern
            let s = caseInsensitive ? subject.lowercased() : subject
            let expected = Self.likeOracle(Array(p), Array(s))
            let literal = "'" + pattern.replacingOccurrences(of: "\\", with: "\\\\") + "'"
            let like = try MetadataPredicate(parsing: "name LIKE\(caseInsensitive ? "[c]" : "") " + literal)
            let item = Items.name(subject)
            let got = like.evaluate(item, context: Clock.context)
            if got != expected {
                log.fail("\(Seeds.describe(5, i)): name LIKE\(caseInsensitive ? "[c]" : "") \(literal) on \(subject.debugDescription) gave \(got), expected \(expected)")
            }
            // Decomposing both sides must not change the answer (canonical equivalence).
            let nfd = Items.name(subject.decomposedStringWithCanonicalMapping)
            let likeNFD = try MetadataPredicate(parsing: "name LIKE\(caseInsensitive ? "[c]" : "") "
                + "'" + pattern.decomposedStringWithCanonicalMapping.replacingOccurrences(of: "\\", with: "\\\\") + "'")
            if likeNFD.evaluate(nfd, context: Clock.context) != expected {
                log.fail("\(Seeds.describe(5, i)): decomposed forms of \(literal) / \(subject.debugDescription) disagree")
            }
            // With an unescaped wildcard, Spotlight's == is the same match.
            if Self.hasUnescapedWildcard(pattern) {
                let spotlight = try MetadataPredicate(parsing: "name == " + literal + (caseInsensitive ? "c" : ""))
                if spotlight.evaluate(item, context: Clock.context) != expected {
                    log.fail("\(Seeds.describe(5, i)): name == \(literal) on \(subject.debugDescription) differs from the reference (\(expected))")
                }
            }
        }
        log.finish()
    }

    @Test("BEGINSWITH, ENDSWITH, CONTAINS and == agree with a reference fold (Characters, [c], [d])")
    func stringOracle() throws {
        var log = FailureLog("string oracle")
        let alphabet: [String] = ["a", "A", "b", "é", "É", "e\u{301}", "e", "E", "ß", "ı", "🇫🇷", "ö", "o", "İ", "i"]
        func fold(_ s: String, _ c: Bool, _ d: Bool) -> [Character] {
            var t = s
            if d {
                var scalars = String.UnicodeScalarView()
                for u in t.decomposedStringWithCanonicalMapping.unicodeScalars
                where ![.nonspacingMark, .spacingMark, .enclosingMark].contains(u.properties.generalCategory) {
                    scalars.append(u)
                }
                t = String(scalars)
            }
            if c { t = t.lowercased() }
            return Array(t)
        }
        for i in 0..<Self.iterations {
            var rng = Seeds.generator(6, i)
            let needle = (0..<rng.int(1...3)).map { _ in rng.pick(alphabet) }.joined()
            let subject = (0..<rng.int(0...5)).map { _ in rng.pick(alphabet) }.joined()
            let c = rng.chance(0.5), d = rng.chance(0.5)
            let options = (c ? "c" : "") + (d ? "d" : "")
            let n = fold(needle, c, d), s = fold(subject, c, d)
            let op = rng.pick(["BEGINSWITH", "ENDSWITH", "CONTAINS", "=="])
            let expected: Bool = switch op {
            case "BEGINSWITH": s.starts(with: n)
            case "ENDSWITH": s.reversed().starts(with: n.reversed())
            case "CONTAINS": n.count <= s.count && (0...(s.count - n.count)).contains { s[$0..<($0 + n.count)].elementsEqual(n) }
            default: s == n
            }
            let text = "name \(op)\(options.isEmpty ? "" : "[\(options)]") '\(needle)'"
            let got = try MetadataPredicate(parsing: text).evaluate(Items.name(subject), context: Clock.context)
            if got != expected {
                log.fail("\(Seeds.describe(6, i)): \(text) on \(subject.debugDescription) gave \(got), expected \(expected)")
            }
        }
        log.finish()
    }

    @Test("numeric comparisons agree with exact arithmetic")
    func numericOracle() throws {
        var log = FailureLog("numeric oracle")
        let ops: [(String, (Double, Double) -> Bool)] = [("==", { $0 == $1 }), ("!=", { $0 != $1 }), ("<", { $0 < $1 }),
                                                          ("<=", { $0 <= $1 }), (">", { $0 > $1 }), (">=", { $0 >= $1 })]
        for i in 0..<Self.iterations {
            var rng = Seeds.generator(7, i)
            // Below 2^52 every integer and every multiple of 1/8 is exact in a Double.
            let size = Int64(rng.int(-2_000...2_000)) * (rng.chance(0.2) ? 1 << 40 : 1)
            let literalIsDouble = rng.chance(0.5)
            let literal = literalIsDouble ? Double(rng.int(-16_000...16_000)) / 8 * (rng.chance(0.2) ? 1_099_511_627_776.0 : 1.0)
                : Double(rng.int(-2_000...2_000))
            let (op, reference) = rng.pick(ops)
            let literalText = literalIsDouble ? Printer.literal(.double(literal)) : String(Int64(literal))
            let itemIsDouble = rng.chance(0.2)
            let item = itemIsDouble ? Items.sizeDouble(Double(size)) : Items.size(size)
            let text = "size \(op) \(literalText)"
            let got = try MetadataPredicate(parsing: text).evaluate(item, context: Clock.context)
            if got != reference(Double(size), literal) {
                log.fail("\(Seeds.describe(7, i)): \(text) on size \(size) gave \(got)")
            }
        }
        log.finish()
    }
}
