import FoundationEssentials

/// String folding for `[c]` and `[d]`.
///
/// `[c]` lowercases with Unicode's full mappings; `[d]` decomposes (NFD) and drops combining
/// marks, so `É` ==[cd] `e` but `É` ==[c] `e` is false. Comparisons of the folded results are by
/// canonical equivalence (precomposed and decomposed `é` are equal), as Swift strings compare.
enum Folding {
    static func fold(_ s: String, _ options: ComparisonOptions) -> String {
        var t = s
        if options.contains(.diacriticInsensitive) { t = stripDiacritics(t) }
        if options.contains(.caseInsensitive) { t = t.lowercased() }
        return t
    }

    static func stripDiacritics(_ s: String) -> String {
        if isASCII(s) { return s }
        var out = String.UnicodeScalarView()
        for scalar in s.canonicallyDecomposedScalars where !isMark(scalar) {
            out.append(scalar)
        }
        return String(out)
    }

    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    static func isASCII(_ s: String) -> Bool {
        if let result = s.utf8.withContiguousStorageIfAvailable({ isASCII($0) }) { return result }
        return s.utf8.allSatisfy { $0 < 0x80 }
    }

    @inline(__always)
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= n {
                if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
                i += 8
            }
        }
        while i < n {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    static func containsCRLF(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count > 1 else { return false }
        for i in 1..<bytes.count where bytes[i] == 0x0A && bytes[i - 1] == 0x0D { return true }
        return false
    }

    @inline(__always)
    static func lowerASCII(_ b: UInt8) -> UInt8 { b &- 65 < 26 ? b | 0x20 : b }

    /// Words for Spotlight's `w` modifier: runs of letters and digits, also split where a
    /// lowercase letter is followed by an uppercase one (`GroceryList` → `Grocery`, `List`).
    static func words(_ s: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for c in s {
            let isWordCharacter = c.isLetter || c.isNumber
            if !isWordCharacter {
                if !current.isEmpty { words.append(current); current = "" }
                previousWasLower = false
                continue
            }
            if c.isUppercase && previousWasLower, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(c)
            previousWasLower = c.isLowercase
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
