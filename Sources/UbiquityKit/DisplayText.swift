/// Text from a container — file names, paths — made safe to print on a terminal.
///
/// A shared container holds names that other people chose: a name with `ESC [ 2 J` clears the
/// reader's screen, one with a newline forges extra output lines. Every command-line client
/// shows such text through this one function (`ubiq`, `grocery`); `--json` output stays exact.
public enum DisplayText {
    /// `text` on one line: newlines and tabs shown as `↵` and `⇥`, every other control character
    /// (escape, bell, carriage return, C1 controls) as `�`, so it can neither break a table nor
    /// move the cursor.
    public static func oneLine(_ text: String) -> String {
        // Control characters are U+0000-U+001F and U+007F-U+009F: bytes below 0x20, 0x7F, or
        // 0xC2 before 0x80-0x9F. Without any, the text is shown as it is (nearly every name).
        var previous: UInt8 = 0
        var clean = true
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte < 0xA0 && byte >= 0x80) {
                clean = false
                break
            }
            previous = byte
        }
        if clean { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result.unicodeScalars.append("↵")
            case "\t": result.unicodeScalars.append("⇥")
            case _ where scalar.properties.generalCategory == .control: result.unicodeScalars.append("\u{FFFD}")
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
