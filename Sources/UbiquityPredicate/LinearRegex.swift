import Foundation

// MARK: - Public API

/// A compiled regular expression that matches whole strings in linear time.
///
/// The engine is a Thompson NFA simulated breadth-first (a Pike VM without
/// captures) over Unicode scalars, so `matches(_:)` runs in
/// O(subject scalars × program size) and never backtracks. The syntax is a
/// practical subset of ICU's (what NSPredicate's `MATCHES` uses); constructs
/// that need backtracking (backreferences, lookaround, atomic groups) are
/// rejected at compile time with a `LinearRegexError`.
///
/// Both the pattern's literal characters and the subject are compared in a
/// canonical form: NFC, or with `diacriticInsensitive` the canonical
/// decomposition with every combining mark removed (then recomposed, so that
/// Hangul syllables stay whole).
public struct LinearRegex: Sendable, Hashable {
    public let pattern: String
    public let caseInsensitive: Bool
    public let diacriticInsensitive: Bool
    let program: Program

    public init(_ pattern: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) throws(LinearRegexError) {
        self.pattern = pattern
        self.caseInsensitive = caseInsensitive
        self.diacriticInsensitive = diacriticInsensitive
        var parser = Parser(pattern: pattern, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        let tree = try parser.parse()
        self.program = Program(tree: tree, classes: parser.classes)
    }

    /// True when the WHOLE string matches (anchored at both ends, like ICU `matches()`).
    public func matches(_ subject: String) -> Bool {
        program.run(Scalars.prepare(subject, diacriticInsensitive: diacriticInsensitive))
    }

    public static func == (lhs: LinearRegex, rhs: LinearRegex) -> Bool {
        lhs.pattern == rhs.pattern
            && lhs.caseInsensitive == rhs.caseInsensitive
            && lhs.diacriticInsensitive == rhs.diacriticInsensitive
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
        hasher.combine(caseInsensitive)
        hasher.combine(diacriticInsensitive)
    }
}

/// Why a pattern could not be compiled by `LinearRegex`.
public struct LinearRegexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 0-based offset in Characters (grapheme clusters) into the pattern where the problem is.
    public let offset: Int
    /// A sentence that names what was expected/found, e.g. "unbalanced ')'", "backreferences are not supported (MATCHES uses a linear-time engine)".
    public let message: String

    public var description: String {
        "invalid regular expression at offset \(offset): \(message)"
    }
}

// MARK: - Limits

extension LinearRegex {
    /// Largest compiled program accepted ("pattern too complex" beyond it).
    static let maxInstructions = 20_000
    /// Largest count accepted in `{n}`, `{n,}` and `{n,m}`.
    static let maxRepetition = 1_000
    /// Deepest nesting of groups and classes accepted.
    static let maxNesting = 200
}

// MARK: - Unicode helpers

extension LinearRegex {
    enum Scalars {
        static func isLineTerminator(_ v: UInt32) -> Bool {
            (v >= 0x0A && v <= 0x0D) || v == 0x85 || v == 0x2028 || v == 0x2029
        }

        static func isASCIIWord(_ v: UInt32) -> Bool {
            let lower = v | 0x20
            return (v >= 0x30 && v <= 0x39) || (lower >= 0x61 && lower <= 0x7A) || v == 0x5F
        }

        /// ICU's `\w`: Alphabetic, marks, decimal digits, connector punctuation, ZWNJ/ZWJ.
        static func isWord(_ v: UInt32) -> Bool {
            if v < 0x80 { return isASCIIWord(v) }
            if v == 0x200C || v == 0x200D { return true }
            guard let scalar = Unicode.Scalar(v) else { return false }
            let properties = scalar.properties
            if properties.isAlphabetic { return true }
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation:
                return true
            default:
                return false
            }
        }

        static func isDigit(_ v: UInt32) -> Bool {
            if v < 0x80 { return v >= 0x30 && v <= 0x39 }
            return Unicode.Scalar(v)?.properties.numericType == .decimal
        }

        static func isSpace(_ v: UInt32) -> Bool {
            if v < 0x80 { return v == 0x20 || (v >= 0x09 && v <= 0x0D) }
            return Unicode.Scalar(v)?.properties.isWhitespace ?? false
        }

        static func isMark(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return true
            default: return false
            }
        }

        static func single(_ string: String) -> Unicode.Scalar? {
            var iterator = string.unicodeScalars.makeIterator()
            guard let first = iterator.next(), iterator.next() == nil else { return nil }
            return first
        }

        /// Simple case folding: the representative of a scalar's case-equivalence class.
        /// Dotted/dotless i (U+0130, U+0131) only fold under Turkic rules, so they stay apart.
        static func fold(_ v: UInt32) -> UInt32 {
            if v < 0x80 { return (v >= 0x41 && v <= 0x5A) ? v + 0x20 : v }
            if v == 0x130 || v == 0x131 { return v }
            guard let scalar = Unicode.Scalar(v) else { return v }
            let properties = scalar.properties
            guard properties.changesWhenCaseMapped else { return v }
            if let upper = single(properties.uppercaseMapping),
               let lower = single(upper.properties.lowercaseMapping) {
                return lower.value
            }
            if let lower = single(properties.lowercaseMapping) { return lower.value }
            return v
        }

        /// Members of a fold class that are neither the folded form nor its upper/title case
        /// (generated from the Unicode data shipped with the toolchain).
        static let foldExtras: [UInt32: [UInt32]] = [
            0x6B: [0x212A], 0x73: [0x17F], 0xDF: [0x1E9E], 0xE5: [0x212B], 0x3B2: [0x3D0],
            0x3B5: [0x3F5], 0x3B8: [0x3D1, 0x3F4], 0x3B9: [0x345, 0x1FBE], 0x3BA: [0x3F0],
            0x3BC: [0xB5], 0x3C0: [0x3D6], 0x3C1: [0x3F1], 0x3C3: [0x3C2], 0x3C6: [0x3D5],
            0x3C9: [0x2126], 0x432: [0x1C80], 0x434: [0x1C81], 0x43E: [0x1C82], 0x441: [0x1C83],
            0x442: [0x1C84, 0x1C85], 0x44A: [0x1C86], 0x463: [0x1C87], 0x1E61: [0x1E9B],
            0xA64B: [0x1C88],
        ]

        /// Calls `body` with `v` and every scalar that is case-equivalent to it; stops when `body` returns true.
        static func anyCaseVariant(of v: UInt32, _ body: (UInt32) -> Bool) -> Bool {
            if body(v) { return true }
            if v < 0x80 {
                let lower = v | 0x20
                guard lower >= 0x61 && lower <= 0x7A else { return false }
                if body(v ^ 0x20) { return true }
                if lower == 0x6B { return body(0x212A) }
                if lower == 0x73 { return body(0x17F) }
                return false
            }
            let folded = fold(v)
            if folded != v && body(folded) { return true }
            if let scalar = Unicode.Scalar(folded) {
                let properties = scalar.properties
                if let upper = single(properties.uppercaseMapping), upper.value != v, upper.value != folded,
                   fold(upper.value) == folded, body(upper.value) {
                    return true
                }
                if let title = single(properties.titlecaseMapping), title.value != v, title.value != folded,
                   fold(title.value) == folded, body(title.value) {
                    return true
                }
            }
            if let extras = foldExtras[folded] {
                for extra in extras where extra != v && body(extra) { return true }
            }
            return false
        }

        static func isASCII(_ string: String) -> Bool {
            string.utf8.allSatisfy { $0 < 0x80 }
        }

        /// Canonical decomposition without combining marks, recomposed.
        static func stripDiacritics(_ string: String) -> String {
            var view = String.UnicodeScalarView()
            for scalar in string.decomposedStringWithCanonicalMapping.unicodeScalars where !isMark(scalar) {
                view.append(scalar)
            }
            return String(view).precomposedStringWithCanonicalMapping
        }

        static func canonical(_ string: String, diacriticInsensitive: Bool) -> String {
            if isASCII(string) { return string }
            return diacriticInsensitive ? stripDiacritics(string) : string.precomposedStringWithCanonicalMapping
        }

        static func canonical(_ scalars: [UInt32], diacriticInsensitive: Bool) -> [UInt32] {
            if scalars.allSatisfy({ $0 < 0x80 }) { return scalars }
            var view = String.UnicodeScalarView()
            for v in scalars {
                if let scalar = Unicode.Scalar(v) { view.append(scalar) }
            }
            return canonical(String(view), diacriticInsensitive: diacriticInsensitive).unicodeScalars.map(\.value)
        }

        static func prepare(_ subject: String, diacriticInsensitive: Bool) -> [UInt32] {
            if isASCII(subject) { return subject.utf8.map { UInt32($0) } }
            return canonical(subject, diacriticInsensitive: diacriticInsensitive).unicodeScalars.map(\.value)
        }

        static func show(_ v: UInt32) -> String {
            guard let scalar = Unicode.Scalar(v) else { return "U+\(String(v, radix: 16, uppercase: true))" }
            if v < 0x20 || v == 0x7F { return "U+\(String(v, radix: 16, uppercase: true))" }
            return String(scalar)
        }
    }
}

// MARK: - Character sets

extension LinearRegex {
    enum Property: Sendable, Hashable {
        case categories(UInt32)
        case any, ascii, alphabetic, whitespace, uppercase, lowercase, decimal, word
        case alphanumeric, hexDigit, blank, graph, print, verticalSpace

        static func bit(_ category: Unicode.GeneralCategory) -> UInt32 {
            let index: UInt32
            switch category {
            case .uppercaseLetter: index = 0
            case .lowercaseLetter: index = 1
            case .titlecaseLetter: index = 2
            case .modifierLetter: index = 3
            case .otherLetter: index = 4
            case .nonspacingMark: index = 5
            case .spacingMark: index = 6
            case .enclosingMark: index = 7
            case .decimalNumber: index = 8
            case .letterNumber: index = 9
            case .otherNumber: index = 10
            case .connectorPunctuation: index = 11
            case .dashPunctuation: index = 12
            case .openPunctuation: index = 13
            case .closePunctuation: index = 14
            case .initialPunctuation: index = 15
            case .finalPunctuation: index = 16
            case .otherPunctuation: index = 17
            case .mathSymbol: index = 18
            case .currencySymbol: index = 19
            case .modifierSymbol: index = 20
            case .otherSymbol: index = 21
            case .spaceSeparator: index = 22
            case .lineSeparator: index = 23
            case .paragraphSeparator: index = 24
            case .control: index = 25
            case .format: index = 26
            case .surrogate: index = 27
            case .privateUse: index = 28
            case .unassigned: index = 29
            @unknown default: index = 29
            }
            return 1 << index
        }

        static func mask(_ categories: [Unicode.GeneralCategory]) -> UInt32 {
            categories.reduce(0) { $0 | bit($1) }
        }

        func contains(_ v: UInt32) -> Bool {
            switch self {
            case .any: return true
            case .ascii: return v < 0x80
            case .decimal: return Scalars.isDigit(v)
            case .word: return Scalars.isWord(v)
            case .whitespace: return Scalars.isSpace(v)
            case .verticalSpace: return Scalars.isLineTerminator(v)
            case .blank:
                if v == 0x09 || v == 0x20 { return true }
                guard v >= 0x80, let scalar = Unicode.Scalar(v) else { return false }
                return scalar.properties.generalCategory == .spaceSeparator
            default:
                break
            }
            guard let scalar = Unicode.Scalar(v) else { return false }
            let properties = scalar.properties
            switch self {
            case .categories(let mask):
                return mask & Property.bit(properties.generalCategory) != 0
            case .alphabetic: return properties.isAlphabetic
            case .uppercase: return properties.isUppercase
            case .lowercase: return properties.isLowercase
            case .alphanumeric: return properties.isAlphabetic || Scalars.isDigit(v)
            case .hexDigit: return properties.isHexDigit || Scalars.isDigit(v)
            case .graph, .print:
                if Scalars.isSpace(v) {
                    guard case .print = self else { return false }
                    return Property.blank.contains(v) && v != 0x09
                }
                switch properties.generalCategory {
                case .control, .surrogate, .unassigned: return false
                default: return true
                }
            default: return false
            }
        }

        /// Looks a property name up with loose matching (case, spaces, `_` and `-` ignored).
        static func named(_ raw: String) -> Property? {
            var name = raw.lowercased().filter { $0 != " " && $0 != "_" && $0 != "-" }
            if let separator = name.firstIndex(where: { $0 == "=" || $0 == ":" }) {
                let key = String(name[..<separator])
                guard key == "gc" || key == "generalcategory" else { return nil }
                name = String(name[name.index(after: separator)...])
                return categoryTable[name].map { .categories($0) }
            }
            if let mask = categoryTable[name] { return .categories(mask) }
            return binaryTable[name]
        }

        static let categoryTable: [String: UInt32] = {
            let letters: [Unicode.GeneralCategory] = [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter]
            let cased: [Unicode.GeneralCategory] = [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter]
            let marks: [Unicode.GeneralCategory] = [.nonspacingMark, .spacingMark, .enclosingMark]
            let numbers: [Unicode.GeneralCategory] = [.decimalNumber, .letterNumber, .otherNumber]
            let punctuation: [Unicode.GeneralCategory] = [.connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation, .otherPunctuation]
            let symbols: [Unicode.GeneralCategory] = [.mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol]
            let separators: [Unicode.GeneralCategory] = [.spaceSeparator, .lineSeparator, .paragraphSeparator]
            let others: [Unicode.GeneralCategory] = [.control, .format, .surrogate, .privateUse, .unassigned]
            let entries: [([String], [Unicode.GeneralCategory])] = [
                (["l", "letter"], letters),
                (["lc", "l&", "casedletter"], cased),
                (["lu", "uppercaseletter"], [.uppercaseLetter]),
                (["ll", "lowercaseletter"], [.lowercaseLetter]),
                (["lt", "titlecaseletter"], [.titlecaseLetter]),
                (["lm", "modifierletter"], [.modifierLetter]),
                (["lo", "otherletter"], [.otherLetter]),
                (["m", "mark", "combiningmark"], marks),
                (["mn", "nonspacingmark"], [.nonspacingMark]),
                (["mc", "spacingmark"], [.spacingMark]),
                (["me", "enclosingmark"], [.enclosingMark]),
                (["n", "number"], numbers),
                (["nd", "decimalnumber"], [.decimalNumber]),
                (["nl", "letternumber"], [.letterNumber]),
                (["no", "othernumber"], [.otherNumber]),
                (["p", "punctuation"], punctuation),
                (["pc", "connectorpunctuation"], [.connectorPunctuation]),
                (["pd", "dashpunctuation"], [.dashPunctuation]),
                (["ps", "openpunctuation"], [.openPunctuation]),
                (["pe", "closepunctuation"], [.closePunctuation]),
                (["pi", "initialpunctuation"], [.initialPunctuation]),
                (["pf", "finalpunctuation"], [.finalPunctuation]),
                (["po", "otherpunctuation"], [.otherPunctuation]),
                (["s", "symbol"], symbols),
                (["sm", "mathsymbol"], [.mathSymbol]),
                (["sc", "currencysymbol"], [.currencySymbol]),
                (["sk", "modifiersymbol"], [.modifierSymbol]),
                (["so", "othersymbol"], [.otherSymbol]),
                (["z", "separator"], separators),
                (["zs", "spaceseparator"], [.spaceSeparator]),
                (["zl", "lineseparator"], [.lineSeparator]),
                (["zp", "paragraphseparator"], [.paragraphSeparator]),
                (["c", "other"], others),
                (["cc", "control", "cntrl"], [.control]),
                (["cf", "format"], [.format]),
                (["cs", "surrogate"], [.surrogate]),
                (["co", "privateuse"], [.privateUse]),
                (["cn", "unassigned"], [.unassigned]),
                (["punct"], punctuation),
            ]
            var table: [String: UInt32] = [:]
            for (names, categories) in entries {
                for name in names { table[name] = mask(categories) }
            }
            return table
        }()

        static let binaryTable: [String: Property] = [
            "any": .any, "ascii": .ascii, "alphabetic": .alphabetic, "alpha": .alphabetic,
            "whitespace": .whitespace, "wspace": .whitespace, "space": .whitespace,
            "uppercase": .uppercase, "upper": .uppercase, "lowercase": .lowercase, "lower": .lowercase,
            "digit": .decimal, "word": .word, "alnum": .alphanumeric, "xdigit": .hexDigit,
            "hexdigit": .hexDigit, "blank": .blank, "graph": .graph, "print": .print,
        ]
    }

    indirect enum SetExpr: Sendable {
        /// Sorted, non-overlapping, non-adjacent ranges.
        case ranges([ClosedRange<UInt32>])
        case property(Property, negated: Bool)
        case union([SetExpr])
        case intersection(SetExpr, SetExpr)
        case subtraction(SetExpr, SetExpr)
        case complement(SetExpr)

        func contains(_ v: UInt32) -> Bool {
            switch self {
            case .ranges(let ranges):
                var low = 0
                var high = ranges.count
                while low < high {
                    let mid = (low + high) / 2
                    if ranges[mid].upperBound < v { low = mid + 1 } else { high = mid }
                }
                return low < ranges.count && ranges[low].contains(v)
            case .property(let property, let negated):
                return property.contains(v) != negated
            case .union(let members):
                return members.contains { $0.contains(v) }
            case .intersection(let lhs, let rhs):
                return lhs.contains(v) && rhs.contains(v)
            case .subtraction(let lhs, let rhs):
                return lhs.contains(v) && !rhs.contains(v)
            case .complement(let inner):
                return !inner.contains(v)
            }
        }

        static func merged(_ input: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
            let sorted = input.sorted { $0.lowerBound < $1.lowerBound }
            var result: [ClosedRange<UInt32>] = []
            for range in sorted {
                if let last = result.last, range.lowerBound <= last.upperBound &+ 1 {
                    result[result.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
                } else {
                    result.append(range)
                }
            }
            return result
        }
    }

    struct CharClass: Sendable {
        let expr: SetExpr
        let negated: Bool
        /// Membership of the 128 ASCII scalars, negation applied: [plain low, plain high, folded low, folded high].
        let asciiBits: (UInt64, UInt64, UInt64, UInt64)

        init(_ expr: SetExpr, negated: Bool) {
            self.expr = expr
            self.negated = negated
            var bits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            for v in UInt32(0)..<128 {
                let bit: UInt64 = 1 << UInt64(v & 63)
                if expr.contains(v) != negated {
                    if v < 64 { bits.0 |= bit } else { bits.1 |= bit }
                }
                if Scalars.anyCaseVariant(of: v, { expr.contains($0) }) != negated {
                    if v < 64 { bits.2 |= bit } else { bits.3 |= bit }
                }
            }
            asciiBits = bits
        }

        func matches(_ v: UInt32, caseInsensitive: Bool) -> Bool {
            if v < 128 {
                let bit: UInt64 = 1 << UInt64(v & 63)
                let word = caseInsensitive ? (v < 64 ? asciiBits.2 : asciiBits.3) : (v < 64 ? asciiBits.0 : asciiBits.1)
                return word & bit != 0
            }
            if caseInsensitive {
                return Scalars.anyCaseVariant(of: v, { expr.contains($0) }) != negated
            }
            return expr.contains(v) != negated
        }
    }
}

// MARK: - Syntax tree

extension LinearRegex {
    enum Assertion: Sendable {
        case startOfText, endOfText, endOfTextOrFinalTerminator, startOfLine, endOfLine
        case wordBoundary, notWordBoundary
    }

    struct Node: Sendable {
        indirect enum Kind: Sendable {
            case empty
            case literal(UInt32, caseInsensitive: Bool)
            case any(dotAll: Bool)
            case set(Int, caseInsensitive: Bool)
            case assertion(Assertion)
            case concat([Node])
            case alternation([Node])
            case repetition(Node, min: Int, max: Int?)
        }

        let kind: Kind
        /// Number of instructions this node compiles to.
        let size: Int

        static let empty = Node(kind: .empty, size: 0)

        static func leaf(_ kind: Kind) -> Node { Node(kind: kind, size: 1) }

        static func concat(_ nodes: [Node]) -> Node {
            switch nodes.count {
            case 0: return .empty
            case 1: return nodes[0]
            default: return Node(kind: .concat(nodes), size: nodes.reduce(0) { $0 + $1.size })
            }
        }

        static func alternation(_ nodes: [Node]) -> Node {
            if nodes.count == 1 { return nodes[0] }
            return Node(kind: .alternation(nodes), size: nodes.reduce(0) { $0 + $1.size } + 2 * (nodes.count - 1))
        }

        static func repetition(_ node: Node, min: Int, max: Int?) -> Node {
            let size: Int
            if let max {
                size = min * node.size + (max - min) * (node.size + 1)
            } else {
                size = min == 0 ? node.size + 2 : min * node.size + 1
            }
            return Node(kind: .repetition(node, min: min, max: max), size: size)
        }

        var isAssertion: Bool {
            if case .assertion = kind { return true }
            return false
        }
    }
}

// MARK: - Parser

extension LinearRegex {
    struct Flags {
        var caseInsensitive: Bool
        var multiline = false
        var dotAll = false
        var extended = false
    }

    struct Parser {
        private var source: [UInt32] = []
        /// Character offset of each scalar in `source`.
        private var offsets: [Int] = []
        private let endOffset: Int
        private var position = 0
        private var flags: Flags
        private var quoting = false
        private let diacriticInsensitive: Bool
        var classes: [CharClass] = []

        init(pattern: String, caseInsensitive: Bool, diacriticInsensitive: Bool) {
            var characterIndex = 0
            for character in pattern {
                if character.isASCII {
                    for scalar in character.unicodeScalars {
                        source.append(scalar.value)
                        offsets.append(characterIndex)
                    }
                } else {
                    for scalar in String(character).precomposedStringWithCanonicalMapping.unicodeScalars {
                        source.append(scalar.value)
                        offsets.append(characterIndex)
                    }
                }
                characterIndex += 1
            }
            endOffset = characterIndex
            flags = Flags(caseInsensitive: caseInsensitive)
            self.diacriticInsensitive = diacriticInsensitive
        }

        // MARK: Cursor

        private func error(_ message: String, at index: Int) -> LinearRegexError {
            LinearRegexError(offset: index < offsets.count ? offsets[index] : endOffset, message: message)
        }

        private var atEnd: Bool { position >= source.count }

        private func peek(_ ahead: Int = 0) -> UInt32? {
            let index = position + ahead
            return index < source.count ? source[index] : nil
        }

        private func peekIs(_ character: Character, _ ahead: Int = 0) -> Bool {
            guard let v = peek(ahead) else { return false }
            return v == character.unicodeScalars.first!.value
        }

        private func text(_ range: Range<Int>) -> String {
            var view = String.UnicodeScalarView()
            for index in range where index < source.count {
                if let scalar = Unicode.Scalar(source[index]) { view.append(scalar) }
            }
            return String(view)
        }

        /// In `(?x)` mode, skips whitespace and `#` comments.
        private mutating func skipInsignificant() {
            guard flags.extended, !quoting else { return }
            while let v = peek() {
                if Scalars.isSpace(v) {
                    position += 1
                } else if v == 0x23 {
                    while let c = peek(), !Scalars.isLineTerminator(c) { position += 1 }
                } else {
                    return
                }
            }
        }

        private func checkSize(_ size: Int, at index: Int) throws(LinearRegexError) {
            if size + 1 > LinearRegex.maxInstructions {
                throw error("pattern too complex: it would compile to more than \(LinearRegex.maxInstructions) instructions", at: index)
            }
        }

        // MARK: Structure

        mutating func parse() throws(LinearRegexError) -> Node {
            let tree = try parseAlternation(depth: 0)
            if !atEnd {
                throw error("unbalanced ')'", at: position)
            }
            try checkSize(tree.size, at: 0)
            return tree
        }

        private mutating func parseAlternation(depth: Int) throws(LinearRegexError) -> Node {
            var branches = [try parseConcatenation(depth: depth)]
            var total = branches[0].size
            while peekIs("|") {
                let bar = position
                position += 1
                let branch = try parseConcatenation(depth: depth)
                total += branch.size + 2
                try checkSize(total, at: bar)
                branches.append(branch)
            }
            return .alternation(branches)
        }

        private mutating func parseConcatenation(depth: Int) throws(LinearRegexError) -> Node {
            var items: [Node] = []
            var itemStarts: [Int] = []
            while true {
                let start: Int
                var atom: Node
                if quoting {
                    guard let v = peek() else { break }
                    start = position
                    if v == 0x5C && peekIs("E", 1) {
                        position += 2
                        quoting = false
                        continue
                    }
                    position += 1
                    atom = .leaf(.literal(v, caseInsensitive: flags.caseInsensitive))
                    if peekIs("\\") && peekIs("E", 1) {
                        position += 2
                        quoting = false
                    } else {
                        items.append(atom)
                        itemStarts.append(start)
                        continue
                    }
                } else {
                    skipInsignificant()
                    guard let v = peek(), v != 0x7C, v != 0x29 else { break }
                    start = position
                    guard let parsed = try parseAtom(depth: depth) else {
                        // A flag setting, comment, `\Q` or `\E`: nothing a quantifier could apply to.
                        skipInsignificant()
                        if !quoting, let q = peek(), isQuantifierStart(q) {
                            throw error("quantifier '\(Scalars.show(q))' has nothing to repeat", at: position)
                        }
                        continue
                    }
                    atom = parsed
                }
                skipInsignificant()
                let quantifierStart = position
                if let (min, max) = try parseQuantifier() {
                    if atom.isAssertion {
                        throw error("quantifier '\(Scalars.show(source[quantifierStart]))' follows an anchor or boundary assertion; nothing to repeat", at: quantifierStart)
                    }
                    atom = .repetition(normalizeLiterals(in: atom), min: min, max: max)
                    try checkSize(atom.size, at: quantifierStart)
                    skipInsignificant()
                    if let q = peek(), isQuantifierStart(q) {
                        throw error("quantifier '\(Scalars.show(q))' follows another quantifier; nothing to repeat", at: position)
                    }
                }
                items.append(atom)
                itemStarts.append(start)
            }
            let nodes = normalizeRuns(items)
            var total = 0
            for (index, node) in nodes.enumerated() {
                total += node.size
                if total + 1 > LinearRegex.maxInstructions {
                    try checkSize(total, at: itemStarts[Swift.min(index, itemStarts.count - 1)])
                }
            }
            return .concat(nodes)
        }

        private func isQuantifierStart(_ v: UInt32) -> Bool {
            v == 0x2A || v == 0x2B || v == 0x3F || v == 0x7B
        }

        // MARK: Literal normalization

        /// Applies NFC (or diacritic stripping) to a single quantified literal.
        private func normalizeLiterals(in node: Node) -> Node {
            guard case .literal(let v, let caseInsensitive) = node.kind, v >= 0x80 else { return node }
            let normalized = Scalars.canonical([v], diacriticInsensitive: diacriticInsensitive)
            return .concat(normalized.map { .leaf(.literal($0, caseInsensitive: caseInsensitive)) })
        }

        /// Normalizes runs of adjacent unquantified literals together, so that a base letter
        /// followed by a combining mark compares like the precomposed letter in the subject.
        private func normalizeRuns(_ items: [Node]) -> [Node] {
            var result: [Node] = []
            var run: [UInt32] = []
            var runCaseInsensitive = false
            func flush() {
                guard !run.isEmpty else { return }
                for v in Scalars.canonical(run, diacriticInsensitive: diacriticInsensitive) {
                    result.append(.leaf(.literal(v, caseInsensitive: runCaseInsensitive)))
                }
                run.removeAll()
            }
            for item in items {
                if case .literal(let v, let caseInsensitive) = item.kind {
                    if !run.isEmpty && caseInsensitive != runCaseInsensitive { flush() }
                    runCaseInsensitive = caseInsensitive
                    run.append(v)
                } else {
                    flush()
                    result.append(item)
                }
            }
            flush()
            return result
        }

        // MARK: Atoms

        private mutating func parseAtom(depth: Int) throws(LinearRegexError) -> Node? {
            let start = position
            let v = source[position]
            switch v {
            case 0x28: // (
                return try parseGroup(depth: depth)
            case 0x5B: // [
                let (expr, negated) = try parseClass(depth: depth + 1)
                return makeSet(expr, negated: negated)
            case 0x2E: // .
                position += 1
                return .leaf(.any(dotAll: flags.dotAll))
            case 0x5E: // ^
                position += 1
                return .leaf(.assertion(flags.multiline ? .startOfLine : .startOfText))
            case 0x24: // $
                position += 1
                return .leaf(.assertion(flags.multiline ? .endOfLine : .endOfTextOrFinalTerminator))
            case 0x5C: // backslash
                switch try parseEscape(inClass: false) {
                case .scalar(let scalar):
                    return .leaf(.literal(scalar, caseInsensitive: flags.caseInsensitive))
                case .set(let expr):
                    return makeSet(expr, negated: false)
                case .assertion(let assertion):
                    return .leaf(.assertion(assertion))
                case .lineBreak:
                    let crlf = Node.concat([.leaf(.literal(0x0D, caseInsensitive: false)), .leaf(.literal(0x0A, caseInsensitive: false))])
                    return .alternation([crlf, makeSet(.property(.verticalSpace, negated: false), negated: false)])
                case .quoteStart:
                    quoting = true
                    return nil
                case .quoteEnd:
                    return nil
                }
            case 0x2A, 0x2B, 0x3F: // * + ?
                throw error("quantifier '\(Scalars.show(v))' has nothing to repeat", at: start)
            case 0x7B: // {
                throw error("quantifier '{' has nothing to repeat (write '\\{' for a literal brace)", at: start)
            default:
                position += 1
                return .leaf(.literal(v, caseInsensitive: flags.caseInsensitive))
            }
        }

        private mutating func makeSet(_ expr: SetExpr, negated: Bool) -> Node {
            classes.append(CharClass(expr, negated: negated))
            return .leaf(.set(classes.count - 1, caseInsensitive: flags.caseInsensitive))
        }

        // MARK: Quantifiers

        private mutating func parseQuantifier() throws(LinearRegexError) -> (Int, Int?)? {
            guard let v = peek() else { return nil }
            let result: (Int, Int?)
            switch v {
            case 0x2A: result = (0, nil); position += 1
            case 0x2B: result = (1, nil); position += 1
            case 0x3F: result = (0, 1); position += 1
            case 0x7B: result = try parseInterval()
            default: return nil
            }
            // A lazy modifier does not change whether a whole match exists. A possessive one
            // does (it never gives back, like an atomic group), so it is refused.
            if let modifier = peek(), modifier == 0x3F {
                position += 1
            } else if let modifier = peek(), modifier == 0x2B {
                throw error("possessive quantifiers such as 'a++' are not supported (MATCHES uses a linear-time engine)",
                            at: position)
            }
            return result
        }

        private mutating func parseInterval() throws(LinearRegexError) -> (Int, Int?) {
            let start = position
            position += 1
            func malformed() -> LinearRegexError {
                error("malformed repetition '{': expected {n}, {n,} or {n,m} (write '\\{' for a literal brace)", at: start)
            }
            guard let minimum = readNumber() else { throw malformed() }
            var maximum: Int? = minimum
            if peekIs(",") {
                position += 1
                maximum = readNumber()
            }
            guard peekIs("}") else { throw malformed() }
            position += 1
            for count in [minimum, maximum ?? 0] where count > LinearRegex.maxRepetition {
                throw error("repetition count \(count) in '\(text(start..<position))' exceeds the maximum of \(LinearRegex.maxRepetition)", at: start)
            }
            if let maximum, maximum < minimum {
                throw error("repetition '\(text(start..<position))' has its minimum greater than its maximum", at: start)
            }
            return (minimum, maximum)
        }

        private mutating func readNumber() -> Int? {
            var value: Int?
            while let v = peek(), v >= 0x30, v <= 0x39 {
                value = Swift.min((value ?? 0) * 10 + Int(v - 0x30), 1_000_000)
                position += 1
            }
            return value
        }

        // MARK: Groups

        private static func isNameStart(_ v: UInt32) -> Bool {
            let lower = v | 0x20
            return lower >= 0x61 && lower <= 0x7A
        }

        private mutating func parseGroup(depth: Int) throws(LinearRegexError) -> Node? {
            let start = position
            if depth >= LinearRegex.maxNesting {
                throw error("pattern too complex: groups nested more than \(LinearRegex.maxNesting) deep", at: start)
            }
            position += 1
            var scopedFlags = flags
            if peekIs("?") {
                position += 1
                guard let v = peek() else {
                    throw error("missing ')' to close the group opened here", at: start)
                }
                let unsupported = "(MATCHES uses a linear-time engine)"
                switch v {
                case 0x3A: // :
                    position += 1
                case 0x3D: // =
                    throw error("lookahead '(?=' is not supported \(unsupported)", at: start)
                case 0x21: // !
                    throw error("negative lookahead '(?!' is not supported \(unsupported)", at: start)
                case 0x3E: // >
                    throw error("atomic groups '(?>' are not supported \(unsupported)", at: start)
                case 0x23: // # comment
                    while let c = peek(), c != 0x29 { position += 1 }
                    guard peekIs(")") else {
                        throw error("missing ')' to close the comment opened here", at: start)
                    }
                    position += 1
                    return nil
                case 0x3C: // <
                    if peekIs("=", 1) {
                        throw error("lookbehind '(?<=' is not supported \(unsupported)", at: start)
                    }
                    if peekIs("!", 1) {
                        throw error("negative lookbehind '(?<!' is not supported \(unsupported)", at: start)
                    }
                    position += 1
                    try parseGroupName(terminator: ">")
                case 0x50: // P
                    if peekIs("<", 1) {
                        position += 2
                        try parseGroupName(terminator: ">")
                    } else if peekIs("=", 1) {
                        throw error("backreferences are not supported \(unsupported)", at: start)
                    } else {
                        throw error("unknown group syntax '(?P'", at: start)
                    }
                case 0x27: // '
                    position += 1
                    try parseGroupName(terminator: "'")
                case 0x52, 0x26, 0x30...0x39: // R & digits
                    throw error("recursion and subroutine calls are not supported \(unsupported)", at: start)
                default:
                    guard Parser.isNameStart(v) || v == 0x2D else {
                        throw error("unknown group syntax '(?\(Scalars.show(v))'", at: start)
                    }
                    var enable = true
                    while let c = peek(), c != 0x29, c != 0x3A {
                        switch c {
                        case 0x2D:
                            guard enable else { throw error("unexpected '-' in inline flags", at: position) }
                            enable = false
                        case 0x69: scopedFlags.caseInsensitive = enable
                        case 0x6D: scopedFlags.multiline = enable
                        case 0x73: scopedFlags.dotAll = enable
                        case 0x78: scopedFlags.extended = enable
                        default:
                            if Parser.isNameStart(c) {
                                throw error("inline flag '\(Scalars.show(c))' is not supported (use i, m, s or x)", at: position)
                            }
                            throw error("unknown group syntax '\(text(start..<(position + 1)))'", at: start)
                        }
                        position += 1
                    }
                    guard let terminator = peek() else {
                        throw error("missing ')' to close the group opened here", at: start)
                    }
                    position += 1
                    if terminator == 0x29 {
                        // `(?i)`: applies to the rest of the enclosing group.
                        flags = scopedFlags
                        return nil
                    }
                }
            }
            let saved = flags
            flags = scopedFlags
            let body = try parseAlternation(depth: depth + 1)
            guard peekIs(")") else {
                throw error("missing ')' to close the group opened here", at: start)
            }
            position += 1
            flags = saved
            return body
        }

        private mutating func parseGroupName(terminator: Character) throws(LinearRegexError) {
            let nameStart = position
            guard let first = peek(), Parser.isNameStart(first) else {
                throw error("invalid group name: it must start with an ASCII letter", at: nameStart)
            }
            while let v = peek(), Parser.isNameStart(v) || (v >= 0x30 && v <= 0x39) {
                position += 1
            }
            guard peekIs(terminator) else {
                throw error("invalid group name: expected '\(terminator)' after the name", at: position)
            }
            position += 1
        }

        // MARK: Escapes

        enum Escape {
            case scalar(UInt32)
            case set(SetExpr)
            case assertion(Assertion)
            case lineBreak
            case quoteStart
            case quoteEnd
        }

        private mutating func parseEscape(inClass: Bool) throws(LinearRegexError) -> Escape {
            let start = position
            position += 1
            guard let v = peek() else {
                throw error("trailing backslash '\\' at end of pattern", at: start)
            }
            position += 1
            let unsupported = "(MATCHES uses a linear-time engine)"
            func assertion(_ kind: Assertion) throws(LinearRegexError) -> Escape {
                if inClass {
                    throw error("'\\\(Scalars.show(v))' is an assertion and cannot appear inside a character class", at: start)
                }
                return .assertion(kind)
            }
            switch v {
            case 0x74: return .scalar(0x09) // t
            case 0x6E: return .scalar(0x0A) // n
            case 0x72: return .scalar(0x0D) // r
            case 0x66: return .scalar(0x0C) // f
            case 0x65: return .scalar(0x1B) // e
            case 0x61: return .scalar(0x07) // a
            case 0x75: return .scalar(try readHex(exactly: 4, escapeStart: start)) // u
            case 0x55: return .scalar(try readHex(exactly: 8, escapeStart: start)) // U
            case 0x78: // x
                if peekIs("{") {
                    position += 1
                    let digitsStart = position
                    var value: UInt32 = 0
                    while let d = peek(), let digit = Parser.hexValue(d) {
                        value = Swift.min(value &* 16 &+ digit, 0x110000)
                        position += 1
                    }
                    guard position > digitsStart, position - digitsStart <= 8, peekIs("}") else {
                        throw error("malformed '\\x{...}' escape: expected 1 to 8 hex digits and '}'", at: start)
                    }
                    position += 1
                    return .scalar(try validScalar(value, escapeStart: start))
                }
                return .scalar(try readHex(exactly: 2, escapeStart: start))
            case 0x30: // 0: octal
                var value: UInt32 = 0
                var count = 0
                while count < 3, let d = peek(), d >= 0x30, d <= 0x37 {
                    value = value * 8 + (d - 0x30)
                    position += 1
                    count += 1
                }
                return .scalar(value)
            case 0x31...0x39:
                throw error("backreferences are not supported \(unsupported)", at: start)
            case 0x6B, 0x67: // k g
                throw error("backreferences are not supported \(unsupported)", at: start)
            case 0x63: // c
                guard let c = peek(), c >= 0x40, c < 0x80 else {
                    throw error("'\\c' must be followed by an ASCII control letter", at: start)
                }
                position += 1
                let upper = (c >= 0x61 && c <= 0x7A) ? c - 0x20 : c
                return .scalar(upper ^ 0x40)
            case 0x64: return .set(.property(.decimal, negated: false)) // d
            case 0x44: return .set(.property(.decimal, negated: true)) // D
            case 0x77: return .set(.property(.word, negated: false)) // w
            case 0x57: return .set(.property(.word, negated: true)) // W
            case 0x73: return .set(.property(.whitespace, negated: false)) // s
            case 0x53: return .set(.property(.whitespace, negated: true)) // S
            case 0x68: return .set(.property(.blank, negated: false)) // h
            case 0x48: return .set(.property(.blank, negated: true)) // H
            case 0x76: return .set(.property(.verticalSpace, negated: false)) // v
            case 0x56: return .set(.property(.verticalSpace, negated: true)) // V
            case 0x70, 0x50: // p P
                return .set(try parseProperty(negated: v == 0x50, escapeStart: start))
            case 0x62: // b
                if inClass { return .scalar(0x08) }
                return .assertion(.wordBoundary)
            case 0x42: return try assertion(.notWordBoundary) // B
            case 0x41, 0x47: return try assertion(.startOfText) // A G
            case 0x7A: return try assertion(.endOfText) // z
            case 0x5A: return try assertion(.endOfTextOrFinalTerminator) // Z
            case 0x52: // R
                if inClass { throw error("'\\R' matches a sequence and cannot appear inside a character class", at: start) }
                return .lineBreak
            case 0x51, 0x45: // Q E
                if inClass { throw error("'\\\(Scalars.show(v))' quoting is not supported inside a character class", at: start) }
                return v == 0x51 ? .quoteStart : .quoteEnd
            case 0x58:
                throw error("grapheme cluster escape '\\X' is not supported", at: start)
            case 0x4E:
                throw error("named character escape '\\N{...}' is not supported; use '\\x{...}'", at: start)
            default:
                if Parser.isNameStart(v) {
                    throw error("unknown escape '\\\(Scalars.show(v))'", at: start)
                }
                return .scalar(v)
            }
        }

        private static func hexValue(_ v: UInt32) -> UInt32? {
            switch v {
            case 0x30...0x39: return v - 0x30
            case 0x41...0x46: return v - 0x41 + 10
            case 0x61...0x66: return v - 0x61 + 10
            default: return nil
            }
        }

        private mutating func readHex(exactly count: Int, escapeStart: Int) throws(LinearRegexError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let d = peek(), let digit = Parser.hexValue(d) else {
                    throw error("malformed '\\\(Scalars.show(source[escapeStart + 1]))' escape: expected \(count) hex digits", at: escapeStart)
                }
                value = value &* 16 &+ digit
                position += 1
            }
            return try validScalar(value, escapeStart: escapeStart)
        }

        private func validScalar(_ value: UInt32, escapeStart: Int) throws(LinearRegexError) -> UInt32 {
            guard Unicode.Scalar(value) != nil else {
                throw error("'\(text(escapeStart..<position))' is not a valid Unicode scalar value", at: escapeStart)
            }
            return value
        }

        private mutating func parseProperty(negated: Bool, escapeStart: Int) throws(LinearRegexError) -> SetExpr {
            var name: String
            if peekIs("{") {
                position += 1
                let nameStart = position
                while let v = peek(), v != 0x7D { position += 1 }
                guard peekIs("}") else {
                    throw error("missing '}' to close the property name", at: escapeStart)
                }
                name = text(nameStart..<position)
                position += 1
            } else {
                guard let v = peek(), Parser.isNameStart(v) else {
                    throw error("'\\p' must be followed by a property name like {L} or {Lu}", at: escapeStart)
                }
                name = text(position..<(position + 1))
                position += 1
            }
            var isNegated = negated
            if name.hasPrefix("^") {
                isNegated.toggle()
                name.removeFirst()
            }
            guard let property = Property.named(name) else {
                throw error("unknown Unicode property '\(text(escapeStart..<position))'", at: escapeStart)
            }
            return .property(property, negated: isNegated)
        }

        // MARK: Classes

        /// If a POSIX class `[:name:]` or `[:^name:]` starts at the cursor, consumes and returns it.
        private mutating func parsePOSIXClass() throws(LinearRegexError) -> SetExpr? {
            guard peekIs("["), peekIs(":", 1) else { return nil }
            var index = position + 2
            while index < source.count, source[index] != 0x3A, source[index] != 0x5D, index - position < 40 {
                index += 1
            }
            guard index + 1 < source.count, source[index] == 0x3A, source[index + 1] == 0x5D else { return nil }
            var name = text((position + 2)..<index)
            var negated = false
            if name.hasPrefix("^") {
                negated = true
                name.removeFirst()
            }
            guard !name.isEmpty, let property = Property.named(name) else {
                throw error("unknown POSIX class '\(text(position..<(index + 2)))'", at: position)
            }
            position = index + 2
            return .property(property, negated: negated)
        }

        /// Canonical form of a single class member; nil when it vanishes (a mark under diacritic folding).
        private func canonicalMember(_ v: UInt32) -> UInt32? {
            guard v >= 0x80 else { return v }
            let normalized = Scalars.canonical([v], diacriticInsensitive: diacriticInsensitive)
            switch normalized.count {
            case 0: return nil
            case 1: return normalized[0]
            default: return v
            }
        }

        /// Parses `[...]` starting at the cursor; returns the set and whether it is negated.
        private mutating func parseClass(depth: Int) throws(LinearRegexError) -> (SetExpr, Bool) {
            let start = position
            if depth >= LinearRegex.maxNesting {
                throw error("pattern too complex: character classes nested more than \(LinearRegex.maxNesting) deep", at: start)
            }
            if let posix = try parsePOSIXClass() {
                return (posix, false)
            }
            position += 1
            var negated = false
            if peekIs("^") {
                negated = true
                position += 1
            }
            enum Operator { case intersection, subtraction }
            var result: SetExpr?
            var pending: Operator?
            var ranges: [ClosedRange<UInt32>] = []
            var members: [SetExpr] = []
            var first = true
            var leadingBracket = false

            func operand() -> SetExpr {
                var parts = members
                if !ranges.isEmpty { parts.insert(.ranges(SetExpr.merged(ranges)), at: 0) }
                ranges.removeAll()
                members.removeAll()
                if parts.count == 1 { return parts[0] }
                if parts.isEmpty { return .ranges([]) }
                return .union(parts)
            }
            func combine(_ next: SetExpr) {
                if let current = result, let op = pending {
                    switch op {
                    case .intersection: result = .intersection(current, next)
                    case .subtraction: result = .subtraction(current, next)
                    }
                } else {
                    result = next
                }
            }

            while true {
                guard let v = peek() else {
                    if leadingBracket {
                        throw error("empty character class '[]'", at: start)
                    }
                    throw error("missing ']' to close the character class opened here", at: start)
                }
                if v == 0x5D && !first { // ]
                    position += 1
                    break
                }
                defer { first = false }
                if v == 0x5D {
                    leadingBracket = true
                    position += 1
                    ranges.append(0x5D...0x5D)
                    continue
                }
                if v == 0x26 && peekIs("&", 1) { // &&
                    combine(operand())
                    pending = .intersection
                    position += 2
                    continue
                }
                if v == 0x2D && peekIs("-", 1) && (peekIs("[", 2) || peekIs("\\", 2)) && !first { // --
                    combine(operand())
                    pending = .subtraction
                    position += 2
                    continue
                }
                if v == 0x5B { // [
                    let (nested, nestedNegated) = try parseClass(depth: depth + 1)
                    members.append(nestedNegated ? .complement(nested) : nested)
                    continue
                }
                let itemStart = position
                guard let low = try parseClassScalar(allowSet: true, into: &members) else { continue }
                // A range `low-high`, unless '-' is the last thing before ']'.
                if peekIs("-"), let after = peek(1), after != 0x5D, !(after == 0x2D && (peekIs("[", 2) || peekIs("\\", 2))) {
                    position += 1
                    if after == 0x5B {
                        throw error("invalid range in character class: a range must end with a single character", at: itemStart)
                    }
                    var ignored: [SetExpr] = []
                    guard let high = try parseClassScalar(allowSet: false, into: &ignored) else {
                        throw error("invalid range in character class: a range must end with a single character", at: itemStart)
                    }
                    guard low <= high else {
                        throw error("range '\(text(itemStart..<position))' is out of order in character class", at: itemStart)
                    }
                    ranges.append(low...high)
                } else if let member = canonicalMember(low) {
                    ranges.append(member...member)
                }
            }
            combine(operand())
            return (result ?? .ranges([]), negated)
        }

        /// Parses one class member. Returns its scalar, or nil after appending a set (shorthand/property) to `members`.
        private mutating func parseClassScalar(allowSet: Bool, into members: inout [SetExpr]) throws(LinearRegexError) -> UInt32? {
            let start = position
            let v = source[position]
            guard v == 0x5C else {
                position += 1
                return v
            }
            switch try parseEscape(inClass: true) {
            case .scalar(let scalar):
                return scalar
            case .set(let expr):
                guard allowSet else {
                    throw error("invalid range in character class: '\(text(start..<position))' is a set, not a single character", at: start)
                }
                members.append(expr)
                if peekIs("-"), let after = peek(1), after != 0x5D, after != 0x2D {
                    throw error("invalid range in character class: '\(text(start..<position))' is a set, not a single character", at: start)
                }
                return nil
            case .assertion, .lineBreak, .quoteStart, .quoteEnd:
                throw error("'\(text(start..<position))' is not allowed inside a character class", at: start)
            }
        }
    }
}

// MARK: - Program and virtual machine

extension LinearRegex {
    enum Instruction: Sendable {
        case scalar(UInt32)
        case foldedScalar(UInt32)
        case any
        case anyIncludingNewline
        case set(Int32, caseInsensitive: Bool)
        case split(Int32, Int32)
        case jump(Int32)
        case assertion(Assertion)
        case match
    }

    struct Program: Sendable {
        let instructions: [Instruction]
        let classes: [CharClass]
        let usesFolding: Bool

        init(tree: Node, classes: [CharClass]) {
            var emitter = Emitter()
            emitter.emit(tree)
            emitter.instructions.append(.match)
            instructions = emitter.instructions
            self.classes = classes
            usesFolding = emitter.usesFolding
        }

        struct Emitter {
            var instructions: [Instruction] = []
            var usesFolding = false

            var here: Int32 { Int32(instructions.count) }

            mutating func emit(_ node: Node) {
                switch node.kind {
                case .empty:
                    break
                case .literal(let v, let caseInsensitive):
                    if caseInsensitive {
                        usesFolding = true
                        instructions.append(.foldedScalar(Scalars.fold(v)))
                    } else {
                        instructions.append(.scalar(v))
                    }
                case .any(let dotAll):
                    instructions.append(dotAll ? .anyIncludingNewline : .any)
                case .set(let index, let caseInsensitive):
                    instructions.append(.set(Int32(index), caseInsensitive: caseInsensitive))
                case .assertion(let assertion):
                    instructions.append(.assertion(assertion))
                case .concat(let nodes):
                    for child in nodes { emit(child) }
                case .alternation(let branches):
                    var exits: [Int] = []
                    for (index, branch) in branches.enumerated() {
                        if index == branches.count - 1 {
                            emit(branch)
                        } else {
                            let split = instructions.count
                            instructions.append(.split(0, 0))
                            emit(branch)
                            exits.append(instructions.count)
                            instructions.append(.jump(0))
                            instructions[split] = .split(Int32(split + 1), here)
                        }
                    }
                    for exit in exits { instructions[exit] = .jump(here) }
                case .repetition(let child, let min, let max):
                    if let max {
                        for _ in 0..<min { emit(child) }
                        var splits: [Int] = []
                        for _ in 0..<(max - min) {
                            splits.append(instructions.count)
                            instructions.append(.split(0, 0))
                            emit(child)
                        }
                        for split in splits { instructions[split] = .split(Int32(split + 1), here) }
                    } else if min == 0 {
                        let loop = instructions.count
                        instructions.append(.split(0, 0))
                        emit(child)
                        instructions.append(.jump(Int32(loop)))
                        instructions[loop] = .split(Int32(loop + 1), here)
                    } else {
                        for _ in 0..<(min - 1) { emit(child) }
                        let loop = here
                        emit(child)
                        instructions.append(.split(loop, here + 1))
                    }
                }
            }
        }

        /// A set of program counters with O(1) insert, membership and clear.
        struct ThreadList {
            var dense: [Int32]
            var sparse: [Int32]
            var count = 0

            init(capacity: Int) {
                dense = Array(repeating: 0, count: capacity)
                sparse = Array(repeating: 0, count: capacity)
            }

            func contains(_ pc: Int32) -> Bool {
                let slot = Int(sparse[Int(pc)])
                return slot < count && dense[slot] == pc
            }

            mutating func insert(_ pc: Int32) {
                sparse[Int(pc)] = Int32(count)
                dense[count] = pc
                count += 1
            }
        }

        func holds(_ assertion: Assertion, at index: Int, in subject: [UInt32]) -> Bool {
            let count = subject.count
            switch assertion {
            case .startOfText:
                return index == 0
            case .endOfText:
                return index == count
            case .endOfTextOrFinalTerminator:
                if index == count { return true }
                if index == count - 1 { return Scalars.isLineTerminator(subject[index]) }
                return index == count - 2 && subject[index] == 0x0D && subject[index + 1] == 0x0A
            case .startOfLine:
                if index == 0 { return true }
                guard index < count, Scalars.isLineTerminator(subject[index - 1]) else { return false }
                return !(subject[index - 1] == 0x0D && subject[index] == 0x0A)
            case .endOfLine:
                if index == count { return true }
                guard Scalars.isLineTerminator(subject[index]) else { return false }
                return !(index > 0 && subject[index - 1] == 0x0D && subject[index] == 0x0A)
            case .wordBoundary, .notWordBoundary:
                let before = index > 0 && Scalars.isWord(subject[index - 1])
                let after = index < count && Scalars.isWord(subject[index])
                return (before != after) == (assertion == .wordBoundary)
            }
        }

        /// Adds `start` and everything reachable from it without consuming input.
        func addThread(_ list: inout ThreadList, _ start: Int32, at index: Int, in subject: [UInt32], stack: inout [Int32]) {
            stack.append(start)
            while let pc = stack.popLast() {
                if list.contains(pc) { continue }
                list.insert(pc)
                switch instructions[Int(pc)] {
                case .jump(let target):
                    stack.append(target)
                case .split(let first, let second):
                    stack.append(second)
                    stack.append(first)
                case .assertion(let assertion):
                    if holds(assertion, at: index, in: subject) { stack.append(pc + 1) }
                default:
                    break
                }
            }
        }

        func run(_ subject: [UInt32]) -> Bool {
            let folded = usesFolding ? subject.map(Scalars.fold) : subject
            var current = ThreadList(capacity: instructions.count)
            var next = ThreadList(capacity: instructions.count)
            var stack: [Int32] = []
            addThread(&current, 0, at: 0, in: subject, stack: &stack)
            for index in subject.indices {
                if current.count == 0 { return false }
                let scalar = subject[index]
                let foldedScalar = folded[index]
                next.count = 0
                for slot in 0..<current.count {
                    let pc = current.dense[slot]
                    let advances: Bool
                    switch instructions[Int(pc)] {
                    case .scalar(let v): advances = scalar == v
                    case .foldedScalar(let v): advances = foldedScalar == v
                    case .any: advances = !Scalars.isLineTerminator(scalar)
                    case .anyIncludingNewline: advances = true
                    case .set(let classIndex, let caseInsensitive):
                        advances = classes[Int(classIndex)].matches(scalar, caseInsensitive: caseInsensitive)
                    case .split, .jump, .assertion, .match: advances = false
                    }
                    if advances {
                        addThread(&next, pc + 1, at: index + 1, in: subject, stack: &stack)
                    }
                }
                swap(&current, &next)
            }
            return current.contains(Int32(instructions.count - 1))
        }
    }
}
