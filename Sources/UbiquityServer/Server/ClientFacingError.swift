public import UbiquityJSON

/// An error that may be shown to a client, and knows how: the one way onto the wire for errors.
///
/// Shaped like Hummingbird's `HTTPResponseError` (an error that renders its own response): a session
/// catches errors in one place, renders any `ClientFacingError` as
/// `{"code": clientCode, "message": clientMessage, ...clientDetails}`, and answers everything else
/// with `internal` and a fixed sentence, keeping the details for the daemon's journal. So an error
/// type opts in to being seen by clients; nothing reaches the wire by accident.
///
/// The requirements are prefixed `client` because several conforming types already have a `code`
/// or `message` meant for other readers (a predicate error's `message` lacks its position).
public protocol ClientFacingError: Error, Sendable {
    /// The stable, documented wire string clients switch on, e.g. `predicate.syntax`.
    var clientCode: String { get }
    /// The sentence for people.
    var clientMessage: String { get }
    /// Structured context (`offset`, `field`, `limit`...) merged into the error object.
    var clientDetails: [String: JSONValue] { get }
    /// Whether the refusal tells of the daemon's own trouble (its file watcher behind), not of the
    /// request: the journal gets it as a warning with its sentence, where an operator looks.
    var isDaemonTrouble: Bool { get }
}

extension ClientFacingError {
    public var clientDetails: [String: JSONValue] { [:] }
    public var isDaemonTrouble: Bool { false }
}
