/// A test helper's failure, said in words (the daemon's log is often part of it).
public struct TestDaemonError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
