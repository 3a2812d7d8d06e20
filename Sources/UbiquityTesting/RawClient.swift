import Foundation
import Glibc
public import UbiquityJSON
import UbiquityProtocol

/// A bare JSON-lines client on a blocking Unix socket: exactly what `socat` or a Python script
/// would do, so tests see the wire bytes. Every read has a deadline, so a missing line fails
/// the test instead of hanging it.
public final class RawClient {
    public let fd: Int32
    private var buffer: [UInt8] = []
    /// How much of `buffer` is known to hold no newline: a line of megabytes is looked through
    /// once, not again with every read.
    private var scanned = 0

    public init(socket path: String) throws {
        fd = try RawClient.connect(path)
    }

    deinit { close(fd) }

    /// A client connected to `path` that has said `hello`.
    public static func greeted(socket path: String) throws -> RawClient {
        let client = try RawClient(socket: path)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        return client
    }

    /// The `result` of the request `line`; throws, naming the whole response, when it is an error.
    public func result(_ line: String, within seconds: Double = 10) throws -> JSONValue {
        let response = try request(line, within: seconds).response
        guard let result = response["result"] else { throw TestDaemonError("no result for \(line): \(JSONLine.encode(response))") }
        return result
    }

    /// A connected `AF_UNIX` stream socket.
    public static func connect(_ path: String) throws -> Int32 { try UnixSocket.connected(to: path) }

    /// Sends raw bytes as they are (no newline added).
    public func sendBytes(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw TestDaemonError("send: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// Sends one line (`\n` appended).
    public func send(_ line: String) throws { try sendBytes(Array((line + "\n").utf8)) }

    /// Sends a request and returns its response, skipping (and returning in `events`) any events before it.
    public func request(_ line: String, within seconds: Double = 10) throws -> (response: JSONValue, events: [JSONValue]) {
        try send(line)
        var events: [JSONValue] = []
        while true {
            let message = try readJSON(within: seconds)
            if case .object(let o) = message, o["event"] == nil { return (message, events) }
            events.append(message)
        }
    }

    /// The next line as JSON, within `seconds`.
    public func readJSON(within seconds: Double = 10) throws -> JSONValue {
        guard let line = try readLine(within: seconds) else { throw TestDaemonError("the connection closed") }
        return try JSONLine.decode(Array(line.utf8))
    }

    /// The next line (without `\n`), nil at end of stream; throws when nothing comes within `seconds`.
    public func readLine(within seconds: Double = 10) throws -> String? {
        OwnThreads.checkMayBlock("RawClient.readLine")
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                scanned = 0
                return line
            }
            scanned = buffer.count
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw TestDaemonError("no line within \(seconds) s (have \(buffer.count) bytes)") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000))
            if ready < 0 && errno != EINTR { throw TestDaemonError("poll: \(String(cString: strerror(errno)))") }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 { return buffer.isEmpty ? nil : { defer { buffer.removeAll(); scanned = 0 }; return String(decoding: buffer, as: UTF8.self) }() }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { return nil }
                throw TestDaemonError("recv: \(String(cString: strerror(errno)))")
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// True when the peer closed the connection within `seconds` (reads until EOF, dropping lines).
    public func waitForClose(within seconds: Double = 10) -> Bool {
        OwnThreads.checkMayBlock("RawClient.waitForClose")
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            do {
                if try readLine(within: max(0.01, deadline.timeIntervalSinceNow)) == nil { return true }
            } catch { return false }
        }
        return false
    }

    /// Half-closes the write side (what `socat` does at the end of its input).
    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }
}

extension JSONValue {
    /// `value["result"]["query"]` style access for tests; nil when absent or not an object.
    public subscript(_ key: String) -> JSONValue? {
        guard case .object(let o) = self else { return nil }
        return o[key]
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var intValue: Int? { if case .integer(let i) = self { Int(i) } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
}
