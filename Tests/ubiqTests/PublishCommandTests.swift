import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityTesting

/// `ubiq publish` against the real daemon with its publish listener on loopback; the link is
/// fetched over a real TCP socket.
@Suite(.ownThreads) struct PublishCommandTests {
    @Test func publishListFetchRevoke() async throws {
        try await withDaemon(arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"], prepare: { root in
            try Data("Milk".utf8).write(to: URL(fileURLWithPath: root + "/com.example.grocery/Documents/Item_1"))
            try "[[roots]]\npath = \"\(root)\"\n[publish]\nlisten = \"127.0.0.1:0\"\n"
                .write(toFile: (root as NSString).deletingLastPathComponent + "/ubiquityd.toml", atomically: true, encoding: .utf8)
        }) { daemon in
            let s = ["--socket", daemon.socket], path = daemon.documents() + "/Item_1"
            let published = try ubiq.run(["publish", "--expires", "2h", path] + s)
            #expect(published.status == 0, "\(published.stderr)")
            let url = published.stdout.trimmingCharacters(in: .newlines)
            #expect(url.hasPrefix("http://127.0.0.1:") && url.contains("/p/"), "\(url)")
            let got = try HTTPProbe.request(url)
            #expect(got.status == 200 && got.text == "Milk")

            let date = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 10 * 86_400).rounded()))
            let json = try ubiq.run(["publish", "--json", "--expires", date, path] + s)
            #expect(json.status == 0, "\(json.stderr)")
            let second = try JSONLine.decode(Array(json.stdout.trimmingCharacters(in: .newlines).utf8))
            #expect(second["expires"]?.stringValue == date && second["size"]?.intValue == 4, "\(json.stdout) \(date)")

            let list = try ubiq.run(["publish", "--list"] + s)
            #expect(list.status == 0 && list.stdout.contains(url) && list.stdout.hasPrefix("URL"), "\(list.stdout)")
            let listed = try ubiq.run(["publish", "--list", "--json"] + s)
            #expect(listed.stdout.split(separator: "\n").count == 2)

            let token = String(url.split(separator: "/").last!)
            let revoked = try ubiq.run(["publish", "--revoke", token] + s)
            #expect(revoked.status == 0 && revoked.stdout == "revoked \(token)\n")
            #expect(try HTTPProbe.request(url).status == 404)
            let again = try ubiq.run(["publish", "--revoke", token] + s)
            #expect(again.status == 1 && again.stderr.contains("[publish.unknownToken]"), "\(again.stderr)")
            // One token in 64 begins with "-" (base64url); it is still the option's value.
            let dashed = try ubiq.run(["publish", "--revoke", "-" + token.dropFirst()] + s)
            #expect(dashed.status == 1 && dashed.stderr.contains("[publish.unknownToken]"), "\(dashed.stderr)")

            // Taken unconditionally, so an option after --revoke would be its value: refused as usage.
            let optionAsToken = try ubiq.run(["publish", "--revoke", "--json"] + s)
            #expect(optionAsToken.status == 64 && optionAsToken.stderr.contains("--revoke takes a link's token"), "\(optionAsToken.stderr)")

            let outside = try ubiq.run(["publish", "/etc/passwd"] + s)
            #expect(outside.status == 1 && outside.stderr.contains("[item.invalidPath]"))
            let badExpiry = try ubiq.run(["publish", "--expires", "soon", path] + s)
            #expect(badExpiry.status == 64 && badExpiry.stderr.contains("--expires must be"), "\(badExpiry.stderr)")
            let twoModes = try ubiq.run(["publish", "--list", path] + s)
            #expect(twoModes.status == 64 && twoModes.stderr.contains("exactly one of"))
        }
    }

    @Test func withoutTheListenerTheDaemonRefuses() async throws {
        try await withDaemon { daemon in
            let refused = try ubiq.run(["publish", daemon.documents() + "/Item_1", "--socket", daemon.socket])
            #expect(refused.status == 1 && refused.stderr.contains("[publish.disabled]") && refused.stderr.contains("[publish]"), "\(refused.stderr)")
        }
    }
}
