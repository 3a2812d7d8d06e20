import CommandLineSupport
import FoundationEssentials
import Glibc
import GroceryStore
import UbiquityKit

/// Standard output and error: tables, colour (only on a terminal, never with NO_COLOR), JSON lines.
enum Output {
    static func error(_ message: String) {
        write("grocery: " + message + "\n", to: 2)
    }

    /// Writes straight to standard output, unbuffered, so a reader sees each line as it is made.
    static func line(_ text: String) {
        write(text + (text.hasSuffix("\n") ? "" : "\n"), to: 1)
    }

    /// Writes unbuffered; exits quietly when the reader has gone (``StandardStream``).
    static func write(_ text: String, to fd: Int32) { StandardStream.write(text, to: fd) }

    /// Standard output is a terminal rather than a pipe or file.
    static let isTerminal = isatty(1) == 1

    /// Colour only on a terminal, and not when NO_COLOR is set to anything (no-color.org) or TERM is dumb.
    static let usesColor: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }()

    enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36"
    }

    static func styled(_ text: String, _ style: Style) -> String {
        usesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// A name on one line (``DisplayText/oneLine(_:)``, shared with `ubiq`).
    static func oneLine(_ name: String) -> String { DisplayText.oneLine(name) }

    /// Columns padded to their widest cell; the last column (the name) is never padded.
    /// `styles` colour whole columns after padding, so escapes do not count as width.
    /// Without a header: label/value lines (`status`, `show`).
    static func table(header: [String]?, rows: [[String]], styles: [Style?] = []) -> String {
        let columns = header?.count ?? rows.first?.count ?? 0
        // The last column is never padded: its width is not needed (counting characters of
        // 10,000 names was a tenth of `grocery list`).
        var widths = Array(repeating: 0, count: columns)
        var bytes = 0
        // The header and the rows each where they are (one array of both copied every row).
        func measure(_ row: [String]) {
            for (column, cell) in row.enumerated() {
                if column < columns - 1 { widths[column] = max(widths[column], cell.count) }
                bytes += cell.utf8.count + 2
            }
        }
        if let header { measure(header) }
        for row in rows { measure(row) }
        // One string, appended to, rather than a string per padded cell and per row, then joined:
        // `grocery list` prints 10,000 rows.
        var table = ""
        table.reserveCapacity(bytes + widths.reduce(0, +) * rows.count + (usesColor ? 16 * columns * (rows.count + 1) : 0))
        func append(_ row: [String], styled rowStyle: (Int) -> Style?) {
            for (column, cell) in row.enumerated() {
                if column > 0 { table += "  " }
                let style = rowStyle(column)
                if let style, usesColor { table += "\u{1B}[\(style.rawValue)m" }
                table += cell
                if column < row.count - 1, column < columns, case let padding = widths[column] - cell.count, padding > 0 {
                    table += String(repeating: " ", count: padding)
                }
                if style != nil, usesColor { table += "\u{1B}[0m" }
            }
        }
        if let header { append(header) { _ in .dim } }
        for (index, row) in rows.enumerated() {
            if index > 0 || header != nil { table += "\n" }
            append(row) { $0 < styles.count ? styles[$0] : nil }
        }
        return table
    }

    /// `10:00:03` in the local time zone (TZ).
    static func clock(_ date: Date) -> String { LocalTime.clock(date) }

    /// `2026-11-22 10:00:03` in the local time zone (TZ).
    static func dateTime(_ date: Date) -> String { LocalTime.dateTime(date) }

    /// ISO 8601 in UTC with milliseconds, for JSON. One style for every date: creating a
    /// formatter per date made `list --json` of 10,000 items take seconds.
    static func iso(_ date: Date) -> String { isoStyle.format(date) }
    private static let isoStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func json(_ value: some Encodable) -> String { jsonLines([value]) }

    /// One JSON text per value, newline-separated, with one encoder for all of them.
    static func jsonLines<Value: Encodable>(_ values: [Value]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our own types only: encoding cannot fail.
        return values.map { String(decoding: (try? encoder.encode($0)) ?? Data("{}".utf8), as: UTF8.self) }
            .joined(separator: "\n")
    }
}
