import Foundation
import Glibc
import Testing
import UbiquityTesting

/// A container's owner controls what is inside it; running as root, the daemon must never chown,
/// create or report through a link the owner put there (`Documents -> /etc/profile.d`).
@Suite(.ownThreads) struct ContainerDirectoryTests {
    @Test func aDocumentsLinkIsNeverFollowedAtStartReloadOrContainerURL() async throws {
        var template = Array("/tmp/ubqc-XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: base) }
        let container = base + "/com.example.shared", victim = base + "/victim"
        #expect(mkdir(container, 0o700) == 0 && mkdir(victim, 0o755) == 0)
        chown(container, 54321, 54321)
        #expect(symlink(victim, container + "/Documents") == 0)
        let config = base + "/ubiquityd.toml"
        try """
        [[containers]]
        id = "com.example.shared"
        path = "\(container)"
        owner = 54321
        create = true
        """.write(toFile: config, atomically: true, encoding: .utf8)
        func victimOwner() -> UInt32 {
            var info = stat()
            return lstat(victim, &info) == 0 ? info.st_uid : .max
        }

        try await withTestDaemon(containers: [], arguments: ["--config", config, "--socket", "{socket}"]) { daemon in
            #expect(victimOwner() == 0, "the daemon gave the link's target away at start")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            let url = try client.request(#"{"id":1,"op":"container.url","container":"com.example.shared"}"#).response
            #expect(url["error"]?["code"]?.stringValue == "container.unavailable", "\(url)")
            #expect(url["error"]?["message"]?.stringValue?.contains("symbolic link") == true)
            daemon.signal(SIGHUP)
            // The reload re-resolves containers; a status round trip after it shows it is done.
            _ = try client.request(#"{"id":2,"op":"status"}"#)
            #expect(victimOwner() == 0, "the daemon gave the link's target away on reload")
            #expect(daemon.log.contains("symbolic link"), "the problem is not in the log:\n\(daemon.log)")
        }
    }
}
