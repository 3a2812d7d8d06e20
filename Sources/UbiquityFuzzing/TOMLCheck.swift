import UbiquityTOML

/// The configuration file's TOML, as an administrator (or anyone who can write it) wrote it.
///
/// - A document is read, or refused with a line and a column that are in the document (line 1
///   to its number of lines, column 1 to its length plus one), so the message points at the text.
public enum TOMLCheck: FuzzCheck {
    public static let name = "toml"

    public static func accepts(_ bytes: [UInt8]) -> Bool { (try? TOML.parse(bytes)) != nil }

    public static func check(_ bytes: [UInt8]) -> String? {
        do throws(TOMLError) {
            _ = try TOML.parse(bytes)
            return nil
        } catch {
            let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            let position = error.position
            guard position.line >= 1, position.line <= lines.count else {
                return "the error's line \(position.line) is not one of the document's \(lines.count): \(error)"
            }
            guard position.column >= 1, position.column <= lines[position.line - 1].count + 1 else {
                return "the error's column \(position.column) is past line \(position.line)'s end: \(error)"
            }
            return nil
        }
    }
}
