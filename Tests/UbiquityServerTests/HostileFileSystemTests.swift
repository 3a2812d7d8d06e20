import Foundation
import Glibc
import Testing
import UbiquityTesting

/// What any writer of a container can put on disk, against the real daemon process.
@Suite(.ownThreads) struct HostileFileSystemTests {
    /// Two sparse files of 5 EiB in one package (possible on tmpfs, XFS, btrfs) once trapped the
    /// daemon in the package size sum, at every start. Now the package reports Int64.max.
    @Test func sparseExbibyteFilesInAPackageDoNotCrashTheDaemon() async throws {
        var template = Array("/dev/shm/ubqx-XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: base) }
        let package = base + "/com.example.grocery/Documents/x.gro"
        try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
        for name in ["a", "b"] {
            let fd = open(package + "/" + name, O_CREAT | O_WRONLY, 0o644)
            #expect(fd >= 0)
            #expect(ftruncate(fd, 5 << 60) == 0, "this test needs tmpfs for sparse 5 EiB files")
            close(fd)
        }
        try await withTestDaemon(containers: [], arguments: ["--root", base, "--socket", "{socket}"]) { daemon in
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            let answer = try client.request(#"{"id":1,"op":"query.start","predicate":"name == 'x.gro'","attributes":["size"],"live":false}"#)
            var finished = answer.events.first { $0["event"]?.stringValue == "query.gatheringFinished" }
            while finished == nil {
                let event = try client.readJSON()
                if event["event"]?.stringValue == "query.gatheringFinished" { finished = event }
            }
            let results = finished?["results"]?.arrayValue
            #expect(results?.first?["attributes"]?["kMDItemFSSize"]?.intValue == Int(Int64.max), "\(String(describing: results))")
            #expect(daemon.process.isRunning)
        }
    }
}
