import Foundation
import Glibc

/// Syncthing's REST API over the Unix socket its GUI listens on: reachable from outside the
/// private network namespace the instance runs in, and from nowhere else.
public struct SyncthingREST: Sendable {
    public let socket: String
    public let apiKey: String

    public init(socket: String, apiKey: String) {
        self.socket = socket
        self.apiKey = apiKey
    }

    /// `GET`s (or `POST`s, `PATCH`es with a JSON `body`) `path` and returns the decoded JSON body
    /// (nil for an empty body).
    ///
    /// - Throws: ``TestDaemonError`` when the socket cannot be reached or the status is not 2xx.
    @discardableResult
    public func call(_ method: String = "GET", _ path: String, json body: String = "", timeout seconds: Double = 30) throws -> Any? {
        OwnThreads.checkMayBlock("a Syncthing REST call")
        let fd = try UnixSocket.connected(to: socket)
        defer { close(fd) }
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = "\(method) \(path) HTTP/1.0\r\nHost: syncthing\r\nX-API-Key: \(apiKey)\r\n"
            + (body.isEmpty ? "" : "Content-Type: application/json\r\n") + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        let sent = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.utf8.count else { throw TestDaemonError("send to \(socket) failed") }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n > 0 { response += chunk[..<n]; continue }
            if n == 0 { break }
            if errno == EINTR { continue }
            throw TestDaemonError("\(method) \(path): no answer within \(seconds) s")
        }
        guard let split = response.firstRange(of: Array("\r\n\r\n".utf8)) else { throw TestDaemonError("\(method) \(path): no HTTP answer") }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self)
        let body = Data(response[split.upperBound...])
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        guard (200..<300).contains(status) else {
            throw TestDaemonError("\(method) \(path): \(head.split(separator: "\r\n").first ?? "") \(String(decoding: body, as: UTF8.self))")
        }
        return body.isEmpty ? nil : try JSONSerialization.jsonObject(with: body)
    }

    /// Waits until the instance reports an event of `types` (comma-separated, e.g.
    /// `DeviceConnected,StateChanged`) newer than `since`, or `seconds` pass: Syncthing's own long
    /// poll (`/rest/events`). - Returns: the newest event id seen (`since` when none came). While the
    /// instance does not answer yet, waits for its REST socket to change, a second at most.
    public func nextEvent(of types: String, since: Int, within seconds: Double) -> Int {
        let wait = max(1, Int(seconds.rounded(.up)))
        do {
            let events = try call("GET", "/rest/events?since=\(since)&timeout=\(wait)&events=\(types)", timeout: Double(wait) + 5) as? [[String: Any]]
            return events?.compactMap { $0["id"] as? Int }.max() ?? since
        } catch {
            let directory = URL(fileURLWithPath: socket).deletingLastPathComponent().path
            (try? FileEvents(watching: directory, mask: UInt32(IN_CREATE | IN_ATTRIB)))?.wait(within: min(1, seconds))
            return since
        }
    }
}
