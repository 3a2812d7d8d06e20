// CommandLineSupport — what `ubiq` and `grocery` share around swift-argument-parser.
//
// Owns: rewriting the command line so options that apply to every subcommand may come first;
//   the options naming the daemon (`--socket`, `--timeout`: DaemonOptions) and the exit status
//   each failure ends a command with (CommandFailure), local times as both print them
//   (LocalTime), one copy for both tools;
//   writing to standard output and error so that a reader going away ends the tool quietly;
//   the allocator's set-up for reading big answers.
// Must not: parse commands, lay out output (tables, colour) or talk to the daemon.
// Depends on: Glibc, CUbiquitySystem (mallopt), swift-argument-parser, UbiquityKit (the default
//   socket and timeout, UbiquityKitError).

/// Options that apply to every subcommand, accepted before the subcommand's name as well as
/// after it, as with `git -C DIR status`, `systemctl --user start`, `docker -H HOST ps`.
///
/// swift-argument-parser gives each subcommand its own options and no way to read a parent's,
/// so the command line is rewritten before parsing: global options found before the first
/// subcommand name move to just after it.
///
/// ```
/// ubiq --socket /tmp/s.sock --json query "name LIKE 'Item_*'"
///   →  ubiq query --socket /tmp/s.sock --json "name LIKE 'Item_*'"
/// ```
///
/// An option given both before and after the subcommand appears twice after the rewrite; as
/// usual for these tools, the last value of a single-valued option wins and a repeatable one
/// (`--container`) collects both.
public struct GlobalOptions: Sendable {
    /// Options followed by a value (`--socket PATH` or `--socket=PATH`).
    public let valued: Set<String>
    /// Options that stand alone (`--json`).
    public let flags: Set<String>
    /// Subcommands that only group others (`ubiq kv get`): the options move after the grouped
    /// command's name, the one that takes them.
    public let groups: Set<String>

    public init(valued: Set<String>, flags: Set<String>, groups: Set<String> = []) {
        self.valued = valued
        self.flags = flags
        self.groups = groups
    }

    /// `arguments` (without the program name) with leading global options moved after the
    /// first subcommand name; unchanged when anything else comes first (`--help`, a typo) or no
    /// subcommand follows, so the parser reports it as it would have.
    public func hoisted(_ arguments: [String]) -> [String] {
        var moved: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex, arguments[index].hasPrefix("-") {
            let token = arguments[index]
            let name = token.split(separator: "=", maxSplits: 1).first.map(String.init) ?? token
            if flags.contains(token) {
                moved.append(token)
                index += 1
            } else if valued.contains(name) {
                if token.contains("=") {
                    moved.append(token)
                    index += 1
                } else {
                    guard index + 1 < arguments.endIndex else { return arguments }
                    moved += [token, arguments[index + 1]]
                    index += 2
                }
            } else {
                return arguments
            }
        }
        guard !moved.isEmpty, index < arguments.endIndex else { return arguments }
        if groups.contains(arguments[index]), index + 1 < arguments.endIndex, !arguments[index + 1].hasPrefix("-") {
            return [arguments[index], arguments[index + 1]] + moved + arguments[(index + 2)...]
        }
        return [arguments[index]] + moved + arguments[(index + 1)...]
    }
}
