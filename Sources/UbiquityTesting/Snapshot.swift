import Foundation

/// Expected outputs kept as files in a `Snapshots/` folder beside the test source.
public enum Snapshot {
    /// The text of `Snapshots/<name>` beside `file` (by default the calling source file).
    public static func text(_ name: String, beside file: String = #filePath) throws -> String {
        let url = URL(fileURLWithPath: file).deletingLastPathComponent()
            .appendingPathComponent("Snapshots").appendingPathComponent(name)
        return try String(contentsOf: url, encoding: .utf8)
    }
}
