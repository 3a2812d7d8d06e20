/// Where the daemon reaches its sync engine's REST API: a Unix socket (Syncthing's GUI listens on
/// one when its address is a path) or a loopback TCP address. Another machine's address is
/// refused: the API key would travel in clear text. Pure.
public enum EngineAddress: Sendable, Hashable, CustomStringConvertible {
    case unixSocket(String)
    case loopback(ListenAddress)

    /// Reads `/path/rest.sock`, `unix:/path/rest.sock`, `127.0.0.1:8384`, `http://127.0.0.1:8384`
    /// or `[::1]:8384`; the reason it is refused otherwise.
    public static func parse(_ text: String) -> Result<EngineAddress, ListenAddressError> {
        var rest = Substring(text)
        if rest.hasPrefix("unix:") { rest = rest.dropFirst("unix:".count) }
        if rest.hasPrefix("/") {
            guard rest.utf8.count < 108 else {
                return .failure(.init("a Unix socket path is at most 107 bytes (the kernel's sun_path), found \(rest.utf8.count)"))
            }
            return .success(.unixSocket(String(rest)))
        }
        if rest.hasPrefix("https://") {
            return .failure(.init("TLS is not supported: let the engine listen on a Unix socket or on loopback without TLS"))
        }
        if rest.hasPrefix("http://") { rest = rest.dropFirst("http://".count) }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        switch ListenAddress.parse(String(rest)) {
        case .failure(let problem):
            return .failure(.init("expected a Unix socket path or HOST:PORT on loopback: \(problem.description)"))
        case .success(let address) where !address.isLoopback:
            return .failure(.init("\(address) is not a loopback address: the API key would cross the network in clear text; use 127.0.0.1, [::1] or a Unix socket"))
        case .success(let address) where address.port == 0:
            return .failure(.init("the port must not be 0"))
        case .success(let address):
            return .success(.loopback(address))
        }
    }

    public var description: String {
        switch self {
        case .unixSocket(let path): path
        case .loopback(let address): address.description
        }
    }
}
