/// A count and its noun, singular for exactly one: `counted(1, "item")` is "1 item",
/// `counted(3, "live query", "live queries")` is "3 live queries". The one place the commands
/// spell a count in words.
public func counted(_ n: some BinaryInteger, _ word: String, _ many: String? = nil) -> String {
    "\(n) \(n == 1 ? word : many ?? word + "s")"
}
