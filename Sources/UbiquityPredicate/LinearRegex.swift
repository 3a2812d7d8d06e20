// TEMPORARY compile shim; replaced by the linear-time engine.
import Foundation
public struct LinearRegex: Sendable, Hashable {
    public let pattern: String
    public let caseInsensitive: Bool
    public let diacriticInsensitive: Bool
    public init(_ pattern: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) throws(LinearRegexError) {
        self.pattern = pattern; self.caseInsensitive = caseInsensitive; self.diacriticInsensitive = diacriticInsensitive
        if (try? NSRegularExpression(pattern: pattern)) == nil { throw LinearRegexError(offset: 0, message: "bad") }
    }
    public func matches(_ subject: String) -> Bool {
        let r = try! NSRegularExpression(pattern: "^(?:" + pattern + ")$", options: caseInsensitive ? [.caseInsensitive] : [])
        return r.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
    }
}
public struct LinearRegexError: Error, Sendable, Hashable, CustomStringConvertible {
    public let offset: Int
    public let message: String
    public var description: String { message }
}
