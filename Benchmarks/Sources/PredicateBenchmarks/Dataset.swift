import BenchmarkSupport
import UbiquityPredicate

/// One synthetic index entry, kept compact: the name, a size, a date, an index into a shared
/// table of tag lists, and a flag. It answers attributes the way an index entry would.
struct Item: AttributeProvider, Sendable {
    let name: String
    let size: Int64
    /// Seconds since 1970.
    let modified: Double
    /// Index into ``TagSets/values``; 0 means no tags (the attribute is missing).
    let tagSet: UInt8
    let isHidden: Bool

    func value(of attribute: Attribute) -> Value? {
        switch attribute {
        case .name: .string(name)
        case .size: .integer(size)
        case .contentChangeDate: .date(modified)
        case .isHidden: .bool(isHidden)
        case .userTags: tagSet == 0 ? nil : TagSets.values[Int(tagSet)]
        default: nil
        }
    }
}

enum TagSets {
    /// Shared, prebuilt lists so that items stay small; index 0 is "no tags".
    static let values: [Value] = [
        [],
        ["urgent"], ["work"], ["home"], ["urgent", "work"], ["red", "blue"], ["groceries", "urgent"],
        ["archive"], ["work", "review", "q4"], ["home", "family", "photos"],
    ].map { Value.list($0.map(Value.string)) }
}

/// Builds the synthetic data sets from a seed.
struct Dataset {
    static let extensions = [".txt", ".md", ".png", ".jpg", ".pdf", ".swift", ".json", ".gro", ".log", ""]
    static let words = [
        "report", "notes", "Invoice", "photo", "draft", "summary", "Budget", "todo", "README", "backup",
        "holiday", "scan", "recipe", "meeting", "item_list", "Shopping", "config", "release", "diagram", "letter",
    ]
    /// Non-ASCII words in both precomposed and decomposed forms, mixed case.
    static let accented = [
        "Résumé", "re\u{301}sume\u{301}", "Café", "CAFÉ", "naïve", "Ångström", "Straße", "Crème brûlée",
        "Ñandú", "Zürich", "Łódź", "Ελληνικά", "Привет", "日本語の資料", "Façade", "Éclair", "piñata", "Smörgåsbord",
    ]

    /// The main set: 10% `Item_<UPPERCASE-UUID>` (as Grocery writes them), the rest varied names.
    static func main(count: Int, seed: UInt64, now: Double) -> [Item] {
        var rng = SplitMix64(seed: seed)
        var items: [Item] = []
        items.reserveCapacity(count)
        for _ in 0..<count {
            let name: String
            let roll = rng.next() % 100
            if roll < 10 {
                name = "Item_" + uuid(&rng)
            } else if roll < 13 {
                name = "." + words.randomElement(using: &rng)! + "rc"          // dotfiles
            } else if roll < 15 {
                name = "item_" + String(rng.next() % 100_000) + ".txt"       // lowercase look-alikes
            } else {
                let word = words.randomElement(using: &rng)!
                let number = rng.next() % 3 == 0 ? " " + String(rng.next() % 1000) : ""
                name = word + number + extensions.randomElement(using: &rng)!
            }
            items.append(Item(
                name: name,
                size: Int64(1 << (rng.next() % 24)) + Int64(rng.next() % 1024),
                modified: now - Double(rng.next() % (60 * 86_400)),           // within the last 60 days
                tagSet: UInt8(rng.next() % UInt64(TagSets.values.count)),
                isHidden: name.hasPrefix(".")))
        }
        return items
    }

    /// Every name has non-ASCII letters, so matching takes the Unicode (folding) path.
    static func nonASCII(count: Int, seed: UInt64, now: Double) -> [Item] {
        var rng = SplitMix64(seed: seed ^ 0xACCE_0000)
        var items: [Item] = []
        items.reserveCapacity(count)
        for _ in 0..<count {
            let word = accented.randomElement(using: &rng)!
            let number = rng.next() % 2 == 0 ? " " + String(rng.next() % 1000) : ""
            let name = word + number + extensions.randomElement(using: &rng)!
            items.append(Item(name: name, size: Int64(rng.next() % 1_000_000), modified: now,
                              tagSet: 0, isHidden: false))
        }
        return items
    }

    /// `1F0C3A9E-...`: 32 uppercase hex digits in the 8-4-4-4-12 layout.
    static func uuid(_ rng: inout SplitMix64) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        var bits = rng.next(), used = 0
        for i in 0..<32 {
            if i == 8 || i == 12 || i == 16 || i == 20 { bytes.append(UInt8(ascii: "-")) }
            if used == 16 { bits = rng.next(); used = 0 }
            bytes.append(hex[Int(bits & 0xF)])
            bits >>= 4
            used += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
