import Foundation
import Glibc

/// A tiny HTTP/1.1 client over a real TCP socket, for the publish listener's tests (the
/// toolchain's FoundationEssentials has no URLSession): one request, `Connection: close`, the
/// whole answer read with a deadline. Blocking: call it from an `.ownThreads` suite.
public enum HTTPProbe {
    public struct Answer: Sendable {
        public var status: Int
        /// Header names in lower case; a repeated header keeps its last value.
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// `method` of `url` (`http://127.0.0.1:PORT/path`).
    public static func request(_ url: String, method: String = "GET", extraHeaders: [String] = [],
                               within seconds: Double = 10) throws -> Answer {
        // A URL is ASCII: its bytes are split, never its characters.
        let urlBytes = Array(url.utf8)
        guard url.hasPrefix("http://"), let slash = urlBytes.dropFirst(7).firstIndex(of: UInt8(ascii: "/")) else {
            throw TestDaemonError("not an http URL: \(url)")
        }
        let authority = String(decoding: urlBytes[7..<slash], as: UTF8.self), target = String(decoding: urlBytes[slash...], as: UTF8.self)
        guard let colon = authority.lastIndex(of: ":"), let port = UInt16(authority[authority.index(after: colon)...]) else {
            throw TestDaemonError("no port in \(url)")
        }
        let host = String(authority[..<colon])
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n"
        for header in extraHeaders { head += header + "\r\n" }
        let bytes = try exchange(host: host, port: port, Array((head + "\r\n").utf8), within: seconds)
        return try parse(bytes, hasBody: method != "HEAD")
    }

    /// Sends `request` as it is and returns every byte answered until the server closes.
    public static func exchange(host: String, port: UInt16, _ request: [UInt8], within seconds: Double = 10) throws -> [UInt8] {
        OwnThreads.checkMayBlock("HTTPProbe.exchange")
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestDaemonError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(seconds.truncatingRemainder(dividingBy: 1) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw TestDaemonError("not an IPv4 address: \(host)") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestDaemonError("connect to \(host):\(port): \(String(cString: strerror(errno)))") }
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestDaemonError("send: \(String(cString: strerror(errno)))") }
            sent += n
        }
        let deadline = Date().addingTimeInterval(seconds)
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n == 0 { return answer }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { return answer }
                throw TestDaemonError("no end of the answer within \(seconds) s (\(String(cString: strerror(errno)))); got \(answer.count) bytes")
            }
            answer += buffer[..<n]
            guard Date() < deadline else { throw TestDaemonError("the answer did not end within \(seconds) s") }
        }
    }

    /// One response: the status line, the headers, and the body (up to `Content-Length`).
    public static func parse(_ bytes: [UInt8], hasBody: Bool = true) throws -> Answer {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0...max(0, bytes.count - 4)).first(where: { bytes.count >= 4 && Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw TestDaemonError("no complete HTTP head in \(String(decoding: bytes, as: UTF8.self))")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw TestDaemonError("not an HTTP status line: \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if !hasBody { body = [] } else if let length = headers["content-length"].flatMap(Int.init), length <= body.count { body = Array(body.prefix(length)) }
        return Answer(status: status, headers: headers, body: body)
    }
}
