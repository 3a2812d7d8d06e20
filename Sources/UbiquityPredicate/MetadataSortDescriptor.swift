/// One sort key: an attribute and a direction. Results sort by each key in turn, then by path,
/// so the order is total and stable.
///
/// Text forms: `kMDItemFSName`, `name:asc`, `-kMDItemFSContentChangeDate`, `modified:desc`.
public struct MetadataSortDescriptor: Sendable, Hashable, CustomStringConvertible {
    public var attribute: Attribute
    public var ascending: Bool

    public init(_ attribute: Attribute, ascending: Bool = true) {
        self.attribute = attribute
        self.ascending = ascending
    }

    /// Parses `KEY`, `+KEY`, `-KEY`, `KEY:asc`, `KEY:desc` (any attribute spelling).
    public init(parsing text: String) throws(MetadataPredicateError) {
        var key = Substring(text)
        while key.first?.isWhitespace == true { key = key.dropFirst() }
        while key.last?.isWhitespace == true { key = key.dropLast() }
        /// Offsets in errors count Unicode scalars of the original text, as predicate errors do.
        func offset(_ index: Substring.Index) -> Int { text.unicodeScalars[..<index].count }
        var ascending = true
        if key.hasPrefix("-") { ascending = false; key = key.dropFirst() }
        else if key.hasPrefix("+") { key = key.dropFirst() }
        if let colon = key.lastIndex(of: ":") {
            let direction = key[key.index(after: colon)...].lowercased()
            switch direction {
            case "asc", "ascending":
                guard ascending else {
                    throw MetadataPredicateError(.syntax, at: 0,
                        "sort key '\(text)' says both descending (-) and ascending (:asc)")
                }
            case "desc", "descending":
                guard ascending else {
                    throw MetadataPredicateError(.syntax, at: 0,
                        "sort key '\(text)' says the direction twice; write -KEY or KEY:desc")
                }
                ascending = false
            default:
                throw MetadataPredicateError(.syntax, at: offset(key.index(after: colon)),
                    "expected asc or desc after ':' in sort key '\(text)', found '\(direction)'")
            }
            key = key[..<colon]
        }
        guard !key.isEmpty else { throw MetadataPredicateError(.syntax, at: offset(key.startIndex), "empty sort key") }
        guard let attribute = Attribute.named(String(key)) else {
            let hint = Attribute.suggestion(for: String(key)).map { "; did you mean '\($0)'?" } ?? ""
            throw MetadataPredicateError(.unknownAttribute, at: offset(key.startIndex), "unknown sort attribute '\(key)'\(hint)")
        }
        self.init(attribute, ascending: ascending)
    }

    /// `kMDItemFSName` or `kMDItemFSContentChangeDate:desc`.
    public var description: String { attribute.canonicalName + (ascending ? "" : ":desc") }

    /// Whether `a` sorts before `b` under `descriptors`, with the path as the final tie-break.
    public static func areInIncreasingOrder<A: AttributeProvider, B: AttributeProvider>(
        _ a: A, _ b: B, by descriptors: [MetadataSortDescriptor]
    ) -> Bool {
        for descriptor in descriptors {
            let c = order(a.value(of: descriptor.attribute), b.value(of: descriptor.attribute))
            if c != 0 { return descriptor.ascending ? c < 0 : c > 0 }
        }
        return order(a.value(of: .path), b.value(of: .path), exactStrings: true) < 0
    }

    /// Sort order of values: missing first; strings case-insensitively, then exactly; numbers,
    /// dates and booleans naturally; lists element by element.
    public static func order(_ a: Value?, _ b: Value?, exactStrings: Bool = false) -> Int {
        let a = a == .null ? nil : a, b = b == .null ? nil : b
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (.string(let x)?, .string(let y)?):
            if !exactStrings, let c = Test.order(.string(x), .string(y), .caseInsensitive), c != 0 { return c }
            // Exactly: byte by byte, as paths are told apart (names that are canonically
            // equivalent but spelt with other bytes are different files).
            return ByteOrder.compare(x, y).signum()
        case (.list(let xs)?, .list(let ys)?):
            for (x, y) in zip(xs, ys) {
                let c = order(x, y, exactStrings: exactStrings)
                if c != 0 { return c }
            }
            return xs.count == ys.count ? 0 : (xs.count < ys.count ? -1 : 1)
        case (let x?, let y?):
            if let c = Test.order(x, y, []) { return c }
            return rank(x) < rank(y) ? -1 : (rank(x) == rank(y) ? 0 : 1)
        }
    }

    private static func rank(_ v: Value) -> Int {
        switch v {
        case .null: 0
        case .bool: 1
        case .integer, .double: 2
        case .date: 3
        case .string: 4
        case .list: 5
        }
    }
}
