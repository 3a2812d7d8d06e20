import Foundation
import Glibc

/// A stand-in for the daemon on a Unix socket: it accepts one connection, answers its n-th
/// request line with the n-th reply exactly as given (a reply may be several lines, or stop in
/// the middle of one), and closes after the last — for a client facing a daemon that goes away.
public final class ScriptedServer: Sendable {
    /// The socket's path, in a directory of its own.
    public let path: String
    private let directory: String
    private let listener: Int32

    /// Listens at once; the connection is served on a thread of its own.
    public init(replies: [String]) throws {
        var template = Array("/tmp/ubqs-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp: \(String(cString: strerror(errno)))") }
        directory = String(cString: made)
        path = directory + "/scripted.sock"
        listener = try UnixSocket.bound(to: path, listening: true)
        let listener = listener
        Thread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var answered = 0, byte: UInt8 = 0
            while answered < replies.count, read(connection, &byte, 1) == 1 {
                guard byte == UInt8(ascii: "\n") else { continue }
                _ = replies[answered].utf8CString.withUnsafeBufferPointer { write(connection, $0.baseAddress, $0.count - 1) }
                answered += 1
            }
        }.start()
    }

    /// The answer to `hello` of a daemon with default limits.
    public static let hello = #"{"id":1,"result":{"limits":{"defaultBatchingInterval":0.05,"maxAttributes":64,"maxConnections":256,"maxLineBytes":1048576,"maxQueriesPerConnection":64,"maxQueriesPerPeer":1024,"maxResultItemsPerPeer":4000000,"maxSortKeys":8,"pendingItemsPerQuery":10000},"peer":{"gid":0,"uid":0},"protocol":1,"server":"ubiquityd","version":"test"}}"# + "\n"

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))    // wakes an accept still waiting: nobody came
        close(listener)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
