import CommandLineSupport
import GroceryStore

/// How a failed command ends (the statuses are ``CommandFailure``'s, documented in
/// `grocery --help` and docs/grocery.md).
enum Failure {
    /// Prints `grocery: <message>` and returns the exit code to throw. The daemon's refusals
    /// (ProtocolError: an unknown container...) describe themselves with their code.
    static func exit(for error: any Error) -> any Error {
        CommandFailure.exit(for: error, report: Output.error) { error in
            (error as? GroceryError).map { ($0.description, $0.isInputError) }
        }
    }
}
