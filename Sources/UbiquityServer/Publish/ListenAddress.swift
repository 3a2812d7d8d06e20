/// Where the publish listener binds: an IP literal and a port, as `listen` in `[publish]` spells it
/// (`127.0.0.1:8080`, `[::1]:8080`; port 0: any free port). Host names are refused: binding must
/// not depend on name resolution. Pure.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The IP literal, without brackets.
    public var host: String
    public var port: Int
    public var isIPv6: Bool { host.contains(":") }

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; the reason it is refused otherwise.
    public static func parse(_ text: String) -> Result<ListenAddress, ListenAddressError> {
        let host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(.init("an IPv6 address is written in brackets with a port: '[::1]:8080'"))
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard isIPv6(host) else { return .failure(.init("'\(host)' is not an IPv6 address")) }
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                return .failure(.init("expected HOST:PORT such as '127.0.0.1:8080', found '\(text)'"))
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard isIPv4(host) else {
                return .failure(.init("'\(host)' is not an IPv4 address (host names are not resolved; write an address such as 127.0.0.1, or [::1] for IPv6)"))
            }
        }
        guard !portText.isEmpty, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), portText.count <= 5,
              let port = Int(portText), port <= 65_535 else {
            return .failure(.init("the port must be a number from 0 to 65535 (0: any free port), found '\(portText)'"))
        }
        return .success(ListenAddress(host: String(host), port: port))
    }

    /// Whether only this machine can connect: 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        if isIPv6 { return Self.expandedIPv6(host) == [0, 0, 0, 0, 0, 0, 0, 1] }
        return host.split(separator: ".").first == "127"
    }

    /// As a URL's authority names it: `127.0.0.1:8080`, `[::1]:8080`; a wildcard address (`0.0.0.0`,
    /// `::`) is named by the loopback address of its family.
    public func authority(port: Int) -> String {
        if isIPv6 { return "[\(Self.expandedIPv6(host) == Array(repeating: 0, count: 8) ? "::1" : host)]:\(port)" }
        return "\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
    }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
                && (Int(part).map { $0 <= 255 } ?? false) && (part.count == 1 || part.first != "0")
        }
    }

    static func isIPv6(_ text: Substring) -> Bool { expandedIPv6(String(text)) != nil }

    /// The eight groups of an IPv6 literal (no zone, no embedded IPv4), or nil.
    static func expandedIPv6(_ text: String) -> [UInt16]? {
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var out: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                out.append(value)
            }
            return out
        }
        let halves = text.components(separatedBy: "::")
        switch halves.count {
        case 1:
            guard let all = groups(Substring(text)), all.count == 8 else { return nil }
            return all
        case 2:
            guard let head = groups(Substring(halves[0])), let tail = groups(Substring(halves[1])), head.count + tail.count < 8 else { return nil }
            return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return nil
        }
    }
}

/// Why a `listen` value was refused, in a sentence.
public struct ListenAddressError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
