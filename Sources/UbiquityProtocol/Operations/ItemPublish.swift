public import UbiquityJSON
import UbiquityPredicate

/// `item.publish`: a snapshot of a regular file, served at a URL with an unguessable token until
/// an expiry (`NSFileManager`'s `URLForPublishingUbiquitousItemAtURL:expirationDate:`).
public struct ItemPublish: ProtocolOperation {
    public typealias Result = PublishedItem
    public static let name = "item.publish"

    /// When the URL stops serving.
    public enum Expiry: Sendable, Hashable {
        /// This many seconds after the publish (an integer on the wire).
        case after(seconds: Int)
        /// At this date (seconds since 1970; an ISO-8601 string on the wire).
        case at(Double)
    }

    public var path: String
    /// nil: the daemon's default (`default_expiry_s`).
    public var expires: Expiry?

    public init(path: String, expires: Expiry? = nil) {
        self.path = path
        self.expires = expires
    }

    public init(_ request: FieldReader) throws(ProtocolError) {
        path = try request.string("path")
        guard request.has("expires") else { expires = nil; return }
        switch try request.value("expires") {
        case .integer(let seconds):
            guard let whole = Int(exactly: seconds) else { throw .malformed("field 'expires' is out of range", field: "expires") }
            expires = .after(seconds: whole)
        case .string(let text):
            guard case .date(let date) = try? Value(json: .string(text), for: .contentChangeDate) else {
                throw .malformed("field 'expires' must be a number of seconds or an ISO-8601 date such as \"2026-12-01T12:00:00Z\", found '\(text)'",
                                 field: "expires")
            }
            expires = .at(date)
        case let other:
            throw .malformed("field 'expires' must be a number of seconds or an ISO-8601 date, found \(other.kindNoun)", field: "expires")
        }
    }

    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = ["path": .string(path)]
        switch expires {
        case .after(let seconds)?: fields["expires"] = .integer(Int64(seconds))
        case .at(let date)?: fields["expires"] = Value.date(date).json
        case nil: break
        }
        return fields
    }
}
