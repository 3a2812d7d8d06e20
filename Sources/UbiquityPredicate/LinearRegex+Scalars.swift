import FoundationEssentials

// Unicode helpers shared by the parser and the VM: canonical forms, case folding, line terminators.

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
            for scalar in string.canonicallyDecomposedScalars where !isMark(scalar) {
                view.append(scalar)
            }
            return String(view).canonicallyComposed
        }

        static func canonical(_ string: String, diacriticInsensitive: Bool) -> String {
            if isASCII(string) { return string }
            return diacriticInsensitive ? stripDiacritics(string) : string.canonicallyComposed
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
