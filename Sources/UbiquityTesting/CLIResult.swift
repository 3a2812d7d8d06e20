import Foundation

/// What a user sees after running a built executable: its exit status and everything it printed.
public struct CLIResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}
