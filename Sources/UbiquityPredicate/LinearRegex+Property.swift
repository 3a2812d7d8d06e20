// Unicode properties and POSIX classes that a character set can name (\p{...}, [:alpha:]).

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
}
