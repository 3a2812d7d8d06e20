import UbiquityPredicate

/// Whether bytes are valid UTF-8, without making a `String`: exactly the bytes Swift's own
/// validation accepts (`String(validating:as:)`), so a name the crawler refused as a `String`
/// before is refused the same now.
///
/// Valid: the well-formed sequences of the Unicode standard's table 3-7 — no overlong forms, no
/// surrogates (U+D800–U+DFFF), nothing above U+10FFFF, no sequence cut short. An all-ASCII
/// start is skipped 8 bytes at a time; from the first other byte on, each byte is one step of a
/// table-driven automaton (``rows``: the next state of every state for that byte packed in one
/// word, so a step is a load and a shift, no branch on the byte): names of mixed scripts
/// (the long benchmark shape's) cost no mispredicted branch per character.
///
/// ```swift
/// UTF8Check.isValid(UnsafeBufferPointer(start: name, count: length))
/// ```
public enum UTF8Check {
    public static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var i = ASCIIPrefix.wholeWords(of: bytes)
        if i == count { return true }
        return rows.withUnsafeBufferPointer { rows in
            var state: UInt64 = 0
            while i < count {
                state = (rows[Int(base[i])] &>> state) & 63
                i += 1
            }
            return state == 0
        }
    }

    /// The automaton's states, each a bit offset (a multiple of 6) into a row: accepting (0), a
    /// sink for what is invalid, and what the bytes so far still need.
    private enum State: Int, CaseIterable {
        case accept, reject, oneMore, twoMore, threeMore
        /// After E0 (A0–BF next), ED (80–9F: no surrogates), F0 (90–BF), F4 (80–8F: nothing above U+10FFFF).
        case afterE0, afterED, afterF0, afterF4

        var offset: UInt64 { UInt64(rawValue * 6) }

        /// Table 3-7 of the Unicode standard.
        func next(_ byte: UInt8) -> State {
            let continuation = (0x80...0xBF).contains(byte)
            switch self {
            case .accept:
                switch byte {
                case 0x00...0x7F: return .accept
                case 0xC2...0xDF: return .oneMore
                case 0xE0: return .afterE0
                case 0xE1...0xEC, 0xEE...0xEF: return .twoMore
                case 0xED: return .afterED
                case 0xF0: return .afterF0
                case 0xF1...0xF3: return .threeMore
                case 0xF4: return .afterF4
                default: return .reject
                }
            case .reject: return .reject
            case .oneMore: return continuation ? .accept : .reject
            case .twoMore: return continuation ? .oneMore : .reject
            case .threeMore: return continuation ? .twoMore : .reject
            case .afterE0: return (0xA0...0xBF).contains(byte) ? .oneMore : .reject
            case .afterED: return (0x80...0x9F).contains(byte) ? .oneMore : .reject
            case .afterF0: return (0x90...0xBF).contains(byte) ? .twoMore : .reject
            case .afterF4: return (0x80...0x8F).contains(byte) ? .twoMore : .reject
            }
        }
    }

    /// For each byte, every state's next state's offset, at that state's offset.
    static let rows: [UInt64] = (0...255).map { byte in
        State.allCases.reduce(0) { row, state in row | state.next(UInt8(byte)).offset << state.offset }
    }
}
