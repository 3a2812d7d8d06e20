import Glibc

// Helpers shared by this target's suites. (The daemon process and the raw client are in
// UbiquityTesting, shared with other test targets.)

/// A fresh directory under /tmp, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/ubq-t-XXXXXX".utf8CString)
        guard let result = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        path = String(cString: result)
    }

    deinit { removeTree(path) }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

