import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// Random client paths (UbiquityTesting's ``HostilePaths``) sent raw to the real daemon, for every
/// operation that names an item, against a container holding links to `/`, to another container,
/// outside and through `/proc`: whatever succeeds names a path with no link on the way (libc's
/// `realpath` of it is itself) inside the container, no answer carries anything from outside,
/// and the daemon keeps answering.
@Suite("Client paths fuzzed through the real daemon", .ownThreads)
struct ClientPathDaemonFuzzTests {
    static let outsideMarker = "OUTSIDE-SECRET"

    @Test("3,000 random paths × versions.list, document.lock, document.watch: nothing outside the container is listed, locked or watched")
    func nothingOutsideThroughTheDaemon() async throws {
        try await withDaemon(containers: ["com.example.grocery", "com.example.other"]) { daemon in
            let container = daemon.root + "/com.example.grocery"
            let documents = daemon.documents()
            try FS.mkdir(documents + "/sub")
            try FS.write(documents + "/Item_1", "milk")
            try FS.write(documents + "/sub/Item_2", "bread")
            try FS.write(daemon.documents("com.example.other") + "/Item_other", Self.outsideMarker)
            try FS.write(daemon.directory + "/outside", Self.outsideMarker)
            try FS.symlink("/", container + "/L\u{600}")
            try FS.symlink("/", documents + "/root")
            try FS.symlink(daemon.root + "/com.example.other/Documents", documents + "/other")
            try FS.symlink("../../../outside", documents + "/up")
            try FS.symlink("/proc/self/root", documents + "/magic")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            let inside = Array((container + "/").utf8)
            var random = SplitMix64(seed: 0x33_0FF5)
            var succeeded = 0, refused = 0, id = 0
            for _ in 0..<3_000 {
                let path = inside + HostilePaths.random(&random)
                for op in ["versions.list", "document.lock", "document.watch"] {
                    id += 1
                    try client.sendBytes(Array(#"{"id":\#(id),"op":"\#(op)","path":""#.utf8) + Self.jsonEscaped(path) + Array("\"}\n".utf8))
                    var answer = try client.readJSON()
                    while answer["event"] != nil { answer = try client.readJSON() }
                    let text = JSONLine.encode(answer)
                    #expect(!text.contains(Self.outsideMarker) && !text.contains("Item_other"), "\(text)")
                    guard let result = answer["result"] else { refused += 1; continue }
                    succeeded += 1
                    // Success only for a path with no link on the way, inside the container.
                    #expect(Self.hasNoLink(path), "\(op) succeeded for \(String(decoding: path, as: UTF8.self))")
                    for version in (result["others"]?.arrayValue ?? []) + [result["current"] ?? .null] where version != .null {
                        let listed = Array((version["path"]?.stringValue ?? "").utf8)
                        #expect(listed.starts(with: inside))
                    }
                    if let lock = result["lock"]?.intValue {
                        _ = try client.request(#"{"id":0,"op":"document.unlock","lock":\#(lock)}"#)
                    }
                    if let watch = result["watch"]?.intValue {
                        _ = try client.request(#"{"id":0,"op":"document.unwatch","watch":\#(watch)}"#)
                    }
                }
            }
            #expect(succeeded > 300 && refused > 3_000, "succeeded \(succeeded), refused \(refused)")
            #expect(try client.request(#"{"id":1,"op":"status"}"#).response["result"] != nil)
        }
    }

    /// `bytes` inside a JSON string: `"` and `\` escaped, control characters as `\u00XX`, the rest
    /// (invalid UTF-8 included, which the daemon must refuse) as it is.
    static func jsonEscaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        return out
    }

    /// Whether libc's `realpath` (every link followed) of `path` is `path` itself — or, for
    /// something not there yet (a lock taken to create a document), of its directory.
    static func hasNoLink(_ path: [UInt8]) -> Bool {
        var info = stat()
        let exists = (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) } } == 0
        if exists { return realPath(path) == path }
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return false }
        let directory = Array(path[..<slash])
        return realPath(directory) == directory
    }

    /// libc's `realpath` (every link followed), as bytes; empty when it cannot be resolved.
    static func realPath(_ path: [UInt8]) -> [UInt8] {
        guard !path.contains(0) else { return [] }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let resolved = (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { realpath($0.baseAddress!, &buffer) }
        }
        guard resolved != nil else { return [] }
        return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    }
}
