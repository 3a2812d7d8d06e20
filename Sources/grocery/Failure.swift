import ArgumentParser
import Foundation
import GroceryStore
import UbiquityKit

/// The exit statuses (documented in `grocery --help` and docs/grocery.md).
enum Failure {
    static let failed: Int32 = 1
    static let invalidInput: Int32 = 2
    static let unreachable: Int32 = 3

    /// Prints `grocery: <message>` and returns the exit code to throw.
    static func exit(for error: any Error) -> any Error {
        switch error {
        case let error as ExitCode:
            return error
        case let error as GroceryError:
            Output.error(error.description)
            return ExitCode(error.isInputError ? invalidInput : failed)
        case let error as UbiquityKitError:
            Output.error(error.description)
            return ExitCode(error.isUnreachable ? unreachable : failed)
        default:
            // The daemon's refusals (ProtocolError: an unknown container...) describe themselves with their code.
            Output.error("\(error)")
            return ExitCode(failed)
        }
    }
}
