import ArgumentParser
import FoundationEssentials
import UbiquityKit
import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol

/// How items look on a terminal and in NDJSON.
enum ItemFormat {
    static func json(_ item: MetadataItem) -> JSONValue {
        var object: [String: JSONValue] = ["path": .string(item.path), "attributes": .object(item.attributes)]
        if let old = item.oldPath { object["oldPath"] = .string(old) }
        return .object(object)
    }

    /// One table cell: dates as local `YYYY-MM-DD HH:MM:SS`, lists comma-separated, missing as `-`.
    static func cell(_ item: MetadataItem, _ key: String) -> String {
        guard let value = item.value(forAttribute: key) else { return "-" }
        if let attribute = Attribute.named(key), attribute.type == .date,
           case .date(let seconds)? = try? Value(json: value, for: attribute) {
            return Terminal.shortDate(Date(timeIntervalSince1970: seconds))
        }
        switch value {
        case .null: return "-"
        case .bool(let b): return b ? "yes" : "no"
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return s
        case .array(let items): return items.map { cell(MetadataItem(path: "", attributes: ["v": $0]), "v") }.joined(separator: ", ")
        case .object: return (try? Terminal.json(value)) ?? "-"
        }
    }

    static func table(_ items: [MetadataItem], attributes: [String]) -> String {
        Terminal.table(header: attributes.map { $0.uppercased() } + ["PATH"],
                       rows: items.map { item in attributes.map { cell(item, $0) } + [item.path] })
    }
}
