import ArgumentParser
import FoundationEssentials
import Glibc
import UbiquityKit
import UbiquityPredicate
import UbiquityProtocol

/// `ubiq publish`: share a copy of a file through a link that expires (`item.publish`), list
/// your links (`item.published`), revoke one (`item.unpublish`).
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Share a copy of a file through a link that expires; list or revoke your links.",
        usage: """
            ubiq publish [--expires <when>] [<options>] <path>
            ubiq publish --list [<options>]
            ubiq publish --revoke <token> [<options>]
            """,
        discussion: """
            The daemon copies the file as it is now and serves the copy at the printed link \
            until it expires; later changes of the file do not reach it. Anyone who has the link \
            can fetch the copy, so send it only to whom it is for. Only a regular file you may \
            read can be published. The daemon's HTTP listener must be turned on ([publish] in its \
            configuration); otherwise the daemon refuses with publish.disabled.

            Examples:
              $ ubiq publish Documents/Item_1
              http://127.0.0.1:8080/p/Zq8vB2bWmRk0v1yH0sQm3c6p5tE-LxJa
              $ ubiq publish --expires 2h Documents/Item_1
              $ ubiq publish --expires 2026-12-01T12:00:00Z Documents/Item_1
              $ ubiq publish --list
              $ ubiq publish --revoke Zq8vB2bWmRk0v1yH0sQm3c6p5tE-LxJa

            --expires takes seconds (3600) or a number with s, m, h or d (90m, 7d), or an \
            ISO-8601 date; the default is the daemon's (1 day unless configured). With --json, \
            the daemon's answer: one object per link and line for --list.

            Exit status: 0 success, 1 the daemon refused, 3 daemon not running, 64 usage error.
            """
    )

    @Argument(help: "The file to publish (relative to the current directory or absolute).")
    var path: String?

    @Option(name: .long, help: ArgumentHelp("How long the link works: a duration (3600, 90m, 7d) or an ISO-8601 date.",
                                            valueName: "when"))
    var expires: String?

    @Flag(help: "List your links that have not expired.")
    var list = false

    /// Unconditional: a token is base64url, so one in 64 begins with `-` and must still be taken
    /// as the value rather than as an option.
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Revoke the link with this token: it stops working at once.", valueName: "token"))
    var revoke: String?

    @OptionGroup var output: AnswerOptions

    func validate() throws {
        let modes = [path != nil, list, revoke != nil].filter { $0 }.count
        guard modes == 1 else { throw ValidationError("give exactly one of a path to publish, --list or --revoke TOKEN") }
        if expires != nil && path == nil { throw ValidationError("--expires goes with a path to publish") }
        // Taken unconditionally (a token may begin with "-"), so another option after --revoke
        // would be taken for the token: anything but a token's form is a usage error here.
        if let revoke, !PublishTokenFormat.isWellFormed(revoke) {
            throw ValidationError("--revoke takes a link's token: the \(PublishTokenFormat.characters) characters after /p/ in its URL (letters, digits, - and _); found '\(revoke)'")
        }
        if let expires, ExpiryText.parse(expires) == nil {
            throw ValidationError("--expires must be seconds (3600), a number with s, m, h or d (90m, 7d), or an ISO-8601 date such as 2026-12-01T12:00:00Z; found '\(expires)'")
        }
    }

    func run() async throws {
        if let token = revoke {
            try await output.answer({ try await $0.send(ItemUnpublish(token: token)) }, lines: { [$0.json] }) { "revoked \($0.token)" }
        } else if list {
            try await output.answer({ try await $0.send(ItemPublished()).items }, lines: { $0.map(\.json) }) { items in
                guard !items.isEmpty else {
                    Terminal.error("no published links")
                    return nil
                }
                return Terminal.table(header: ["URL", "EXPIRES", "SIZE", "PATH"], rows: items.map {
                    [$0.url, Terminal.shortDate(Date(timeIntervalSince1970: $0.expires)), String($0.size), $0.path]
                })
            }
        } else if let path {
            let operation = ItemPublish(path: Self.absolute(path), expires: expires.flatMap(ExpiryText.parse))
            try await output.answer({ try await $0.send(operation) }, lines: { [$0.json] }) { $0.url }
        }
    }

    /// `path` made absolute against the current directory (the daemon takes absolute paths);
    /// links are not resolved here: the daemon refuses them.
    static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (directory == "/" ? "" : directory) + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }
}
