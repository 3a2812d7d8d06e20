import Foundation
import Glibc

/// Removes a tree a daemon watches. The daemon may create a sync cookie in it meanwhile (a
/// directory then found not empty): after such a failure it waits for the tree's next change (or
/// a tenth of a second, for a change deeper down that its root does not report) and tries again,
/// until the tree is gone or `seconds` have passed.
public func removeWatchedTree(_ path: String, within seconds: Double = 10) throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    let changes = try FileEvents(watching: path, mask: UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF))
    while true {
        do {
            try FileManager.default.removeItem(atPath: path)
            return
        } catch {
            guard FileManager.default.fileExists(atPath: path) else { return }
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { throw error }
            let (whole, attoseconds) = left.components
            changes.wait(within: min(0.1, Double(whole) + Double(attoseconds) / 1e18))
        }
    }
}
