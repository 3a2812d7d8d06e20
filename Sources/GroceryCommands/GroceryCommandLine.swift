/// `grocery` with this process's arguments, for the executables that are `grocery`: its own, and
/// `ubiquityd` when it is run under the name `grocery`.
public enum GroceryCommandLine {
    /// Parses `CommandLine.arguments` and runs the command; returns when it succeeded, exits with
    /// its status otherwise (swift-argument-parser's `main`).
    public static func main() async {
        await Grocery.main()
    }
}
