import UbiquityIndex

/// The lines files on demand keep in a Syncthing folder's ignore patterns (`.stignore`, through
/// `/rest/db/ignores`). Pure.
///
/// Two kinds, always at the top (Syncthing's first matching line wins, so a user's `!` line
/// further down cannot undo them), the user's own lines kept below in their order:
/// - ``placeholderLine``, once: every evicted item's placeholder file, in every directory, is
///   this device's own and never replicated (`(?d)`: Syncthing may delete it with a directory
///   the other devices removed).
/// - one exact line per evicted item, `/` + its path with glob characters escaped: the item is
///   not pulled while evicted, and its absence is not a deletion.
enum SyncthingIgnorePatterns {
    static let placeholderLine = "(?d).*" + EvictedPlaceholderName.suffix

    /// The exact line for the item at `relative` (`/`-separated, below the folder's root):
    /// `\` before each of `\ * ? [ ] { }` (Syncthing's glob characters on Unix).
    static func exactLine(for relative: String) -> String {
        var out = "/"
        for character in relative.unicodeScalars {
            switch character {
            case "\\", "*", "?", "[", "]", "{", "}": out.unicodeScalars.append("\\")
            default: break
            }
            out.unicodeScalars.append(character)
        }
        return out
    }

    /// `lines` with the placeholder line and the item's exact line on top (each once).
    static func evicting(_ relative: String, in lines: [String]) -> [String] {
        let exact = exactLine(for: relative)
        let rest = lines.filter { $0 != placeholderLine && !ExactName.sameBytes($0, exact) }
        return [placeholderLine, exact] + rest
    }

    /// `lines` without the item's exact line (the placeholder line stays: the placeholder file
    /// may still be there until the item arrives). Lines are compared byte for byte: the line of
    /// a canonically equal sibling (`café` in the other form) is another item's, and stays.
    static func downloading(_ relative: String, in lines: [String]) -> [String] {
        let exact = exactLine(for: relative)
        return lines.filter { !ExactName.sameBytes($0, exact) }
    }
}
