import UbiquityTOML

/// A TOML value in a form both parsers can produce and compare exactly: integers as decimal
/// text (Python's are unbounded), floats by bit pattern (so -0.0 and rounding are compared too),
/// tables without their key order or positions (neither is part of a TOML document's meaning).
/// On the wire from Python it is `{"i": "42"}`, `{"f": "<bits>"}`, `{"b": true}`, `{"s": ".."}`,
/// `{"a": [..]}`, `{"t": {..}}`, or `{"other": "datetime"}` for the types the subset lacks.
indirect enum TaggedTOMLValue: Equatable, Decodable, CustomStringConvertible {
    case integer(String)
    case float(String)
    case boolean(Bool)
    case string(String)
    case array([TaggedTOMLValue])
    case table([String: TaggedTOMLValue])
    case other(String)

    init(_ table: TOMLTable) {
        self = .table(Dictionary(uniqueKeysWithValues: table.entries.map { ($0.key, TaggedTOMLValue($0.value)) }))
    }

    init(_ value: TOMLValue) {
        switch value.kind {
        case .integer(let number): self = .integer(String(number))
        case .float(let number): self = .float(String(Int64(bitPattern: number.bitPattern)))
        case .boolean(let flag): self = .boolean(flag)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(TaggedTOMLValue.init))
        case .table(let table): self = TaggedTOMLValue(table)
        }
    }

    private enum Tag: String, CodingKey { case i, f, b, s, a, t, other }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Tag.self)
        guard let tag = container.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no tag"))
        }
        switch tag {
        case .i: self = .integer(try container.decode(String.self, forKey: tag))
        case .f: self = .float(try container.decode(String.self, forKey: tag))
        case .b: self = .boolean(try container.decode(Bool.self, forKey: tag))
        case .s: self = .string(try container.decode(String.self, forKey: tag))
        case .a: self = .array(try container.decode([TaggedTOMLValue].self, forKey: tag))
        case .t: self = .table(try container.decode([String: TaggedTOMLValue].self, forKey: tag))
        case .other: self = .other(try container.decode(String.self, forKey: tag))
        }
    }

    var description: String {
        switch self {
        case .integer(let text): text
        case .float(let bits): "float(bits \(bits))"
        case .boolean(let flag): String(flag)
        case .string(let text): text.debugDescription
        case .array(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .table(let table): "{" + table.sorted { $0.key < $1.key }.map { "\($0.key.debugDescription): \($0.value)" }.joined(separator: ", ") + "}"
        case .other(let type): "<\(type)>"
        }
    }
}
