import Foundation
import Testing
@testable import UbiquityPredicate

// The conformance table: each case is (predicate text, arguments, item, expected result) with the
// source line, checked against docs/predicates.md (and Apple's NSPredicate where it is silent).
// The cases themselves live in ConformanceCases*.swift; this file holds the runner and fixtures.

// MARK: - Fixed clock

/// The fixed clock every conformance case runs against: Sunday 2026-11-22T10:00:00Z, UTC,
/// weeks starting on Monday.
enum Clock {
    /// 2026-11-22T10:00:00Z (a Sunday).
    static let now: Double = 1_795_341_600
    /// 2026-11-22T00:00:00Z.
    static let today: Double = 1_795_305_600
    /// 2026-11-21T00:00:00Z.
    static let yesterday: Double = 1_795_219_200
    /// 2026-11-23T00:00:00Z.
    static let tomorrow: Double = 1_795_392_000
    /// Monday 2026-11-16T00:00:00Z.
    static let thisWeek: Double = 1_794_787_200
    /// Monday 2026-11-09T00:00:00Z.
    static let lastWeek: Double = 1_794_182_400
    /// 2026-11-01T00:00:00Z.
    static let thisMonth: Double = 1_793_491_200
    /// 2026-12-01T00:00:00Z.
    static let nextMonth: Double = 1_796_083_200
    /// 2025-12-01T00:00:00Z.
    static let sameMonthLastYear: Double = 1_764_547_200
    /// 2026-01-01T00:00:00Z.
    static let thisYear: Double = 1_767_225_600
    /// 2025-01-01T00:00:00Z.
    static let lastYear: Double = 1_735_689_600
    /// 2027-01-01T00:00:00Z.
    static let nextYear: Double = 1_798_761_600
    /// 2001-01-01T00:00:00Z, the reference date of `CAST(number, 'NSDate')`.
    static let referenceDate: Double = 978_307_200

    static let context = EvaluationContext(now: now, timeZone: .utc, firstWeekday: 2)
}

// MARK: - Item builders

/// A few short builders so the tables read like the predicates they test.
enum Items {
    static let empty = AttributeDictionary()

    static func name(_ s: String) -> AttributeDictionary { AttributeDictionary([.name: .string(s)]) }
    static func size(_ i: Int64) -> AttributeDictionary { AttributeDictionary([.size: .integer(i)]) }
    static func sizeDouble(_ d: Double) -> AttributeDictionary { AttributeDictionary([.size: .double(d)]) }
    static func modified(_ seconds: Double) -> AttributeDictionary {
        AttributeDictionary([.contentChangeDate: .date(seconds)])
    }
    static func hidden(_ b: Bool) -> AttributeDictionary { AttributeDictionary([.isHidden: .bool(b)]) }
    static func tags(_ t: [String]) -> AttributeDictionary {
        AttributeDictionary([.userTags: .list(t.map(Value.string))])
    }
    static func make(_ values: [Attribute: Value]) -> AttributeDictionary { AttributeDictionary(values) }

    /// name "a", size 1, not hidden: the item the precedence cases are written against.
    static let abc = AttributeDictionary([.name: .string("a"), .size: .integer(1), .isHidden: .bool(false)])
}

// MARK: - Case type

struct ConformanceCase: Sendable, CustomTestStringConvertible {
    let text: String
    let arguments: [Value]
    let variables: [String: Value]
    let item: AttributeDictionary
    let expected: Bool
    let line: Int
    let file: String

    var testDescription: String { "\(file):\(line) \(text)" }
    var label: String { "case at \(file):\(line): \(text) args=\(arguments) vars=\(variables) item=\(item.values)" }
}

/// Builds one case; `line` is filled in from the call site.
func row(
    _ text: String, _ item: AttributeDictionary, _ expected: Bool,
    args: [Value] = [], vars: [String: Value] = [:],
    file: String = #fileID, line: Int = #line
) -> ConformanceCase {
    ConformanceCase(text: text, arguments: args, variables: vars, item: item, expected: expected, line: line,
                    file: String(file.split(separator: "/").last ?? Substring(file)))
}

/// Every conformance case, from every table.
enum Conformance {
    static let all: [ConformanceCase] =
        stringCases + unicodeCases + spotlightCases + nullCases + numberCases + dateCases + boolCases
        + logicCases + listCases + substitutionCases + literalCases
}

// MARK: - Runner

@Suite("Conformance")
struct ConformanceTests {
    @Test("the table is large enough and every line is distinct")
    func tableSize() {
        #expect(Conformance.all.count >= 320, "only \(Conformance.all.count) conformance cases")
        let keys = Conformance.all.map { "\($0.file):\($0.line)" }
        #expect(Set(keys).count == keys.count, "two cases share a source line; failure messages would be ambiguous")
    }

    @Test("predicate evaluates as the semantics say", arguments: Conformance.all)
    func evaluates(_ c: ConformanceCase) {
        let predicate: MetadataPredicate
        do {
            predicate = try MetadataPredicate(parsing: c.text, arguments: c.arguments, variables: c.variables)
        } catch {
            Issue.record("\(c.label): did not parse: \(error)")
            return
        }
        let once = predicate.evaluate(c.item, context: Clock.context)
        #expect(once == c.expected, "\(c.label): evaluate gave \(once), expected \(c.expected); parsed as \(predicate)")
        let compiled = predicate.compiled(Clock.context).evaluate(c.item)
        #expect(compiled == once, "\(c.label): compiled evaluation (\(compiled)) disagrees with evaluate (\(once))")
    }

    @Test("NOT of every case is its negation", arguments: Conformance.all)
    func negation(_ c: ConformanceCase) throws {
        // Wrapping in NOT (...) keeps the argument order, so the same arguments apply.
        guard let negated = try? MetadataPredicate(parsing: "NOT (\(c.text))", arguments: c.arguments,
                                                    variables: c.variables) else {
            Issue.record("\(c.label): NOT (...) of the case did not parse")
            return
        }
        let result = negated.evaluate(c.item, context: Clock.context)
        #expect(result == !c.expected, "\(c.label): NOT (...) gave \(result)")
    }

    @Test("$time follows the context's time zone (with DST) and first weekday")
    func timeZones() throws {
        // America/New_York's 2026 autumn (EDT until 2026-11-01T06:00:00Z, then EST) and Asia/Tokyo,
        // as offsets; the real zone files are read by the C library in PredicateCommandTests.
        let newYork = EvaluationContext(now: Clock.now, timeZone: TimeZoneOffsets(name: "America/New_York") {
            $0 < 1_793_512_800 ? -4 * 3600 : -5 * 3600
        }, firstWeekday: 2)
        let tokyo = EvaluationContext(now: Clock.now, timeZone: .fixed(seconds: 9 * 3600), firstWeekday: 2)
        let sundayWeeks = EvaluationContext(now: Clock.now, timeZone: .utc, firstWeekday: 1)
        // 2026-11-22T03:00:00Z is still Saturday the 21st in New York.
        let lateEvening = EvaluationContext(now: 1_795_316_400, timeZone: newYork.timeZone, firstWeekday: 2)
        let cases: [(EvaluationContext, String, Double, Int)] = [
            (newYork, "$time.today", 1_795_323_600, #line),               // 2026-11-22T00:00 EST = 05:00Z
            (newYork, "$time.yesterday", 1_795_237_200, #line),
            (newYork, "$time.this_week", 1_794_805_200, #line),           // Monday 16th, 00:00 EST
            (newYork, "$time.this_month", 1_793_505_600, #line),          // 1 November, 00:00 EDT = 04:00Z
            (newYork, "$time.today(-21)", 1_793_505_600, #line),          // across the DST change
            (newYork, "$time.today(-22)", 1_793_419_200, #line),
            (newYork, "$time.now(-60)", Clock.now - 60, #line),
            (newYork, "$time.iso(2026-11-22T10:00:00)", Clock.now, #line), // no zone is UTC, not the context's
            (tokyo, "$time.today", 1_795_273_200, #line),                 // 2026-11-22T00:00 JST = 21st 15:00Z
            (tokyo, "$time.yesterday", 1_795_273_200 - 86_400, #line),
            (sundayWeeks, "$time.this_week", Clock.today, #line),         // weeks starting Sunday: today
            (sundayWeeks, "$time.this_week(-1)", Clock.today - 7 * 86_400, #line),
            (lateEvening, "$time.today", 1_795_237_200, #line),
        ]
        for (context, expression, instant, line) in cases {
            let p = try MetadataPredicate(parsing: "modified == \(expression)")
            #expect(p.evaluate(Items.modified(instant), context: context), "line \(line): \(expression)")
            #expect(!p.evaluate(Items.modified(instant + 1), context: context), "line \(line): \(expression) + 1 s")
            #expect(p.compiled(context).evaluate(Items.modified(instant)), "line \(line): compiled \(expression)")
        }
    }

    @Test("EvaluationContext.resolve gives the documented instants")
    func resolve() {
        let c = Clock.context
        #expect(c.resolve(RelativeDate(.now)) == Clock.now)
        #expect(c.resolve(RelativeDate(.now, offset: -3600)) == Clock.now - 3600)
        #expect(c.resolve(RelativeDate(.today)) == Clock.today)
        #expect(c.resolve(RelativeDate(.yesterday)) == Clock.yesterday)
        #expect(c.resolve(RelativeDate(.thisWeek)) == Clock.thisWeek)
        #expect(c.resolve(RelativeDate(.thisMonth, offset: 1)) == Clock.nextMonth)
        #expect(c.resolve(RelativeDate(.thisYear, offset: -1)) == Clock.lastYear)
    }

    @Test("the same item answers the same through a custom AttributeProvider")
    func customProvider() throws {
        struct Provider: AttributeProvider {
            func value(of attribute: Attribute) -> Value? {
                switch attribute {
                case .name: .string("Report.pdf")
                case .size: .integer(2048)
                case .userTags: .list([.string("work")])
                case .isHidden: .null       // .null is the same as missing
                default: nil
                }
            }
        }
        let yes = try MetadataPredicate(parsing: "name ENDSWITH '.pdf' AND size > 1000 AND tags CONTAINS 'work'")
        #expect(yes.evaluate(Provider(), context: Clock.context))
        let hiddenMissing = try MetadataPredicate(parsing: "isHidden == nil")
        #expect(hiddenMissing.evaluate(Provider(), context: Clock.context))
        let hiddenNotEqual = try MetadataPredicate(parsing: "isHidden != YES")
        #expect(!hiddenNotEqual.evaluate(Provider(), context: Clock.context))
    }
}
