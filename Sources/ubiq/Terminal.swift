import Foundation
import UbiquityPredicate

/// Output helpers: standard error, tables, JSON, and errors with a caret under the position.
enum Terminal {
    static func error(_ message: String) {
        let line = "ubiq: " + message + (message.hasSuffix("\n") ? "" : "\n")
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// The error sentence, then the predicate with a caret under the offending position.
    static func explain(_ error: any Error, in text: String) -> String {
        guard let error = error as? MetadataPredicateError else { return "\(error)" }
        var out = "\(error) [\(error.code)]"
        let scalars = Array(text.unicodeScalars)
        guard !text.contains("\n"), scalars.count <= 200, error.offset <= scalars.count else { return out }
        out += "\n  \(text)\n  " + String(repeating: " ", count: error.offset) + "^"
        return out
    }

    static func json(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func jsonProblem(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            return context.underlyingError.map { "\($0.localizedDescription)" } ?? context.debugDescription
        }
        return "\(error)"
    }

    static func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
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
