import Foundation
import Glibc

public struct TestDaemonError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Makes a file appear at once: written in `staging` (same file system), then renamed to `target`,
/// so a watcher sees one complete file (an atomic save) rather than a create followed by a write.
@discardableResult
public func placeAtomically(_ target: String, contents: String, staging: String) throws -> String {
    let staged = staging + "/staging-" + UUID().uuidString
    try Data(contents.utf8).write(to: URL(fileURLWithPath: staged))
    guard rename(staged, target) == 0 else { throw TestDaemonError("rename to \(target): \(String(cString: strerror(errno)))") }
    return target
}
