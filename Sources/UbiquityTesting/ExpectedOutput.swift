import Foundation

/// Expected outputs kept as files in a `Expected/` folder beside the test source.
///
/// Run the tests with `UPDATE_EXPECTED=1` in the environment to rewrite the expected outputs a test
/// passes its current output to (``text(_:beside:current:)``), then review the diff.
public enum ExpectedOutput {
    /// The text of `Expected/<name>` beside `file` (by default the calling source file).
    public static func text(_ name: String, beside file: String = #filePath) throws -> String {
        try String(contentsOf: folder(beside: file).appendingPathComponent(name), encoding: .utf8)
    }

    /// The same, after writing `current` there first when UPDATE_EXPECTED=1.
    public static func text(_ name: String, beside file: String = #filePath, current: String) throws -> String {
        if ProcessInfo.processInfo.environment["UPDATE_EXPECTED"] == "1" {
            let folder = folder(beside: file)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try current.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return try text(name, beside: file)
    }

    /// The names of the files in the `Expected/` folder beside `file`.
    public static func names(beside file: String = #filePath) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder(beside: file).path)
    }

    static func folder(beside file: String) -> URL {
        URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Expected")
    }
}
