import CommandLineSupport
import Foundation
import Testing
import UbiquityTesting

/// Options that apply to every subcommand work before its name too, like `git -C` or `docker -H`.
@Suite(.ownThreads) struct GlobalOptionsTests {
    let options = GlobalOptions(valued: ["--socket", "--container"], flags: ["--json"])

    @Test func leadingGlobalOptionsMoveAfterTheSubcommand() {
        #expect(options.hoisted(["--socket", "/s", "--json", "query", "x"]) == ["query", "--socket", "/s", "--json", "x"])
        #expect(options.hoisted(["--socket=/s", "status"]) == ["status", "--socket=/s"])
        #expect(options.hoisted(["query", "--socket", "/s", "x"]) == ["query", "--socket", "/s", "x"])
    }

    @Test func groupedCommandsTakeTheOptionsAfterTheGroupedName() {
        let grouped = GlobalOptions(valued: ["--socket"], flags: ["--json"], groups: ["kv"])
        #expect(grouped.hoisted(["--socket", "/s", "kv", "get", "k"]) == ["kv", "get", "--socket", "/s", "k"])
        #expect(grouped.hoisted(["--json", "kv", "--help"]) == ["kv", "--json", "--help"])
        #expect(grouped.hoisted(["--json", "status"]) == ["status", "--json"])
    }

    @Test func anythingElseFirstIsLeftForTheParserToReport() {
        #expect(options.hoisted(["--help"]) == ["--help"])
        #expect(options.hoisted(["--bogus", "query"]) == ["--bogus", "query"])
        #expect(options.hoisted(["--socket"]) == ["--socket"])              // a value is missing
        #expect(options.hoisted(["--json"]) == ["--json"])                  // no subcommand follows
    }

    @Test func ubiqTakesSocketAndJSONBeforeTheSubcommand() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        try daemon.place("Item_1", contents: "milk")
        let before = try ubiq.run(["--socket", daemon.socket, "--json", "query", "name == 'Item_1'"])
        let after = try ubiq.run(["query", "name == 'Item_1'", "--socket", daemon.socket, "--json"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout == after.stdout)
        #expect(before.stdout.contains(#""kMDItemFSName":"Item_1""#))
        // Given both before and after, the one after the subcommand wins.
        let both = try ubiq.run(["--socket", "/nonexistent/s.sock", "status", "--socket", daemon.socket])
        #expect(both.status == 0, "\(both.stderr)")
    }
}
