/// Why a request to the sync engine got no answer.
enum EngineHTTPError: Error, Sendable {
    case unreachable(String)
    case timedOut(String)

    var reason: String {
        switch self {
        case .unreachable(let reason), .timedOut(let reason): reason
        }
    }
}
