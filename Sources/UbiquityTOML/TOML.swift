/// The entry point: `TOML.parse` turns a document of the subset (see UbiquityTOML.swift and
/// docs/configuration.md) into a ``TOMLTable``, or throws the first ``TOMLError``.
public enum TOML {
    /// Largest accepted document, in bytes.
    public static let maxBytes = 1 << 20
    /// Deepest accepted nesting of arrays and inline tables.
    public static let maxDepth = 32

    /// Parses a whole document.
    ///
    /// - Returns: The root table; `[table]` headers become table entries, `[[name]]` headers
    ///   arrays of tables, each in the order written.
    /// - Throws: ``TOMLError`` for the first syntax error, naming its line and column.
    public static func parse(_ bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
        guard bytes.count <= maxBytes else {
            throw TOMLError(position: TOMLPosition(line: 1, column: 1),
                            message: "the file is \(bytes.count) bytes; at most \(maxBytes) bytes (1 MiB) are accepted")
        }
        var parser = TOMLParser(bytes)
        try parser.checkUTF8()
        return try parser.document()
    }

    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable { try parse(Array(text.utf8)) }
}
