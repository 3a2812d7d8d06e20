/// `ubiq` with this process's arguments, for the executables that are `ubiq`: its own, and
/// `ubiquityd` when it is run under the name `ubiq`.
public enum UbiqCommandLine {
    /// Parses `CommandLine.arguments` and runs the command; returns when it succeeded, exits with
    /// its status otherwise (swift-argument-parser's `main`).
    public static func main() async {
        await Ubiq.main()
    }
}
