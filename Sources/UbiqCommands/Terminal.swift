import CommandLineSupport
import FoundationEssentials
import Glibc
import UbiquityKit
import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol

/// Output helpers: standard error, tables, JSON, and errors with a caret under the position.
enum Terminal {
    static func error(_ message: String) {
        write("ubiq: " + message + (message.hasSuffix("\n") ? "" : "\n"), to: 2)
    }

    /// The error sentence, then the predicate with a caret under the offending position.
    static func explain(_ error: any Error, in text: String) -> String {
        guard let error = error as? MetadataPredicateError else { return "\(error)" }
        return "\(error) [\(error.code)]" + caret(under: error.offset, in: text)
    }

    /// `\n  TEXT\n     ^` under a character offset, or nothing when the text does not fit on one line.
    static func caret(under offset: Int, in text: String) -> String {
        let count = text.unicodeScalars.count
        guard !text.contains("\n"), count <= 200, offset >= 0, offset <= count else { return "" }
        return "\n  \(text)\n  " + String(repeating: " ", count: offset) + "^"
    }

    /// Writes straight to standard output, unbuffered, so a reader sees each line as it is made.
    static func output(_ text: String) {
        write(text + (text.hasSuffix("\n") ? "" : "\n"), to: 1)
    }

    /// Writes unbuffered; exits quietly when the reader has gone (``StandardStream``).
    static func write(_ text: String, to fd: Int32) { StandardStream.write(text, to: fd) }

    /// Standard output is a terminal (tables, timestamps) rather than a pipe or file.
    static var isTerminal: Bool { isatty(1) == 1 }

    /// `2026-11-22 10:00:03` in the local time zone (TZ).
    static func shortDate(_ date: Date) -> String { LocalTime.dateTime(date) }

    /// `10:00:03` in the local time zone, for live update lines.
    static func clock(_ date: Date) -> String { LocalTime.clock(date) }

    static func json(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func jsonProblem(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            return context.underlyingError.map { "\($0)" } ?? context.debugDescription
        }
        return "\(error)"
    }

    /// Every cell is shown on one line with control characters replaced (``DisplayText``): file
    /// names in a shared container are other people's text.
    static func table(header: [String], rows: [[String]]) -> String {
        let all = ([header] + rows).map { row in row.map { DisplayText.oneLine($0) } }
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { i in
                i == row.count - 1 ? row[i] : row[i] + String(repeating: " ", count: widths[i] - row[i].count)
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
