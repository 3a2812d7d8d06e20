public struct TimedOut: Error, CustomStringConvertible {
    public var description: String
}
