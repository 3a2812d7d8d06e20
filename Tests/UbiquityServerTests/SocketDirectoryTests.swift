import Foundation
import Glibc
import Testing
@testable import UbiquityServer

/// The socket directory is checked without following links: a link planted where the directory
/// should be (as `/tmp/ubiquity-UID` can be, by anyone) is refused, not bound through.
@Suite struct SocketDirectoryTests {
    @Test func aSymbolicLinkInPlaceOfTheSocketDirectoryIsRefused() throws {
        var template = Array("/tmp/ubqs-XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: base) }
        let real = base + "/real"
        #expect(mkdir(real, 0o700) == 0)
        #expect(symlink(real, base + "/link") == 0)
        let error = #expect(throws: SocketPath.Problem.self) { try SocketPath.prepare(base + "/link/s.sock") }
        #expect(error?.description.contains("symbolic link") == true, "\(String(describing: error))")
        try SocketPath.prepare(real + "/s.sock")    // the real directory is fine
    }
}
