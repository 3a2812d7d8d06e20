import Testing
import UbiquityJSON
import UbiquityProtocol
@testable import UbiquityServer

/// The pure parts of the sync engine connection: its address, Syncthing's `config.xml`, the
/// event cursor, `[sync]`, and the status it adds.
@Suite("Sync engine connection: the rules")
struct SyncEngineRulesTests {
    @Test("An address is a Unix socket path or a loopback HOST:PORT; anything that would send the key over a network is refused")
    func addresses() throws {
        #expect(try EngineAddress.parse("/run/syncthing/rest.sock").get() == .unixSocket("/run/syncthing/rest.sock"))
        #expect(try EngineAddress.parse("unix:/tmp/r.sock").get() == .unixSocket("/tmp/r.sock"))
        #expect(try EngineAddress.parse("127.0.0.1:8384").get() == .loopback(ListenAddress(host: "127.0.0.1", port: 8384)))
        #expect(try EngineAddress.parse("http://127.0.0.1:8384/").get() == .loopback(ListenAddress(host: "127.0.0.1", port: 8384)))
        #expect(try EngineAddress.parse("[::1]:8384").get() == .loopback(ListenAddress(host: "::1", port: 8384)))
        func refusal(_ text: String) -> String? {
            if case .failure(let problem) = EngineAddress.parse(text) { return problem.description }
            return nil
        }
        #expect(refusal("192.168.1.2:8384")?.contains("not a loopback address") == true)
        #expect(refusal("https://127.0.0.1:8384")?.contains("TLS") == true)
        #expect(refusal("localhost:8384")?.contains("not an IPv4 address") == true)
        #expect(refusal("127.0.0.1:0")?.contains("must not be 0") == true)
        #expect(refusal("/" + String(repeating: "s", count: 120))?.contains("107 bytes") == true)
    }

    @Test("config.xml: the GUI's address and API key, entities decoded; absent elements are nil")
    func guiConfig() {
        let xml = """
            <configuration version="37">
                <folder id="a" path="/x"><device id="D"></device></folder>
                <gui enabled="true" tls="false" debugging="false">
                    <address>/home/alice/.local/state/syncthing/rest.sock</address>
                    <apikey>k&amp;y</apikey>
                    <theme>default</theme>
                </gui>
                <options><listenAddress>default</listenAddress></options>
            </configuration>
            """
        #expect(SyncthingGUIConfig(xml: xml) == SyncthingGUIConfig(address: "/home/alice/.local/state/syncthing/rest.sock", apiKey: "k&y"))
        #expect(SyncthingGUIConfig(xml: "<configuration><gui><address>127.0.0.1:8384</address></gui></configuration>")
            == SyncthingGUIConfig(address: "127.0.0.1:8384", apiKey: nil))
        #expect(SyncthingGUIConfig(xml: "<configuration></configuration>") == SyncthingGUIConfig(address: nil, apiKey: nil))
        #expect(SyncthingGUIConfig(xml: "<gui><apikey></apikey>") == SyncthingGUIConfig(address: nil, apiKey: nil))
        // One pass: an escaped ampersand stays an ampersand; spaces around the value go, an unknown entity stays.
        #expect(SyncthingGUIConfig(xml: "<gui>\n <apikey> a&amp;lt;b&bogus; </apikey></gui>") == SyncthingGUIConfig(address: nil, apiKey: "a&lt;b&bogus;"))
    }

    @Test("The event cursor: events that follow on go on; another run (even with ids that look in order), ids that go back and a gap past the 1,000-event buffer say read the state again")
    func eventCursor() {
        var cursor = EngineEventCursor(run: "S1", last: 57)
        #expect(cursor.take([], run: "S1") == .inOrder && cursor.last == 57)     // a quiet poll
        #expect(cursor.take([58, 59, 60], run: "S1") == .inOrder && cursor.last == 60)
        // Syncthing restarted between two polls and its new run already has more events than 60:
        // since=60 answers 61… as if they followed on; only the run tells.
        #expect(cursor.take([61, 62], run: "S2") == .restarted && cursor.last == 62 && cursor.run == "S2")
        #expect(cursor.take([63], run: "S2") == .inOrder && cursor.last == 63)
        #expect(cursor.take([64]) == .inOrder && cursor.run == "S2")        // an answer with events: the run is not asked again
        #expect(cursor.take([2, 3]) == .restarted && cursor.last == 3)      // ids that go back say it all the same
        #expect(cursor.take([], run: "S2") == .inOrder && cursor.last == 3)
        // Restarted, fewer events than 63 yet: the poll comes back empty; the run tells, and the
        // cursor starts the new run from its beginning.
        #expect(cursor.take([], run: "S3") == .restarted && cursor.last == 0 && cursor.run == "S3")
        #expect(cursor.take([1, 2, 3], run: "S3") == .inOrder && cursor.last == 3)
        // Ids that go back in one run (an engine that names no run, or answers ids already read).
        var unnamed = EngineEventCursor(run: nil, last: 40)
        #expect(unnamed.take([1, 2], run: nil) == .restarted && unnamed.last == 2)
        #expect(unnamed.take([2, 3], run: nil) == .restarted)       // 2 again
        #expect(unnamed.take([4], run: nil) == .inOrder)
        // More than Syncthing's 1,000-event buffer came between two polls: since=4 answers from
        // the oldest event it still holds.
        #expect(unnamed.take(Array(1_205...2_204), run: nil) == .lost && unnamed.last == 2_204)
        #expect(unnamed.take([2_205], run: nil) == .inOrder)
        // An answer out of order is judged by its first and its newest id.
        #expect(unnamed.take([2_206, 2_208, 2_207], run: nil) == .inOrder && unnamed.last == 2_208)
        // No trap at the ends of the range.
        var edge = EngineEventCursor(run: "S", last: Int64.max)
        #expect(edge.take([1], run: "S") == .restarted && edge.last == 1)
        var low = EngineEventCursor(run: "S", last: Int64.max - 1)
        #expect(low.take([Int64.max], run: "S") == .inOrder)
        #expect(low.take([Int64.min], run: "S") == .restarted)
    }

    static func parse(_ text: String) throws -> DaemonConfiguration {
        try DaemonConfiguration.parse(text, path: "t.toml", uid: 1000, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
    }

    @Test("[sync]: none by default; config_xml alone, or address and api_key; every refusal names the key, with line and column")
    func configuration() throws {
        #expect(try Self.parse("").sync == nil)
        let fromFile = try Self.parse("[sync]\nengine = \"syncthing\"\nconfig_xml = \"/home/a/.local/state/syncthing/config.xml\"\n").sync
        #expect(fromFile == SyncEngineSettings(configXML: "/home/a/.local/state/syncthing/config.xml"))
        let given = try Self.parse("[sync]\nengine = \"syncthing\"\naddress = \"127.0.0.1:8384\"\napi_key = \"abc\"\n").sync
        #expect(given?.address == .loopback(ListenAddress(host: "127.0.0.1", port: 8384)) && given?.apiKey == "abc")
        func diagnostics(_ text: String) -> [ConfigurationError.Diagnostic] {
            do { _ = try Self.parse(text); return [] } catch let error as ConfigurationError { return error.diagnostics } catch { return [] }
        }
        let unknownEngine = diagnostics("[sync]\nengine = \"dropbox\"\nconfig_xml = \"/c.xml\"\n")
        #expect(unknownEngine.map(\.code) == [.invalidValue] && unknownEngine.first?.line == 2, "\(unknownEngine)")
        #expect(diagnostics("[sync]\nconfig_xml = \"/c.xml\"\n").map(\.code) == [.missingKey])
        let remote = diagnostics("[sync]\nengine = \"syncthing\"\naddress = \"10.0.0.2:8384\"\napi_key = \"k\"\n")
        #expect(remote.map(\.code) == [.invalidValue] && remote.first?.line == 3 && remote.first?.message.contains("loopback") == true)
        #expect(diagnostics("[sync]\nengine = \"syncthing\"\naddress = \"/r.sock\"\n").first?.message.contains("needs 'config_xml'") == true)
        #expect(diagnostics("[sync]\nengine = \"syncthing\"\nconfig_xml = \"c.xml\"\n").first?.message.contains("absolute path") == true)
        #expect(diagnostics("[sync]\nengine = \"syncthing\"\naddress = \"/r.sock\"\napi_key = \"a b\"\n").map(\.code) == [.invalidValue])
        #expect(diagnostics("[sync]\nengine = \"syncthing\"\nconfg_xml = \"/c.xml\"\n").contains { $0.message.contains("did you mean 'config_xml'") })
        #expect(try Self.parse("").summary().contains("sync engine                   none (a single machine"))
        #expect(try Self.parse("[sync]\nengine = \"syncthing\"\nconfig_xml = \"/c.xml\"\n").summary()
                .contains("sync engine                   syncthing at the GUI address in /c.xml, its API key read from /c.xml; files on demand wait 20 s at most for an answer about a folder\n"))
        let waiting = try Self.parse("[sync]\nengine = \"syncthing\"\nconfig_xml = \"/c.xml\"\nfolder_request_timeout_s = 300\n").sync
        #expect(waiting?.folderRequestTimeoutSeconds == 300)
        let zero = diagnostics("[sync]\nengine = \"syncthing\"\nconfig_xml = \"/c.xml\"\nfolder_request_timeout_s = 0\n")
        #expect(zero.map(\.code) == [.outOfRange] && zero.first?.line == 4 && zero.first?.message.contains("folder_request_timeout_s") == true, "\(zero)")
    }

    @Test("The status it adds survives the wire; a connection that is not well is a degraded sentence")
    func status() throws {
        let connected = SyncEngineStatus(engine: "syncthing", address: "/r.sock", state: .connected, device: "ABC",
                                         folders: [.init(container: "com.example.grocery", folder: "com.example.grocery")],
                                         unshared: ["com.example.other"], lastEvent: 12, resyncs: 1)
        #expect(try SyncEngineStatus(json: connected.json, context: "t") == connected)
        #expect(connected.degradedSentence == "syncthing does not share container com.example.other: nothing of it syncs")
        let down = SyncEngineStatus(engine: "syncthing", address: "/r.sock", state: .unreachable, reason: "nothing answers at /r.sock")
        #expect(try SyncEngineStatus(json: down.json, context: "t") == down)
        #expect(down.degradedSentence?.contains("is unreachable: nothing answers") == true)
        #expect(SyncEngineStatus(engine: "syncthing", address: "/r.sock", state: .connected).degradedSentence == nil)
    }
}
