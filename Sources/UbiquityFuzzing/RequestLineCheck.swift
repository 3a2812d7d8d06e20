import UbiquityJSON
import UbiquityProtocol

/// A line from the socket, read as the daemon reads it (JSON text, then a request).
///
/// - A line that is JSON is written back and read again to the same value — numbers the same as
///   doubles: the reader makes every whole number that fits 64 bits an integer, so a whole double
///   (`2.0`, `1.4444444444444445e+17`) comes back as an integer of the same double value.
/// - A refused request names the id whenever the line's id was a valid one, so the client learns
///   which request failed.
/// - A request that is read is written back (``Request/json``) and read again to the same request.
public enum RequestLineCheck: FuzzCheck {
    public static let name = "request-line"

    public static func accepts(_ bytes: [UInt8]) -> Bool {
        guard let json = try? JSONLine.decode(bytes) else { return false }
        return (try? Request(json: json)) != nil
    }

    public static func check(_ bytes: [UInt8]) -> String? {
        guard let json = try? JSONLine.decode(bytes) else { return nil }
        let again: JSONValue
        do { again = try JSONLine.decode(Array(JSONLine.encode(json).utf8)) } catch {
            return "the JSON written back does not read again: \(error)"
        }
        guard same(again, json) else { return "the JSON written back reads as another value" }
        let request: Request
        do throws(PartialRequestError) { request = try Request(json: json) } catch {
            if case .object(let object) = json, let raw = object["id"], let id = RequestID(json: raw), error.id != id {
                return "a refused request lost its id \(id): \(error.error)"
            }
            return nil
        }
        do throws(PartialRequestError) {
            guard try Request(json: request.json) == request else { return "the request written back reads as another request" }
        } catch {
            return "the request written back is refused: \(error.error)"
        }
        return nil
    }

    /// Equal JSON values, a number equal to a number of the same double value.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .double(let y)), (.double(let y), .integer(let x)): return Double(x) == y
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        default: return a == b
        }
    }
}
