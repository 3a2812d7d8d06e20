import Foundation
import Glibc
import Testing
import UbiquityProtocol
import UbiquityTesting
@testable import UbiquityServer

/// Group access decided from the socket (`SO_PEERGROUPS`), with `/proc` hidden from the daemon the
/// way the system unit's `ProtectProc=invisible` hides it: the daemon runs as uid 54320 in a mount
/// namespace whose `/proc` is mounted `hidepid=invisible`, so it cannot read the client's
/// `/proc/PID/status`. Needs root (setpriv, unshare, mount).
@Suite(.ownThreads) struct PeerGroupsTests {
    /// "Did you mean" names only containers the asking peer may read.
    @Test func suggestionsNeverNameAContainerThePeerMayNotRead() async throws {
        try await withTestDaemon { daemon in
            chmod(daemon.directory, 0o755)
            let ask = [#"{"id":0,"op":"hello","version":1}"#, #"{"id":1,"op":"container.url","container":"com.example.grocerx"}"#]
            let asRoot = try AuthorizationTests.exchange(as: 0, socket: daemon.socket, ask)
            #expect(asRoot.last?["error"]?["message"]?.stringValue?.contains("did you mean 'com.example.grocery'") == true)
            let asStranger = try AuthorizationTests.exchange(as: Self.clientUID, socket: daemon.socket, ask)
            let message = try #require(asStranger.last?["error"]?["message"]?.stringValue)
            #expect(asStranger.last?["error"]?["code"]?.stringValue == "container.unknown")
            #expect(!message.contains("com.example.grocery"), "\(message)")
        }
    }

    static let daemonUID: UInt32 = 54320, clientUID: UInt32 = 54321, teamGID: UInt32 = 54322

    @Test func aGroupMemberReadsTheContainerEvenWhenProcIsInvisible() async throws {
        var template = Array("/tmp/ubqg-XXXXXX".utf8CString)
        let shared = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let container = shared + "/com.example.team"
        try FileManager.default.createDirectory(atPath: container + "/Documents", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: container + "/Documents/Item_1", contents: Data("milk".utf8)))
        for path in [shared, container, container + "/Documents", container + "/Documents/Item_1"] {
            chown(path, Self.daemonUID, Self.teamGID)
        }
        chmod(shared, 0o755)
        let config = shared + "/ubiquityd.toml"
        try """
        [[containers]]
        id = "com.example.team"
        path = "\(container)"
        owner = \(Self.daemonUID)
        group = \(Self.teamGID)
        """.write(toFile: config, atomically: true, encoding: .utf8)

        let script = "chown \(Self.daemonUID) {dir} && chmod 0711 {dir}"
            + " && mount -t proc -o hidepid=invisible proc /proc"
            + " && exec setpriv --reuid=\(Self.daemonUID) --regid=\(Self.daemonUID) --clear-groups"
            + " {ubiquityd} --config \(config) --socket {socket}"
        // unshare and sh exec into the daemon: the process the test stops is ubiquityd itself.
        let daemon = try TestDaemon(containers: [], arguments: ["-m", "--propagation", "private", "/bin/sh", "-c", script],
                                    launcher: "/usr/bin/unshare")
        defer {
            daemon.stop()
            daemon.cleanUp()
        }
        do {
            // A user daemon's socket is 0600; open it to the client as the system unit's socket is.
            chmod(daemon.socket, 0o666)
            let query = #"{"id":1,"op":"query.start","container":"com.example.team","predicate":"name LIKE 'Item_*'","live":false}"#
            let member = try AuthorizationTests.exchange(as: Self.clientUID, groups: [Self.teamGID], socket: daemon.socket,
                                                         [#"{"id":0,"op":"hello","version":1}"#, query])
            let started = try #require(member.first { $0["id"]?.intValue == 1 })
            #expect(started["error"] == nil, "a member was refused: \(started)")
            let finished = member.first { $0["event"]?.stringValue == "query.gatheringFinished" }
            #expect(finished?["results"]?.arrayValue?.count == 1)

            // The control: the same uid without the group is refused.
            let stranger = try AuthorizationTests.exchange(as: Self.clientUID, socket: daemon.socket,
                                                           [#"{"id":0,"op":"hello","version":1}"#, query])
            #expect(stranger.first { $0["id"]?.intValue == 1 }?["error"]?["code"]?.stringValue == "container.forbidden")
        }
    }
}
