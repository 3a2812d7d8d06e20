import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
@testable import UbiquityServer
import UbiquityTesting

/// `item.publish`, `item.unpublish`, `item.published` and the HTTP listener, against the real
/// daemon with its listener on loopback, fetched over a real TCP socket (``HTTPProbe``).
@Suite("Publishing a snapshot over HTTP", .ownThreads)
struct PublishTests {
    /// Runs `body` with a daemon whose `[publish]` section is `publish` (plus a loopback listener
    /// on any free port) and whose container holds `Documents/Item_1` (`Milk`).
    static func withPublishing<T>(_ publish: String = "", listen: String = "127.0.0.1:0", environment: [String: String] = [:],
                                  prepare: ((String) throws -> Void)? = nil, _ body: (InProcessDaemon) async throws -> T) async throws -> T {
        try await withDaemon(arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"], environment: environment, prepare: { root in
            try Data("Milk".utf8).write(to: URL(fileURLWithPath: root + "/com.example.grocery/Documents/Item_1"))
            let config = "[[roots]]\npath = \"\(root)\"\n\n[publish]\nlisten = \"\(listen)\"\n" + publish
            try config.write(toFile: (root as NSString).deletingLastPathComponent + "/ubiquityd.toml", atomically: true, encoding: .utf8)
            try prepare?(root)
        }, body)
    }

    static func hello(_ daemon: InProcessDaemon) throws -> RawClient {
        let client = try RawClient(socket: daemon.socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        return client
    }

    static func publish(_ client: RawClient, _ path: String, expires: String? = nil, id: Int = 1) throws -> JSONValue {
        var request: [String: JSONValue] = ["id": .integer(Int64(id)), "op": .string("item.publish"), "path": .string(path)]
        if let expires { request["expires"] = try JSONLine.decode(Array(expires.utf8)) }
        return try client.request(JSONLine.encode(.object(request))).response
    }

    /// GETs `url` until it answers `status`, within `seconds`.
    static func waitForStatus(_ url: String, _ status: Int, within seconds: Double) throws -> HTTPProbe.Answer {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let answer = try HTTPProbe.request(url)
            if answer.status == status || Date() >= deadline { return answer }
            usleep(50_000)    // sleep-ok: an expiry is a wall-clock date; time passing is the scenario, polled with a deadline
        }
    }

    @Test("The URL serves the snapshot's bytes; later changes of the file do not reach it; HEAD, a wrong token, another method")
    func servesTheSnapshot() async throws {
        try await Self.withPublishing { daemon in
            let client = try Self.hello(daemon)
            let path = daemon.documents() + "/Item_1"
            let published = try Self.publish(client, path)
            let result = try #require(published["result"], "\(published)")
            let url = try #require(result["url"]?.stringValue), token = try #require(result["token"]?.stringValue)
            #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/p/" + token))
            #expect(PublishTokenFormat.isWellFormed(token))
            #expect(result["size"]?.intValue == 4 && result["path"]?.stringValue == path)

            let got = try HTTPProbe.request(url)
            #expect(got.status == 200 && got.text == "Milk", "\(got)")
            #expect(got.headers["content-type"] == "application/octet-stream")
            #expect(got.headers["content-length"] == "4")
            #expect(got.headers["content-disposition"] == #"attachment; filename="Item_1"; filename*=UTF-8''Item_1"#)

            // The file changes, in place and by an atomic save: the URL keeps the bytes of the publish.
            try Data("Oat milk, 2 l".utf8).write(to: URL(fileURLWithPath: path))
            #expect(try HTTPProbe.request(url).text == "Milk")
            try daemon.place("Item_1", contents: "Soy milk")
            #expect(try HTTPProbe.request(url).text == "Milk")

            let head = try HTTPProbe.request(url, method: "HEAD")
            #expect(head.status == 200 && head.headers["content-length"] == "4" && head.body.isEmpty, "\(head)")
            let base = String(url.dropLast(token.count))
            var generator = SystemRandomNumberGenerator()
            #expect(try HTTPProbe.request(base + PublishToken.make(using: &generator)).status == 404)
            #expect(try HTTPProbe.request(base + "x").status == 404)
            #expect(try HTTPProbe.request(String(base.dropLast(3)) + "/").status == 404)
            let post = try HTTPProbe.request(url, method: "POST")
            #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD", "\(post)")
            // Too many header fields: 431.
            let crowded = try HTTPProbe.request(url, extraHeaders: (0..<100).map { "X-\($0): y" })
            #expect(crowded.status == 431)
            // A header block over NIO's 80 KiB: 400, and the connection closes.
            let huge = try HTTPProbe.request(url, extraHeaders: ["X-Big: " + String(repeating: "b", count: 90 << 10)])
            #expect(huge.status == 400)
        }
    }

    @Test("Two requests on one kept-alive connection are both answered")
    func keepAlive() async throws {
        try await Self.withPublishing { daemon in
            let client = try Self.hello(daemon)
            let url = try #require(try Self.publish(client, daemon.documents() + "/Item_1")["result"]?["url"]?.stringValue)
            let parts = url.dropFirst(7).split(separator: "/", maxSplits: 1)
            let port = try #require(UInt16(parts[0].split(separator: ":")[1]))
            let target = "/" + parts[1]
            let request = "GET \(target) HTTP/1.1\r\nHost: x\r\n\r\nGET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            let bytes = try HTTPProbe.exchange(host: "127.0.0.1", port: port, Array(request.utf8))
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 3, "\(text)")
            #expect(text.components(separatedBy: "\r\n\r\nMilk").count == 3, "\(text)")
        }
    }

    @Test("item.published lists the peer's own; item.unpublish revokes (404 after); an unknown token is refused")
    func revoke() async throws {
        try await Self.withPublishing { daemon in
            let client = try Self.hello(daemon)
            let result = try #require(try Self.publish(client, daemon.documents() + "/Item_1")["result"])
            let url = try #require(result["url"]?.stringValue), token = try #require(result["token"]?.stringValue)
            let listed = try client.request(#"{"id":2,"op":"item.published"}"#).response
            #expect(listed["result"]?["items"]?.arrayValue?.compactMap { $0["token"]?.stringValue } == [token], "\(listed)")
            let revoked = try client.request(#"{"id":3,"op":"item.unpublish","token":"\#(token)"}"#).response
            #expect(revoked["result"]?["revoked"] == .bool(true), "\(revoked)")
            #expect(try HTTPProbe.request(url).status == 404)
            let again = try client.request(#"{"id":4,"op":"item.unpublish","token":"\#(token)"}"#).response
            #expect(again["error"]?["code"]?.stringValue == "publish.unknownToken", "\(again)")
            let empty = try client.request(#"{"id":5,"op":"item.published"}"#).response
            #expect(empty["result"]?["items"]?.arrayValue?.isEmpty == true)
            // Only index.json is left in the publish directory.
            #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.directory + "/state/publish") == ["index.json"])
        }
    }

    @Test("After its expiry the URL answers 410 and the snapshot is removed")
    func expiry() async throws {
        try await Self.withPublishing { daemon in
            let client = try Self.hello(daemon)
            let result = try #require(try Self.publish(client, daemon.documents() + "/Item_1", expires: "1")["result"])
            let url = try #require(result["url"]?.stringValue)
            let gone = try Self.waitForStatus(url, 410, within: 10)
            #expect(gone.status == 410, "\(gone)")
            // Removed: the next request does not know the token, and its file goes.
            #expect(try HTTPProbe.request(url).status == 404)
            try FS.waitForNames(in: daemon.directory + "/state/publish", toBe: ["index.json"])
            let listed = try client.request(#"{"id":2,"op":"item.published"}"#).response
            #expect(listed["result"]?["items"]?.arrayValue?.isEmpty == true, "\(listed)")
        }
    }

    @Test("Snapshots survive a restart until they expire")
    func survivesRestart() async throws {
        let state = try TemporaryDirectory()
        let token = try await Self.withPublishing(environment: ["STATE_DIRECTORY": state.path]) { daemon in
            let client = try Self.hello(daemon)
            return try #require(try Self.publish(client, daemon.documents() + "/Item_1")["result"]?["token"]?.stringValue)
        }
        try await Self.withPublishing(environment: ["STATE_DIRECTORY": state.path]) { daemon in
            let client = try Self.hello(daemon)
            let listed = try client.request(#"{"id":2,"op":"item.published"}"#).response
            let item = try #require(listed["result"]?["items"]?.arrayValue?.first, "\(listed)")
            #expect(item["token"]?.stringValue == token)
            let got = try HTTPProbe.request(try #require(item["url"]?.stringValue))
            #expect(got.status == 200 && got.text == "Milk")
        }
    }

    @Test("At start, expired snapshots and files the index does not name are removed; the rest is served")
    func startCleansUp() async throws {
        let state = try TemporaryDirectory()
        let folder = state.path + "/publish"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let kept = "K" + String(repeating: "a", count: 31), expired = "E" + String(repeating: "b", count: 31)
        let keptFile = "snapshot-" + String(repeating: "1", count: 32), expiredFile = "snapshot-" + String(repeating: "2", count: 32)
        let strayFile = "snapshot-" + String(repeating: "3", count: 32)
        for (name, text) in [(keptFile, "Kept"), (expiredFile, "Old"), (strayFile, "Stray")] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        let later = Date().timeIntervalSince1970 + 3600
        try """
        {"format":"ubiquity.publish","version":1,"snapshots":[\
        {"token":"\(kept)","file":"\(keptFile)","uid":\(getuid()),"path":"/c/Documents/Item_1","size":4,"expires":\(later)},\
        {"token":"\(expired)","file":"\(expiredFile)","uid":\(getuid()),"path":"/c/Documents/Item_2","size":3,"expires":1000.0}]}
        """.write(toFile: folder + "/index.json", atomically: true, encoding: .utf8)
        try await Self.withPublishing(environment: ["STATE_DIRECTORY": state.path]) { daemon in
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["index.json", keptFile])
            let client = try Self.hello(daemon)
            let listed = try client.request(#"{"id":2,"op":"item.published"}"#).response
            let url = try #require(listed["result"]?["items"]?.arrayValue?.first?["url"]?.stringValue, "\(listed)")
            #expect(listed["result"]?["items"]?.arrayValue?.count == 1 && url.hasSuffix("/p/" + kept))
            #expect(try HTTPProbe.request(url).text == "Kept")
            #expect(try HTTPProbe.request(String(url.dropLast(32)) + expired).status == 404)
        }
    }

    @Test("A file of several MiB is served whole")
    func largeFile() async throws {
        var generator = SplitMix64(seed: 36)
        let bytes = (0..<(3 << 20)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        try await Self.withPublishing(prepare: { root in
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/com.example.grocery/Documents/big.bin"))
        }) { daemon in
            let client = try Self.hello(daemon)
            let url = try #require(try Self.publish(client, daemon.documents() + "/big.bin")["result"]?["url"]?.stringValue)
            let got = try HTTPProbe.request(url, within: 30)
            #expect(got.status == 200 && got.headers["content-length"] == String(bytes.count))
            #expect(got.body == bytes)
        }
    }

    @Test("Refused: outside the container, through a link, a directory, a bad expiry, past the per-user bounds")
    func refusals() async throws {
        try await Self.withPublishing("max_items_per_peer = 2\nmax_bytes_per_peer = 10\nmax_expiry_s = 3600\n", prepare: { root in
            let documents = root + "/com.example.grocery/Documents"
            try Data("Eggs".utf8).write(to: URL(fileURLWithPath: documents + "/Item_2"))
            try Data("a list of twenty b".utf8).write(to: URL(fileURLWithPath: documents + "/Item_big"))
            try FileManager.default.createDirectory(atPath: documents + "/Folder", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: documents + "/link", withDestinationPath: documents + "/Item_1")
            try FileManager.default.createSymbolicLink(atPath: documents + "/etc", withDestinationPath: "/etc")
        }) { daemon in
            let client = try Self.hello(daemon)
            let documents = daemon.documents()
            func code(_ path: String, expires: String? = nil) throws -> String? {
                try Self.publish(client, path, expires: expires)["error"]?["code"]?.stringValue
            }
            #expect(try code("/etc/passwd") == "item.invalidPath")
            #expect(try code(documents + "/../../../../etc/passwd") == "item.invalidPath")
            #expect(try code(documents + "/link") == "item.forbidden")
            #expect(try code(documents + "/etc/passwd") == "item.notFound")
            #expect(try code(documents + "/Folder") == "publish.notAFile")
            #expect(try code(documents + "/Item_7") == "item.notFound")
            #expect(try code(documents + "/Item_1", expires: "7200") == "publish.invalidExpiry")
            #expect(try code(documents + "/Item_1", expires: "0") == "publish.invalidExpiry")
            #expect(try code(documents + "/Item_1", expires: #""2001-01-01T00:00:00Z""#) == "publish.invalidExpiry")
            #expect(try code(documents + "/Item_1", expires: #""tomorrow""#) == "request.malformed")
            #expect(try code(documents + "/Item_big") == "publish.tooLarge")
            #expect(try code(documents + "/Item_1") == nil)
            #expect(try code(documents + "/Item_2", expires: #""2099-01-01T00:00:00Z""#) == "publish.invalidExpiry")
            #expect(try code(documents + "/Item_2", expires: "60") == nil)
            #expect(try code(documents + "/Item_1") == "publish.tooMany")
            // Nothing of the refusals is left in the publish directory.
            #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.directory + "/state/publish").count == 3)
        }
    }

    @Test("A listen address already in use stops the daemon at start, saying why")
    func portInUse() async throws {
        let taken = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(taken) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(taken, $0, length) == 0 && listen(taken, 1) == 0 && getsockname(taken, $0, &length) == 0 }
        }
        try #require(bound)
        let port = UInt16(bigEndian: address.sin_port)
        await #expect {
            try await Self.withPublishing(listen: "127.0.0.1:\(port)") { _ in }
        } throws: { error in
            "\(error)".contains("the publish listener cannot start") && "\(error)".contains("127.0.0.1:\(port)")
        }
    }

    @Test("Without a listener every publish operation answers publish.disabled, naming the setting")
    func disabledByDefault() async throws {
        try await withDaemon { daemon in
            let client = try Self.hello(daemon)
            for (id, line) in [#""op":"item.publish","path":"/x""#, #""op":"item.unpublish","token":"t""#, #""op":"item.published""#].enumerated() {
                let answer = try client.request("{\"id\":\(id + 1),\(line)}").response
                #expect(answer["error"]?["code"]?.stringValue == "publish.disabled", "\(answer)")
                #expect(answer["error"]?["message"]?.stringValue?.contains("[publish]") == true)
            }
        }
    }

    @Test("Another uid may publish only what it may read, and sees and revokes only its own (needs root to switch uid)")
    func otherUser() async throws {
        let other = AuthorizationTests.otherUID
        try await Self.withPublishing(prepare: { root in
            let container = root + "/com.example.grocery"
            let documents = container + "/Documents"
            try Data("theirs".utf8).write(to: URL(fileURLWithPath: documents + "/Item_theirs"))
            try Data("secret".utf8).write(to: URL(fileURLWithPath: documents + "/Item_secret"))
            chmod(documents + "/Item_secret", 0o600)
            // Outside the container, root's only: reached through a hard link and a link hidden by a
            // grapheme "prepend" character (String splitting would keep "L\u{600}/secret" whole).
            let outside = (root as NSString).deletingLastPathComponent + "/secret"
            try Data("root only".utf8).write(to: URL(fileURLWithPath: outside))
            chmod(outside, 0o600)
            #expect(link(outside, documents + "/hard-link") == 0)
            #expect(symlink((root as NSString).deletingLastPathComponent, documents + "/L\u{600}") == 0)
            for path in [container, documents, documents + "/Item_theirs"] { chown(path, other, other) }
        }) { daemon in
            chmod(daemon.directory, 0o755)
            let documents = daemon.documents()
            let root = try Self.hello(daemon)
            let rootToken = try #require(try Self.publish(root, documents + "/Item_1")["result"]?["token"]?.stringValue)
            let replies = try AuthorizationTests.exchange(as: other, socket: daemon.socket, [
                #"{"id":0,"op":"hello","version":1}"#,
                #"{"id":1,"op":"item.publish","path":"\#(documents)/Item_secret"}"#,
                #"{"id":2,"op":"item.publish","path":"\#(documents)/Item_theirs"}"#,
                #"{"id":3,"op":"item.unpublish","token":"\#(rootToken)"}"#,
                #"{"id":4,"op":"item.published"}"#,
                #"{"id":7,"op":"item.publish","path":"\#(documents)/hard-link"}"#,
                #"{"id":8,"op":"item.publish","path":"\#(documents)/L\#u{600}/secret"}"#,
                #"{"id":9,"op":"item.publish","path":"\#(documents)/L\#u{600}"}"#,
            ])
            func response(_ id: Int) -> JSONValue? { replies.first { $0["id"]?.intValue == id } }
            #expect(response(1)?["error"]?["code"]?.stringValue == "item.forbidden", "\(replies)")
            let theirs = try #require(response(2)?["result"], "\(replies)")
            #expect(response(3)?["error"]?["code"]?.stringValue == "publish.unknownToken")
            #expect(response(7)?["error"]?["code"]?.stringValue == "item.forbidden", "\(replies)")
            #expect(response(8)?["error"]?["code"]?.stringValue == "item.notFound", "\(replies)")
            #expect(response(9)?["error"]?["code"]?.stringValue == "item.forbidden", "\(replies)")
            #expect(!replies.contains { JSONLine.encode($0).contains("root only") })
            #expect(response(4)?["result"]?["items"]?.arrayValue?.compactMap { $0["token"]?.stringValue } == [theirs["token"]?.stringValue].compactMap { $0 })
            // Root's own listing does not show the other user's snapshot, and root cannot revoke it.
            let listed = try root.request(#"{"id":5,"op":"item.published"}"#).response
            #expect(listed["result"]?["items"]?.arrayValue?.compactMap { $0["token"]?.stringValue } == [rootToken])
            let token = try #require(theirs["token"]?.stringValue)
            let refused = try root.request(#"{"id":6,"op":"item.unpublish","token":"\#(token)"}"#).response
            #expect(refused["error"]?["code"]?.stringValue == "publish.unknownToken")
            #expect(try HTTPProbe.request(try #require(theirs["url"]?.stringValue)).text == "theirs")
        }
    }
}

/// The pure parts: the listen address, the header, the token, the bounds, and `[publish]`.
@Suite("Publishing: addresses, headers, tokens, bounds, configuration")
struct PublishRulesTests {
    @Test("listen addresses: IPv4 and bracketed IPv6 literals with a port; loopback told apart")
    func listenAddresses() throws {
        let four = try ListenAddress.parse("127.0.0.1:8080").get()
        #expect(four.host == "127.0.0.1" && four.port == 8080 && four.isLoopback)
        #expect(try ListenAddress.parse("127.1.2.3:0").get().isLoopback)
        let six = try ListenAddress.parse("[::1]:80").get()
        #expect(six.isLoopback && six.authority(port: 80) == "[::1]:80")
        #expect(try !ListenAddress.parse("0.0.0.0:80").get().isLoopback)
        #expect(try ListenAddress.parse("0.0.0.0:80").get().authority(port: 81) == "127.0.0.1:81")
        #expect(try !ListenAddress.parse("[::]:80").get().isLoopback)
        #expect(try !ListenAddress.parse("192.168.1.2:80").get().isLoopback)
        for bad in ["localhost:80", "127.0.0.1", "127.0.0.1:65536", "127.0.0.1:-1", "1.2.3:80", "01.2.3.4:80", "::1:80", "[::1]", "[zz::1]:80", ":80", "127.0.0.1:8a"] {
            #expect(throws: ListenAddressError.self, "\(bad)") { try ListenAddress.parse(bad).get() }
        }
    }

    @Test("Content-Disposition never lets a name end the header or add a parameter")
    func contentDisposition() {
        #expect(ContentDisposition.attachment(named: "Item_1") == #"attachment; filename="Item_1"; filename*=UTF-8''Item_1"#)
        let hostile = ContentDisposition.attachment(named: "a\"b\\c;\r\nX-Evil: 1 é.txt")
        #expect(!hostile.contains("\r") && !hostile.contains("\n"))
        #expect(hostile == #"attachment; filename="a_b_c;__X-Evil: 1 __.txt"; filename*=UTF-8''a%22b%5Cc%3B%0D%0AX-Evil%3A%201%20%C3%A9.txt"#)
    }

    @Test("Tokens: 32 base64url characters, all different")
    func tokens() {
        var generator = SystemRandomNumberGenerator()
        let tokens = (0..<1000).map { _ in PublishToken.make(using: &generator) }
        #expect(Set(tokens).count == 1000)
        #expect(tokens.allSatisfy(PublishTokenFormat.isWellFormed))
        #expect(!PublishTokenFormat.isWellFormed("../../etc/passwd"))
        #expect(PublishToken.isWellFormedFileName(PublishToken.makeFileName(using: &generator)))
    }

    @Test("The catalog: bounds per user, revoke only by the owner, expiry, the index round trip")
    func catalog() throws {
        var settings = PublishSettings()
        settings.maxItemsPerPeer = 2
        settings.maxBytesPerPeer = 100
        var generator = SystemRandomNumberGenerator()
        func snapshot(uid: UInt32, size: Int64, expires: Double = 1000) -> PublishedSnapshot {
            PublishedSnapshot(token: PublishToken.make(using: &generator), file: PublishToken.makeFileName(using: &generator),
                              uid: uid, path: "/c/Documents/Item", size: size, expires: expires)
        }
        var catalog = PublishCatalog()
        let a = snapshot(uid: 1, size: 60), b = snapshot(uid: 1, size: 50), c = snapshot(uid: 1, size: 40, expires: 10)
        #expect(throws: Never.self) { try catalog.reserve(a, settings: settings).get() }
        #expect(catalog.lookup(a.token, now: 0) == .unknown)      // still being copied
        catalog.complete(a.token, size: 60)
        #expect(catalog.lookup(a.token, now: 0) == .serve(a))
        #expect(throws: PublishError.self) { try catalog.reserve(b, settings: settings).get() }      // 110 > 100
        #expect(throws: Never.self) { try catalog.reserve(c, settings: settings).get() }
        catalog.complete(c.token, size: 40)
        #expect(throws: PublishError.self) { try catalog.reserve(snapshot(uid: 1, size: 0), settings: settings).get() }   // 3 > 2
        #expect(throws: Never.self) { try catalog.reserve(snapshot(uid: 2, size: 100), settings: settings).get() }      // another user
        #expect(catalog.revoke(a.token, uid: 2) == nil)
        #expect(catalog.owned(by: 1, now: 0).map(\.token) == [c.token, a.token])
        #expect(catalog.lookup(c.token, now: 10) == .expired(c))
        let saved = try #require(PublishCatalog(indexJSON: try JSONLine.decode(Array(JSONLine.encode(catalog.indexJSON).utf8))))
        #expect(saved.owned(by: 1, now: 0).map(\.token) == [c.token, a.token])
        #expect(saved.snapshots.count == 2)       // the user-2 reservation was never complete: not saved
        #expect(catalog.removeExpired(now: 10).map(\.token) == [c.token])
        #expect(catalog.revoke(a.token, uid: 1) == a)
        #expect(PublishCatalog(indexJSON: .object(["format": .string("other")])) == nil)
    }

    static func parse(_ text: String) throws -> DaemonConfiguration {
        try DaemonConfiguration.parse(text, path: "t.toml", uid: 1000, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
    }

    @Test("[publish]: off by default; loopback by default; a reachable address only when allowed; errors with line and column")
    func configuration() throws {
        #expect(try Self.parse("").publish == PublishSettings())
        let on = try Self.parse("[publish]\nlisten = \"127.0.0.1:8080\"\ndefault_expiry_s = 60\nmax_expiry_s = 120\nmax_items_per_peer = 3\nmax_bytes_per_peer = 1000\n").publish
        #expect(on.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(on.defaultExpiry == .seconds(60) && on.maxExpiry == .seconds(120) && on.maxItemsPerPeer == 3 && on.maxBytesPerPeer == 1000)
        #expect(try Self.parse("[publish]\nlisten = \"0.0.0.0:8080\"\nallow_non_loopback = true\n").publish.listen?.host == "0.0.0.0")
        #expect(try Self.parse("[publish]\nmax_expiry_s = 60\n").publish.defaultExpiry == .seconds(60))   // the default follows a shorter maximum
        func diagnostics(_ text: String) -> [ConfigurationError.Diagnostic] {
            do { _ = try Self.parse(text); return [] } catch let error as ConfigurationError { return error.diagnostics } catch { return [] }
        }
        let reachable = diagnostics("[publish]\nlisten = \"0.0.0.0:8080\"\n")
        #expect(reachable.map(\.code) == [.invalidValue] && reachable.first?.line == 2 && reachable.first?.column == 10, "\(reachable)")
        #expect(reachable.first?.message.contains("allow_non_loopback") == true)
        #expect(diagnostics("[publish]\nlisten = \"localhost:80\"\n").map(\.code) == [.invalidValue])
        #expect(diagnostics("[publish]\nlisten = 8080\n").map(\.code) == [.wrongType])
        #expect(diagnostics("[publish]\nmax_expiry_s = 60\ndefault_expiry_s = 120\n").map(\.code) == [.conflict])
        #expect(diagnostics("[publish]\nmax_bytes_per_peer = 0\n").map(\.code) == [.outOfRange])
        #expect(try Self.parse("").summary().contains("publish                       off (no [publish] listen)\n"))
        #expect(try Self.parse("[publish]\nlisten = \"[::1]:8080\"\n").summary()
                .contains("publish                       HTTP listener on [::1]:8080: links of at most 2592000 s (default 86400 s), 32 links and 67108864 bytes per user\n"))
        #expect(diagnostics("[publish]\nlsten = \"127.0.0.1:1\"\n").first?.message.contains("did you mean 'listen'") == true)
    }
}
