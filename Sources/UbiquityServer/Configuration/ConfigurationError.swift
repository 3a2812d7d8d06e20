public import UbiquityErrors

/// Everything wrong with a configuration file, each problem with its place:
/// `ubiquityd.toml:7:12: expected a value after '=', found end of line`.
///
/// A syntax error stops parsing, so it comes alone; semantic problems (unknown keys, wrong types,
/// bad ids, relative paths, out-of-range limits, unknown users) are all collected, in file order.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code; its raw value is the documented string (``ConfigurationErrorCode``).
    public typealias Code = ConfigurationErrorCode

    /// One problem at one place.
    public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
        public var code: Code
        /// The file as it was named to the daemon (or `--root DIR` / `--config` for flag problems).
        public var path: String
        /// 1-based; 0 when the problem concerns the whole file.
        public var line: Int
        /// 1-based, in Unicode scalars; 0 when the problem concerns the whole file.
        public var column: Int
        public var message: String

        /// `path:line:column: message`, or `path: message` without a position.
        public var description: String {
            line > 0 ? "\(path):\(line):\(column): \(message)" : "\(path): \(message)"
        }
    }

    /// At least one, ordered by position.
    public var diagnostics: [Diagnostic]

    public init(_ diagnostics: [Diagnostic]) {
        precondition(!diagnostics.isEmpty, "a ConfigurationError needs at least one diagnostic")
        self.diagnostics = diagnostics
    }

    public init(code: Code, path: String, line: Int = 0, column: Int = 0, message: String) {
        self.init([Diagnostic(code: code, path: path, line: line, column: column, message: message)])
    }

    public var code: Code { diagnostics[0].code }
    public var path: String { diagnostics[0].path }
    public var line: Int { diagnostics[0].line }
    public var column: Int { diagnostics[0].column }
    public var message: String { diagnostics[0].message }

    /// One rendered diagnostic per line.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
