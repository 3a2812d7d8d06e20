/// Whether bytes are valid UTF-8, without making a `String`: exactly the bytes Swift's own
/// validation accepts (`String(validating:as:)`), so a name the crawler refused as a `String`
/// before is refused the same now.
///
/// Valid: the well-formed sequences of the Unicode standard's table 3-7 — no overlong forms, no
/// surrogates (U+D800–U+DFFF), nothing above U+10FFFF, no sequence cut short. An all-ASCII
/// stretch is checked 8 bytes at a time, so the full check runs only from the first non-ASCII byte.
///
/// ```swift
/// UTF8Check.isValid(UnsafeBufferPointer(start: name, count: length))
/// ```
public enum UTF8Check {
    public static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var i = 0
        // ASCII, a word at a time.
        while i + 8 <= count {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        while i < count {
            let lead = base[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            // The second byte's range depends on the lead (table 3-7); later ones are 80–BF.
            let length: Int, low: UInt8, high: UInt8
            switch lead {
            case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
            case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (length, low, high) = (3, 0x80, 0xBF)
            case 0xED: (length, low, high) = (3, 0x80, 0x9F)
            case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
            case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
            case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
            default: return false
            }
            guard count - i >= length else { return false }
            let second = base[i + 1]
            guard second >= low, second <= high else { return false }
            var k = 2
            while k < length {
                guard base[i + k] & 0xC0 == 0x80 else { return false }
                k += 1
            }
            i += length
        }
        return true
    }
}
