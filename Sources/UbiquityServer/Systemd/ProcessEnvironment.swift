import Glibc
import Logging

/// Reading the process environment without Foundation.
public enum ProcessEnvironment {
    /// The variables among `names` that are set, with their values (`getenv(3)`).
    public static func values(of names: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }
}
