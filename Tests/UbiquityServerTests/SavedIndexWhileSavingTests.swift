import Foundation
import Glibc
import Testing
import UbiquityTesting

/// The saved index written while the daemon goes on: with snapshots written back to back
/// (`index_save_interval_s = 0`) while files come and go, a `kill -9` cuts a save somewhere
/// between taking it and its journal being in place, and a token from before is still answered
/// exactly after the restart.
@Suite(.ownThreads) struct SavedIndexWhileSavingTests {
    typealias Saved = SavedIndexDaemonTests

    @Test func savingBackToBackThenKill9ATokenGetsExactlyTheChangesMadeWhileDown() async throws {
        let first = try TestDaemon(arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"]) { root in
            let config = "index_save_interval_s = 0\n[[roots]]\npath = \"\(root)\"\n"
            let path = URL(fileURLWithPath: root).deletingLastPathComponent().path + "/ubiquityd.toml"
            guard FileManager.default.createFile(atPath: path, contents: Data(config.utf8)) else { throw TestDaemonError("cannot write \(path)") }
        }
        defer { first.stop(); first.cleanUp() }
        try Saved.seed(first)
        let (token, before) = try Saved.liveToken(first)
        // Changes that are no results of the token's query keep snapshots coming back to back.
        for k in 0..<40 { _ = try first.place("other_\(k)", contents: "x") }
        try first.waitForLog("index saved", "reason=interval")
        for k in 40..<80 { _ = try first.place("other_\(k)", contents: "x") }
        first.signal(SIGKILL)
        #expect(first.waitForExit() != nil)
        try Saved.changeWhileDown(first.documents())

        let second = try Saved.restart(first, arguments: ["--config", first.directory + "/ubiquityd.toml", "--socket", first.socket])
        defer { second.stop(); second.cleanUp() }
        #expect(second.log.contains("index restored"), "\(second.log)")
        try Saved.expectExactAnswer(first, restarted: second, token: token, before: before)
    }
}
