import ArgumentParser
import Foundation
import UbiquityKit
import UbiquityPredicate
import UbiquityProtocol

/// The exit statuses of commands that talk to the daemon (documented in `ubiq --help`).
enum DaemonFailure {
    static let daemonError: Int32 = 1
    static let invalidInput: Int32 = 2
    static let unreachable: Int32 = 3

    /// Codes that mean the user's input was wrong rather than the daemon refusing it.
    static func isInputError(_ code: ProtocolError.Code) -> Bool {
        code.rawValue.hasPrefix("predicate.") || code == .sortInvalid || code == .attributeUnknown
            || code == .containerInvalid || code == .requestMalformed
    }

    /// Prints `ubiq: <message> [<code>]` (with a caret under a predicate error's offset) and
    /// returns the exit code to throw.
    static func exit(for error: any Error, predicate: String?) -> any Error {
        switch error {
        case let error as ExitCode:
            return error
        case let error as UbiquityKitError:
            Terminal.error(error.description)
            return ExitCode(error.isUnreachable ? unreachable : daemonError)
        case let error as ProtocolError:
            var text = "\(error.message) [\(error.code)]"
            if let predicate, error.code.rawValue.hasPrefix("predicate."),
               case .integer(let offset)? = error.details["offset"] {
                text += Terminal.caret(under: Int(offset), in: predicate)
            }
            Terminal.error(text)
            return ExitCode(isInputError(error.code) ? invalidInput : daemonError)
        default:
            Terminal.error("\(error)")
            return ExitCode(daemonError)
        }
    }
}
