public import UbiquityErrors

/// The codes of ``ProtocolError``: the protocol layer's own, each spelled once below, and any
/// other layer's code as it crosses the wire (a client keeps a code it does not know, so this
/// is a struct around the string rather than a closed enum).
public struct ProtocolErrorCode: StableErrorCode {
    /// The documented wire string, e.g. `container.forbidden`.
    public let rawValue: String

    /// Any code, including one received from a newer server that this client does not know.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The code of another layer's error, as it crosses the wire.
    public init(_ code: some StableErrorCode) { self.init(rawValue: code.rawValue) }

    /// A line that is not a JSON object, not UTF-8, or a field missing or of the wrong type.
    public static let requestMalformed = Self(rawValue: "request.malformed")
    /// A line longer than ``ServerLimits/maxLineBytes``; the connection is closed after it.
    public static let requestTooLarge = Self(rawValue: "request.tooLarge")
    /// An `op` the server does not know.
    public static let requestUnknownOperation = Self(rawValue: "request.unknownOperation")
    /// A request other than `hello` before `hello`.
    public static let helloRequired = Self(rawValue: "request.helloRequired")
    /// `hello` named a protocol version the server does not speak.
    public static let protocolVersion = Self(rawValue: "protocol.unsupportedVersion")
    /// A sort key that is not an attribute, or not `KEY` / `KEY:asc` / `KEY:desc`.
    public static let sortInvalid = Self(rawValue: "query.invalidSort")
    /// An entry of `attributes` that is not an attribute name.
    public static let attributeUnknown = Self(rawValue: "query.unknownAttribute")
    /// A container id that is not reverse-DNS or could escape the root.
    public static let containerInvalid = Self(rawValue: "container.invalid")
    /// The peer may not read this container (SO_PEERCRED uid/gid).
    public static let containerForbidden = Self(rawValue: "container.forbidden")
    /// The container is configured but its directory is missing or unreadable.
    public static let containerUnavailable = Self(rawValue: "container.unavailable")
    /// A limit on connections or queries was reached.
    public static let serverBusy = Self(rawValue: "server.busy")
    /// The daemon is stopping.
    public static let serverShuttingDown = Self(rawValue: "server.shuttingDown")
    /// Anything unexpected; the details are in the daemon's log.
    public static let `internal` = Self(rawValue: "internal")

    /// The codes the protocol layer itself raises. Other layers' codes (`predicate.*`, the
    /// engine's) are declared by their own error types; the server's registry lists them all.
    public static let allCases: [ProtocolErrorCode] = [
        .requestMalformed, .requestTooLarge, .requestUnknownOperation, .helloRequired, .protocolVersion,
        .sortInvalid, .attributeUnknown, .containerInvalid, .containerForbidden, .containerUnavailable,
        .serverBusy, .serverShuttingDown, .internal,
    ]

    /// ``allCases``, by the name the server's registry of codes reads.
    public static var protocolCodes: [ProtocolErrorCode] { allCases }
}
