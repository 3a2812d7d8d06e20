// ubiquityd — the daemon executable, and the Debian package's one binary (this file holds its
// entry point).
//
// Owns: choosing the command by the name the binary was run under: `ubiq` and `grocery` (the
//   package's links to it) run those CLIs (UbiqCommands, GroceryCommands), any other name the
//   daemon (UbiquityDaemonCommand: flags, --check-config, --version, handing over to UbiquityServer).
//   One binary carries the Swift runtime, FoundationEssentials and NIO once instead of three times.
// Must not: hold daemon or CLI logic: configuration, the server and the systemd glue live in
//   UbiquityServer, the commands in their libraries.
// Depends on: UbiquityServer, UbiqCommands, GroceryCommands, CommandLineSupport, swift-argument-parser.
import GroceryCommands
import UbiqCommands

@main
enum MultiCall {
    static func main() async {
        switch commandName(CommandLine.arguments.first ?? "") {
        case "ubiq": await UbiqCommandLine.main()
        case "grocery": await GroceryCommandLine.main()
        default: await UbiquityDaemonCommand.main()
        }
    }

    /// The last component of argv[0] (`/usr/bin/ubiq` → `ubiq`), cut on the byte `/`.
    static func commandName(_ argv0: String) -> String {
        let bytes = Array(argv0.utf8)
        let start = bytes.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        return String(decoding: bytes[start...], as: UTF8.self)
    }
}
