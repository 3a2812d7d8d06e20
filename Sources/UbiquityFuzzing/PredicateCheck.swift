import UbiquityPredicate

/// Predicate text, as a client sends it in `query.start`.
///
/// - A predicate that parses prints a form that parses again to the same printed form (what users
///   are shown is what was understood).
/// - Compiling it and evaluating it against a few fixed items never traps (the fuzzer's timeout
///   catches a `MATCHES` pattern that does not run in linear time).
public enum PredicateCheck: FuzzCheck {
    public static let name = "predicate"

    /// Items of every attribute type, some missing attributes, some odd values.
    static let items: [AttributeDictionary] = [
        AttributeDictionary([.name: .string("Item_1"), .size: .integer(4), .contentChangeDate: .date(1_795_000_000),
                             .userTags: .list([.string("urgent"), .string("ä")]), .isDirectory: .bool(false)]),
        AttributeDictionary([.name: .string(""), .size: .integer(.min), .contentChangeDate: .date(-1e300)]),
        AttributeDictionary(),
    ]
    static let context = EvaluationContext(now: 1_795_341_600, timeZone: .utc)

    public static func accepts(_ bytes: [UInt8]) -> Bool {
        (try? MetadataPredicate(parsing: String(decoding: bytes, as: UTF8.self))) != nil
    }

    public static func check(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let predicate = try? MetadataPredicate(parsing: text) else { return nil }
        let printed = predicate.description
        let reparsed: MetadataPredicate
        do { reparsed = try MetadataPredicate(parsing: printed) } catch {
            return "the printed form \(printed) does not parse: \(error)"
        }
        guard reparsed.description == printed else {
            return "the printed form \(printed) parses to another predicate, printed \(reparsed.description)"
        }
        let compiled = predicate.compiled(context)
        for item in items { _ = compiled.evaluate(item) }
        return nil
    }
}
