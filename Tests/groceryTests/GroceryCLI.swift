import Foundation
import Glibc
import UbiquityTesting

/// The `grocery` built beside this test bundle.
let grocery = BuiltExecutable("grocery")

/// `grocery watch --json` running as its own process; its lines are read with a deadline.
final class Watcher {
    let process = Process()
    let lines: LineReader
    private let exited: ProcessExit

    init(_ arguments: [String], json: Bool = true) throws {
        let pipe = Pipe()
        process.executableURL = grocery.url
        process.arguments = ["watch", "--batching", "0"] + (json ? ["--json"] : []) + arguments
        process.environment = BuiltExecutable.environment
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        exited = ProcessExit.of(process)
        try process.run()
        lines = LineReader(pipe.fileHandleForReading)
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// The next line as a JSON object; fails the caller (nil) when none comes within `seconds`.
    func next(within seconds: Double = 15) -> [String: Any]? {
        guard let line = lines.next(within: seconds) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    /// Skips lines until one of `kind`, and returns it (nil after `seconds` without one).
    func next(kind: String, within seconds: Double = 15) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let object = next(within: deadline.timeIntervalSinceNow) else { return nil }
            if object["kind"] as? String == kind { return object }
        }
        return nil
    }

    /// Every line until one of `kind` about item `id` (inclusive), for a message that shows what
    /// came instead; `found` is nil after `seconds` without one.
    func lines(until kind: String, id: String, within seconds: Double = 60) -> (found: [String: Any]?, seen: [String]) {
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, let line = lines.next(within: deadline.timeIntervalSinceNow) {
            seen.append(line)
            if let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
               object["kind"] as? String == kind, object["id"] as? String == id {
                return (object, seen)
            }
        }
        return (nil, seen)
    }

    /// SIGINT, then the exit status (nil if it did not exit within 10 s).
    func interrupt() -> Int32? {
        kill(process.processIdentifier, SIGINT)
        guard exited.wait(within: 10) else { return nil }
        process.waitUntilExit()     // the status is set by now; this returns at once
        return process.terminationStatus
    }
}
