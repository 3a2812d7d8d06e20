import CommandLineSupport
import UbiquityProtocol

/// How a command that talks to the daemon ends (the statuses are ``CommandFailure``'s,
/// documented in `ubiq --help`).
enum DaemonFailure {
    /// Codes that mean the user's input was wrong rather than the daemon refusing it.
    static func isInputError(_ code: ProtocolError.Code) -> Bool {
        code.rawValue.hasPrefix("predicate.") || code == .sortInvalid || code == .attributeUnknown
            || code == .containerInvalid || code == .requestMalformed
    }

    /// Prints `ubiq: <message> [<code>]` (with a caret under a predicate error's offset) and
    /// returns the exit code to throw.
    static func exit(for error: any Error, predicate: String?) -> any Error {
        CommandFailure.exit(for: error, report: Terminal.error) { error in
            guard let error = error as? ProtocolError else { return nil }
            var text = "\(error.message) [\(error.code)]"
            if let predicate, error.code.rawValue.hasPrefix("predicate."),
               case .integer(let offset)? = error.details["offset"] {
                text += Terminal.caret(under: Int(offset), in: predicate)
            }
            return (text, isInputError(error.code))
        }
    }
}
