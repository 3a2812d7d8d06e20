import ArgumentParser
import UbiquityKit

/// The exit statuses both tools document (`--help`, docs/cli.md, docs/grocery.md), and the one
/// mapping from a failure to its status and its message.
public enum CommandFailure {
    /// The daemon refused, or anything else went wrong.
    public static let failed: Int32 = 1
    /// The user's input was wrong (a bad predicate, an unknown item...).
    public static let invalidInput: Int32 = 2
    /// The daemon could not be reached.
    public static let unreachable: Int32 = 3

    /// Reports `error` through `report` and returns the exit code to throw. An `ExitCode` passes
    /// through unreported; a ``UbiquityKitError`` is unreachable or failed; `describe` gives the
    /// tool's own errors their message and whether they are the user's input error; anything else
    /// is reported as it describes itself, with ``failed``.
    public static func exit(for error: any Error, report: (String) -> Void,
                            describe: (any Error) -> (message: String, isInputError: Bool)?) -> any Error {
        switch error {
        case let error as ExitCode:
            return error
        case let error as UbiquityKitError:
            report(error.description)
            return ExitCode(error.isUnreachable ? unreachable : failed)
        default:
            guard let (message, isInputError) = describe(error) else {
                report("\(error)")
                return ExitCode(failed)
            }
            report(message)
            return ExitCode(isInputError ? invalidInput : failed)
        }
    }
}
