import UbiquityServer

/// The daemon's configuration file, validated as `ubiquityd --check-config` and every start and
/// reload validate it (``DaemonConfiguration/parse(_:path:uid:environment:)``).
///
/// - It is accepted, or refused with diagnostics that each point into the document (a line of it
///   and a column within that line plus one, or 0:0 for the whole file), in file order.
public enum ConfigurationCheck: FuzzCheck {
    public static let name = "configuration"

    static func parse(_ bytes: [UInt8]) throws(ConfigurationError) -> DaemonConfiguration {
        try DaemonConfiguration.parse(String(decoding: bytes, as: UTF8.self), path: "ubiquityd.toml", uid: 1000,
                                      environment: ["HOME": "/home/alice", "XDG_RUNTIME_DIR": "/run/user/1000"])
    }

    public static func accepts(_ bytes: [UInt8]) -> Bool { (try? parse(bytes)) != nil }

    public static func check(_ bytes: [UInt8]) -> String? {
        do throws(ConfigurationError) {
            _ = try parse(bytes)
            return nil
        } catch {
            // As parsed: invalid UTF-8 became U+FFFD, whose bytes count here.
            let lines = Array(String(decoding: bytes, as: UTF8.self).utf8).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            var previous = (0, 0)
            for diagnostic in error.diagnostics {
                let place = (diagnostic.line, diagnostic.column)
                if place == (0, 0) { continue }
                guard diagnostic.line >= 1, diagnostic.line <= lines.count, diagnostic.column >= 1,
                      diagnostic.column <= lines[diagnostic.line - 1].count + 1 else {
                    return "a diagnostic points outside the document: \(diagnostic)"
                }
                guard place >= previous else { return "diagnostics out of file order: \(error)" }
                previous = place
            }
            return nil
        }
    }
}
