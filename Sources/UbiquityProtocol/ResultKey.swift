import UbiquityJSON
import UbiquityPredicate

/// One attribute a query's items carry, with its key as written (`"kMDItemFSName":`): made once
/// per query, written for every item.
struct ResultKey: Sendable {
    let attribute: Attribute
    let bytes: [UInt8]

    init(_ attribute: Attribute) {
        self.attribute = attribute
        var bytes: [UInt8] = []
        JSONLine.writeString(attribute.canonicalName, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        self.bytes = bytes
    }

    /// The keys of `attributes` in the order ``JSONLine`` sorts object keys, repeats dropped.
    static func sorted(_ attributes: [Attribute]) -> [ResultKey] {
        var seen = Set<Attribute>()
        return attributes.filter { seen.insert($0).inserted }
            .sorted { $0.canonicalName < $1.canonicalName }
            .map(ResultKey.init)
    }

    /// A value as ``Value/json`` renders it; a list's elements one by one, without the array.
    static func write(_ value: Value, to out: inout [UInt8]) {
        guard case .list(let elements) = value else {
            JSONLine.write(value.json, to: &out)
            return
        }
        out.append(UInt8(ascii: "["))
        for (i, element) in elements.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            write(element, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
