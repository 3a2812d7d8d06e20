
/// The name test of a hint: byte comparison for ASCII, Unicode-correct otherwise.
struct NameTest {
    let text: String
    let bytes: [UInt8]
    let prefix: Bool
    let caseInsensitive: Bool
    let asciiText: Bool

    init(_ text: String, prefix: Bool, caseInsensitive: Bool) {
        self.text = text
        self.bytes = Array(text.utf8)
        self.prefix = prefix
        self.caseInsensitive = caseInsensitive
        self.asciiText = bytes.allSatisfy { $0 < 0x80 }
    }

    func accepts(_ name: String) -> Bool {
        if asciiText, let decided = name.utf8.withContiguousStorageIfAvailable({ decide($0) }), let decided {
            return decided
        }
        let candidate = caseInsensitive ? name.lowercased() : name
        return prefix ? candidate.hasPrefix(text) : candidate == text
    }

    /// In a case-sensitive walk sorted by name: has the walk left the run of possible matches?
    /// True once the name no longer starts with the text's bytes and sorts after it.
    func isPastRun(_ name: String) -> Bool {
        if !asciiText { return false }          // be conservative: walk the bucket
        var it = name.utf8.makeIterator()
        for b in bytes {
            guard let n = it.next() else { return false }
            if n != b { return n > b }
        }
        return !prefix          // exact: a longer name with the same start is past the run
    }

    /// Decides on bytes when every compared byte is ASCII; nil defers to the Unicode path.
    private func decide(_ s: UnsafeBufferPointer<UInt8>) -> Bool? {
        let n = bytes.count
        if s.count < n { return s.allSatisfy { $0 < 0x80 } ? false : nil }
        for i in 0..<n {
            let b = s[i]
            if b >= 0x80 { return nil }
            let folded = caseInsensitive && b >= 65 && b <= 90 ? b | 0x20 : b
            if folded != bytes[i] { return false }
        }
        if prefix { return s.count == n || s[n] < 0x80 ? true : nil }
        return s.count == n ? true : (s[n...].allSatisfy { $0 < 0x80 } ? false : nil)
    }
}
