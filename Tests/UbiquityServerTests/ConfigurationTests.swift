import Glibc
import Testing
import UbiquityKeyValue
import UbiquityIndex
import UbiquityProtocol
import UbiquityStoreFiles
import UbiquityTOML
@testable import UbiquityServer
import UbiquityTesting

// MARK: - TOML and the schema together

// The pure TOML tests live in Tests/UbiquityTOMLTests; this one feeds the same garbage to the schema.
@Suite("TOML subset under the schema")
struct TOMLSchemaFuzzTests {
    /// Random bytes and random mixes of TOML fragments: the parser may only return or throw.
    @Test func fuzzedInputOnlyThrows() {
        var random = SplitMix64(seed: 0x7031_C0F1_6000)
        let fragments = [
            "a", " = ", "\"", "'", "[", "]", "[[", "]]", "{", "}", ",", "\n", "\r\n", "#", "1", "_", ".", "e",
            "0x", "-", "+", "true", "\\u", "\\", "é", "\t", "x = 1\n", "[t]\n", "[[c]]\n", "{ k = [1, 2] }", "\u{0}",
            "1979-01-01", "inf", "\"\"\"", ":", "=",
        ]
        var parsed = 0
        for _ in 0..<6000 {
            var bytes: [UInt8]
            if random.chance(0.5) {
                bytes = (0..<random.int(0...64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                bytes = Array((0..<random.int(1...40)).map { _ in random.pick(fragments) }.joined().utf8)
                if random.chance(0.2), !bytes.isEmpty { bytes[random.int(0...(bytes.count - 1))] = UInt8(truncatingIfNeeded: random.next()) }
            }
            if (try? TOML.parse(bytes)) != nil { parsed += 1 }
            _ = try? DaemonConfiguration.parse(bytes: bytes, path: "fuzz.toml", uid: 1000, environment: [:])
        }
        #expect(parsed > 0)  // the fragment mix does produce valid documents too
    }
}

// MARK: - The configuration file

@Suite("Daemon configuration")
struct DaemonConfigurationTests {
    static let environment = ["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/alice"]

    func parse(_ text: String) throws(ConfigurationError) -> DaemonConfiguration {
        try DaemonConfiguration.parse(text, path: "ubiquityd.toml", uid: 1000, environment: Self.environment)
    }

    /// The rendered diagnostics of a text that must fail.
    func errors(_ text: String) -> [String] {
        do {
            _ = try parse(text)
            Issue.record("parsed although it should not: \(text)")
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test func fullFileIsRead() throws {
        let configuration = try parse("""
            socket = "/run/ubiquity//test.sock/"
            batching_interval_ms = 0
            watch_budget = 5000
            rescan_interval_s = 30
            log_level = "debug"
            [limits]
            max_line_bytes = 2048
            max_connections = 8
            max_queries_per_connection = 2
            pending_items_per_query = 100
            [[roots]]
            path = "/srv/roots/"
            packages = { GRO = "com.example.grocery.package" }
            owner = 0
            group = "root"
            [[containers]]
            id = "com.example.a"
            packages = { pkg = "com.example.pkg" }
            [[containers]]
            id = "TEAM1.com.example.b"
            path = "/elsewhere/b"
            owner = "0"
            create = false
            """)
        #expect(configuration.socketPath == "/run/ubiquity/test.sock")
        #expect(configuration.batchingInterval == .zero)
        #expect(configuration.limits.defaultBatchingInterval == 0)
        #expect(configuration.watchBudget == 5000)
        #expect(configuration.rescanInterval == .seconds(30))
        #expect(configuration.logLevel == "debug")
        #expect(configuration.limits.maxLineBytes == 2048)
        #expect(configuration.limits.maxConnections == 8)
        #expect(configuration.limits.maxQueriesPerConnection == 2)
        #expect(configuration.limits.pendingItemsPerQuery == 100)
        #expect(configuration.roots == [RootDeclaration(path: "/srv/roots", packageTypes: ["gro": "com.example.grocery.package"], owner: 0, group: 0)])
        #expect(configuration.source == "ubiquityd.toml")
        // Inside the root: inherits its packages, owner and group; its own packages are added.
        #expect(configuration.containers[0] == ContainerDeclaration(
            id: try ContainerID("com.example.a"), owner: 0, group: 0,
            packageTypes: ["gro": "com.example.grocery.package", "pkg": "com.example.pkg"], create: true))
        #expect(configuration.path(of: configuration.containers[0]) == "/srv/roots/com.example.a")
        // Elsewhere: only its own settings.
        #expect(configuration.containers[1] == ContainerDeclaration(
            id: try ContainerID("TEAM1.com.example.b"), path: "/elsewhere/b", owner: 0, create: false))
    }

    @Test func absentKeysTakeTheirDefaults() throws {
        let configuration = try parse("")
        #expect(configuration == DaemonConfiguration(socketPath: "/run/user/1000/ubiquity/ubiquityd.sock", source: "ubiquityd.toml"))
        #expect(configuration.batchingInterval == .milliseconds(50))
        #expect(configuration.rescanInterval == .seconds(10))
        #expect(configuration.watchBudget == nil)
        #expect(configuration.logLevel == "info")
        #expect(configuration.limits == ServerLimits())
        #expect(try parse("watch_budget = 0").watchBudget == nil)
    }

    @Test func unknownKeysSuggestTheNearestOne() {
        #expect(errors("batching_intervall = 5") == [
            "ubiquityd.toml:1:1: unknown key 'batching_intervall'; did you mean 'batching_interval_ms'?",
        ])
        #expect(errors("[limits]\nmax_conections = 5") == [
            "ubiquityd.toml:2:1: unknown key 'max_conections' in [limits]; did you mean 'max_connections'?",
        ])
        #expect(errors("[[roots]]\npath = \"/r\"\n[[containers]]\nid = \"com.a.b\"\ncreated = true") == [
            "ubiquityd.toml:5:1: unknown key 'created' in [[containers]]; did you mean 'create'?",
        ])
        #expect(errors("[[root]]\npath = \"/r\"") == ["ubiquityd.toml:1:1: unknown key 'root'; did you mean 'roots'?"])
        #expect(errors("zzz = 1") == [
            "ubiquityd.toml:1:1: unknown key 'zzz'; expected one of socket, batching_interval_ms, watch_budget, rescan_interval_s, history_max_changes, history_max_age_s, save_index, index_save_interval_s, log_level, limits, key_value, stores, roots, containers, publish, sync",
        ])
    }

    @Test func theSavedIndexCanBeTurnedOffAndItsIntervalSet() throws {
        let configuration = try DaemonConfiguration.parse(bytes: Array("save_index = false\nindex_save_interval_s = 60\n[[roots]]\npath = \"/r\"".utf8),
                                                          path: "ubiquityd.toml", uid: 1000, environment: [:])
        #expect(configuration.savesIndex == false)
        #expect(configuration.indexSaveInterval == .seconds(60))
        #expect(DaemonConfiguration.embeddedDefault(uid: 1000, environment: ["HOME": "/home/u"]).savesIndex)
        #expect(errors("index_save_interval_s = 5") == [
            "ubiquityd.toml:1:25: 'index_save_interval_s' must be between 10 and 86400 (seconds); found 5",
        ])
        #expect(errors("save_index = 1").count == 1)
        let backToBack = try DaemonConfiguration.parse(bytes: Array("index_save_interval_s = 0\n[[roots]]\npath = \"/r\"".utf8),
                                                       path: "ubiquityd.toml", uid: 1000, environment: [:])
        #expect(backToBack.indexSaveInterval == .zero)
    }

    @Test func keyValueQuotasAreReadAndChecked() throws {
        #expect(try parse("").keyValueQuota == KVQuota())
        let quota = try parse("[key_value]\nmax_keys = 10\nmax_bytes = 2048\nmax_key_bytes = 8").keyValueQuota
        #expect(quota == KVQuota(maxKeys: 10, maxBytes: 2048, maxKeyBytes: 8))
        #expect(errors("[key_value]\nmax_keys = 0").first?.contains("max_keys") == true)
        #expect(errors("[key_value]\nmax_key = 5").first?.contains("did you mean 'max_keys'") == true)
    }

    @Test func storeCompactionIsReadAndChecked() throws {
        #expect(try parse("").storeCompaction == CompactionPolicy())
        let policy = try parse("[stores]\nsnapshot_every = 5\nsilent_after_s = 86400").storeCompaction
        #expect(policy.snapshotEvery == 5 && policy.silentAfterMilliseconds == 86_400_000)
        #expect(try parse("[stores]\nsnapshot_every = 0").storeCompaction.snapshotEvery == 0, "0: never")
        #expect(try parse("[stores]\nfloor_after_s = 0").storeCompaction.floorAfterMilliseconds == 0, "0: at the first quiet point")
        #expect(try parse("[stores]\nfloor_after_s = 3600").storeCompaction.floorAfterMilliseconds == 3_600_000)
        #expect(errors("[stores]\nfloor_after_s = 315360001") == [
            "ubiquityd.toml:2:17: 'floor_after_s' must be between 0 and 315360000 (seconds); found 315360001",
        ])
        #expect(errors("[stores]\nsnapshot_every = -1") == [
            "ubiquityd.toml:2:18: 'snapshot_every' must be between 0 and 1000000 (segments; 0 means never); found -1",
        ])
        #expect(errors("[stores]\nsilent_after_s = 59") == [
            "ubiquityd.toml:2:18: 'silent_after_s' must be between 60 and 315360000 (seconds); found 59",
        ])
        #expect(errors("[stores]\nsilent_after_s = \"30d\"") == [
            "ubiquityd.toml:2:18: 'silent_after_s' must be an integer (seconds), found a string",
        ])
        #expect(errors("[stores]\nsnapshot_evry = 10") == [
            "ubiquityd.toml:2:1: unknown key 'snapshot_evry' in [stores]; did you mean 'snapshot_every'?",
        ])
        #expect(errors("stores = 5").first?.contains("'stores' must be a table ([stores])") == true)
    }

    @Test func wrongTypesNameTheExpectedType() {
        #expect(errors("batching_interval_ms = \"50\"") == [
            "ubiquityd.toml:1:24: 'batching_interval_ms' must be an integer (milliseconds), found a string",
        ])
        #expect(errors("rescan_interval_s = 1.5") == [
            "ubiquityd.toml:1:21: 'rescan_interval_s' must be an integer (seconds), found a float",
        ])
        #expect(errors("[roots]\npath = \"/r\"") == [
            "ubiquityd.toml:1:1: 'roots' must be an array of tables, written [[roots]], found a table",
        ])
        #expect(errors("[[containers]]\nid = \"com.a.b\"\npath = \"/c\"\ncreate = \"yes\"") == [
            "ubiquityd.toml:4:10: 'create' must be true or false, found a string",
        ])
        #expect(errors("[[roots]]\npath = \"/r\"\npackages = \"gro\"") == [
            "ubiquityd.toml:3:12: 'packages' must be an inline table such as { gro = \"com.example.grocery.package\" }, found a string",
        ])
        #expect(errors("[[roots]]\npath = \"/r\"\nowner = true") == [
            "ubiquityd.toml:3:9: 'owner' must be a user name (string) or a numeric id (integer), found a boolean",
        ])
        #expect(errors("limits = 3") == ["ubiquityd.toml:1:10: 'limits' must be a table ([limits]), found an integer"])
    }

    @Test func containerIDsAreValidated() {
        #expect(errors("[[roots]]\npath = \"/r\"\n[[containers]]\nid = \"com..x\"") == [
            "ubiquityd.toml:4:6: invalid container id 'com..x': it has an empty label ('..' or a dot at an end)",
        ])
        #expect(errors("[[roots]]\npath = \"/r\"\n[[containers]]\nid = \"../etc\"").first?.hasPrefix(
            "ubiquityd.toml:4:6: invalid container id '../etc':") == true)
        #expect(errors("[[containers]]\npath = \"/x\"") == ["ubiquityd.toml:1:1: [[containers]] needs 'id'"])
    }

    @Test func pathsMustBeAbsoluteAndAreNotExpanded() {
        #expect(errors("socket = \"run/u.sock\"") == [
            "ubiquityd.toml:1:10: 'socket' must be an absolute path starting with '/', found 'run/u.sock'",
        ])
        #expect(errors("[[roots]]\npath = \"~/containers\"") == [
            "ubiquityd.toml:2:8: 'path' starts with '~', which is not expanded; write the absolute path (e.g. /home/alice/...)",
        ])
        #expect(errors("[[roots]]\npath = \"$HOME/containers\"") == [
            "ubiquityd.toml:2:8: 'path' contains '$': environment variables such as $HOME are not expanded; write the absolute path",
        ])
        #expect(errors("[[roots]]\npath = \"/a/../b\"") == [
            "ubiquityd.toml:2:8: 'path' must not contain '.' or '..' components, found '/a/../b'",
        ])
        #expect(errors("socket = \"/" + String(repeating: "s", count: 120) + "\"") == [
            "ubiquityd.toml:1:10: 'socket' is 121 bytes long; a Unix socket path holds at most 107",
        ])
    }

    @Test func limitsMustBePositiveAndInRange() throws {
        #expect(errors("[limits]\nmax_connections = -1") == [
            "ubiquityd.toml:2:19: 'max_connections' must be between 1 and 65536 (connections); found -1",
        ])
        #expect(errors("[limits]\nmax_line_bytes = 100") == [
            "ubiquityd.toml:2:18: 'max_line_bytes' must be between 1024 and 67108864 (bytes); found 100",
        ])
        #expect(errors("batching_interval_ms = -5") == [
            "ubiquityd.toml:1:24: 'batching_interval_ms' must be between 0 and 60000 (milliseconds); found -5",
        ])
        #expect(errors("rescan_interval_s = 0") == [
            "ubiquityd.toml:1:21: 'rescan_interval_s' must be between 1 and 86400 (seconds); found 0",
        ])
        #expect(errors("history_max_changes = 0") == [
            "ubiquityd.toml:1:23: 'history_max_changes' must be between 1 and 10000000 (changes); found 0",
        ])
        #expect(errors("history_max_age_s = 2592001") == [
            "ubiquityd.toml:1:21: 'history_max_age_s' must be between 1 and 2592000 (seconds); found 2592001",
        ])
        #expect(try parse("history_max_changes = 7\nhistory_max_age_s = 60").history
                == ChangeHistory.Retention(maxChanges: 7, maxAge: .seconds(60)))
        #expect(errors("[[roots]]\npath = \"/r\"\nowner = -1") == [
            "ubiquityd.toml:3:9: 'owner' must be a user name or a numeric id between 0 and 4294967294; found -1",
        ])
    }

    @Test func ownersAndGroupsResolveNamesAndNumbers() throws {
        #expect(errors("[[roots]]\npath = \"/r\"\nowner = \"no-such-user-ubq\"\ngroup = \"no-such-group-ubq\"") == [
            "ubiquityd.toml:3:9: unknown user 'no-such-user-ubq' for 'owner' (not in the passwd database; a numeric id is accepted too)",
            "ubiquityd.toml:4:9: unknown group 'no-such-group-ubq' for 'group' (not in the group database; a numeric id is accepted too)",
        ])
        let configuration = try parse("[[roots]]\npath = \"/r\"\nowner = \"root\"\ngroup = 4321")
        #expect(configuration.roots[0].owner == 0)
        #expect(configuration.roots[0].group == 4321)
    }

    @Test func logLevelAndPackages() {
        #expect(errors("log_level = \"warn\"") == [
            "ubiquityd.toml:1:13: 'log_level' must be one of trace, debug, info, notice, warning, error, critical; found 'warn'",
        ])
        #expect(errors("log_level = \"Debug\"") == [
            "ubiquityd.toml:1:13: 'log_level' must be one of trace, debug, info, notice, warning, error, critical; found 'Debug'; did you mean 'debug'?",
        ])
        #expect(errors("[[roots]]\npath = \"/r\"\npackages = { \".gro\" = \"t\", gro = 1, x = \"a b\" }") == [
            "ubiquityd.toml:3:14: package extension '.gro' must be written without the dot: 'gro'",
            "ubiquityd.toml:3:34: package type of 'gro' must be a string such as \"com.example.grocery.package\", found an integer",
            "ubiquityd.toml:3:41: package type of 'x' must be a type identifier without spaces, found 'a b'",
        ])
    }

    @Test func conflictsBetweenDeclarations() {
        #expect(errors("[[containers]]\nid = \"com.a.b\"") == [
            "ubiquityd.toml:1:1: container 'com.a.b' has no 'path' and there is no [[roots]] to put it in",
        ])
        #expect(errors("[[roots]]\npath = \"/r\"\n[[containers]]\nid = \"com.a.b\"\n[[containers]]\nid = \"com.a.b\"") == [
            "ubiquityd.toml:5:1: container 'com.a.b' is declared twice (first at line 3)",
        ])
        #expect(errors("[[roots]]\npath = \"/r\"\n[[roots]]\npath = \"/r/\"") == [
            "ubiquityd.toml:3:1: root '/r' is declared twice (first at line 1)",
        ])
        #expect(errors("[[containers]]\nid = \"com.a.b\"\npath = \"/x\"\n[[containers]]\nid = \"com.a.c\"\npath = \"/x\"") == [
            "ubiquityd.toml:4:1: containers 'com.a.b' (line 1) and 'com.a.c' have the same path '/x'",
        ])
    }

    @Test func everySemanticProblemIsReportedInFileOrder() {
        let found = errors("""
            log_level = "loud"
            [limits]
            max_connections = 0
            bogus = 1
            [[roots]]
            path = "relative"
            [[containers]]
            id = "nodots"
            path = "/x"
            """)
        #expect(found == [
            "ubiquityd.toml:1:13: 'log_level' must be one of trace, debug, info, notice, warning, error, critical; found 'loud'",
            "ubiquityd.toml:3:19: 'max_connections' must be between 1 and 65536 (connections); found 0",
            "ubiquityd.toml:4:1: unknown key 'bogus' in [limits]; expected one of max_line_bytes, max_connections, max_queries_per_connection, pending_items_per_query, max_queries_per_peer, max_result_items_per_peer",
            "ubiquityd.toml:6:8: 'path' must be an absolute path starting with '/', found 'relative'",
            "ubiquityd.toml:8:6: invalid container id 'nodots': expected reverse-DNS form such as com.example.app",
        ])
    }

    @Test func syntaxErrorsCarryPathLineAndColumn() {
        do {
            _ = try parse("a = 1\nbatching_interval_ms =\n")
            Issue.record("parsed")
        } catch {
            #expect(error.code == .syntax)
            #expect(error.path == "ubiquityd.toml")
            #expect(error.line == 2)
            #expect(error.column == 23)
            #expect(error.description == "ubiquityd.toml:2:23: expected a value after '=', found end of line")
        }
    }

    @Test func loadReportsUnreadableFiles() throws {
        do {
            _ = try DaemonConfiguration.load(path: "/nonexistent/ubiquityd.toml", uid: 0, environment: [:])
            Issue.record("loaded")
        } catch {
            #expect(error.code == .unreadable)
            #expect(error.description == "/nonexistent/ubiquityd.toml: cannot open: No such file or directory")
        }
        let dir = try TemporaryDirectory()
        let big = dir.path + "/big.toml"
        try writeFile(big, String(repeating: "#", count: TOML.maxBytes + 1))
        #expect(throws: ConfigurationError(code: .unreadable, path: big,
                                           message: "the file is 1048577 bytes; at most 1048576 bytes (1 MiB) are accepted")) {
            try DaemonConfiguration.load(path: big, uid: 0, environment: [:])
        }
        #expect(throws: ConfigurationError(code: .unreadable, path: dir.path, message: "not a regular file")) {
            try DaemonConfiguration.load(path: dir.path, uid: 0, environment: [:])
        }
    }

    // MARK: Other sources

    @Test func embeddedDefaultFollowsXDG() throws {
        let grocery = try ContainerID("com.example.grocery")
        let xdg = DaemonConfiguration.embeddedDefault(
            uid: 1000, environment: ["XDG_DATA_HOME": "/data/alice/", "HOME": "/home/alice", "XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(xdg.source == "embedded default")
        #expect(xdg.socketPath == "/run/user/1000/ubiquity/ubiquityd.sock")
        #expect(xdg.roots == [RootDeclaration(path: "/data/alice/ubiquity/containers", packageTypes: ["gro": "com.example.grocery.package"])])
        #expect(xdg.containers == [ContainerDeclaration(id: grocery, packageTypes: ["gro": "com.example.grocery.package"], create: true)])
        #expect(xdg.path(of: xdg.containers[0]) == "/data/alice/ubiquity/containers/com.example.grocery")
        #expect(xdg.batchingInterval == .milliseconds(50))
        #expect(xdg.limits == ServerLimits())

        // A relative XDG_DATA_HOME is ignored, as the XDG specification asks.
        let home = DaemonConfiguration.embeddedDefault(uid: 1000, environment: ["XDG_DATA_HOME": "data", "HOME": "/home/alice"])
        #expect(home.roots[0].path == "/home/alice/.local/share/ubiquity/containers")
        #expect(home.socketPath == "/tmp/ubiquity-1000/ubiquityd.sock")
        #expect(DaemonConfiguration.embeddedDefault(uid: 0, environment: ["HOME": "/root"]).socketPath == "/run/ubiquity/ubiquityd.sock")
    }

    @Test func rootOnlyServesEveryContainerOfOneDirectory() {
        let configuration = DaemonConfiguration.rootOnly("/srv/c/", socketPath: "/tmp/t.sock")
        #expect(configuration.source == "--root /srv/c/")
        #expect(configuration.socketPath == "/tmp/t.sock")
        #expect(configuration.roots == [RootDeclaration(path: "/srv/c", packageTypes: ["gro": "com.example.grocery.package"])])
        #expect(configuration.containers.isEmpty)
        #expect(DaemonConfiguration.rootOnly("relative/dir", socketPath: "/s").roots[0].path.hasSuffix("/relative/dir"))
        #expect(DaemonConfiguration.rootOnly("relative/dir", socketPath: "/s").roots[0].path.hasPrefix("/"))
    }

    @Test func defaultPathDependsOnUser() {
        #expect(DaemonConfiguration.defaultPath(uid: 0, environment: ["HOME": "/root"]) == "/etc/ubiquity/ubiquityd.toml")
        #expect(DaemonConfiguration.defaultPath(uid: 1000, environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/a"])
            == "/cfg/ubiquity/ubiquityd.toml")
        #expect(DaemonConfiguration.defaultPath(uid: 1000, environment: ["HOME": "/home/a"]) == "/home/a/.config/ubiquity/ubiquityd.toml")
        #expect(DaemonConfiguration.defaultPath(uid: 1000, environment: [:]) == nil)
    }

    @Test func selectAppliesFlagsThenFileThenEmbeddedDefault() throws {
        let dir = try TemporaryDirectory()
        let environment = ["HOME": dir.path, "XDG_RUNTIME_DIR": "/run/user/1000"]
        // No file: the embedded default, with --socket applied.
        let embedded = try DaemonConfiguration.select(configPath: nil, root: nil, socketPath: "/tmp/x.sock", uid: 1000, environment: environment)
        #expect(embedded.source == "embedded default")
        #expect(embedded.socketPath == "/tmp/x.sock")
        // The default file once it exists.
        try makeDirectories(dir.path + "/.config/ubiquity")
        try writeFile(dir.path + "/.config/ubiquity/ubiquityd.toml", "log_level = \"error\"\n")
        let file = try DaemonConfiguration.select(configPath: nil, root: nil, socketPath: nil, uid: 1000, environment: environment)
        #expect(file.source == dir.path + "/.config/ubiquity/ubiquityd.toml")
        #expect(file.logLevel == "error")
        #expect(file.socketPath == "/run/user/1000/ubiquity/ubiquityd.sock")
        // --root wins over every file.
        let root = try DaemonConfiguration.select(configPath: nil, root: "/srv/c", socketPath: nil, uid: 1000, environment: environment)
        #expect(root.source == "--root /srv/c")
        #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.select(configPath: "/x.toml", root: "/srv/c", socketPath: nil, uid: 1000, environment: environment)
        }
    }

    /// The system service runs as the unprivileged `ubiquity` user (uid 997 here), not root, and
    /// has no XDG_RUNTIME_DIR: its default socket must still be the socket unit's
    /// /run/ubiquity/ubiquityd.sock, never a per-user /tmp/ubiquity-997 inside its private /tmp.
    @Test func theServiceDefaultSocketIsItsRuntimeDirectoryWhoeverItRunsAs() throws {
        let system = ["RUNTIME_DIRECTORY": "/run/ubiquity", "HOME": "/var/lib/ubiquity"]
        #expect(DaemonConfiguration.defaultSocketPath(uid: 997, environment: system) == "/run/ubiquity/ubiquityd.sock")
        // The shipped file with its `socket` line commented out, read by the service user.
        let shipped = try DaemonConfiguration.load(path: ShippedConfigurationTests.configDirectory + "/ubiquityd.toml",
                                                   uid: 997, environment: system)
        #expect(shipped.socketPath == "/run/ubiquity/ubiquityd.sock")
        let selected = try DaemonConfiguration.select(configPath: nil, root: "/srv/c", socketPath: nil, uid: 997, environment: system)
        #expect(selected.socketPath == "/run/ubiquity/ubiquityd.sock")
        #expect(DaemonConfiguration.embeddedDefault(uid: 997, environment: system).socketPath == "/run/ubiquity/ubiquityd.sock")
        // The per-user unit's runtime directory is where clients look for this user's daemon.
        let user = ["RUNTIME_DIRECTORY": "/run/user/1000/ubiquity/", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(DaemonConfiguration.defaultSocketPath(uid: 1000, environment: user)
            == WireProtocol.defaultSocketPath(uid: 1000, environment: user))
        // systemd lists several directories colon-separated: the first is ours; relative ones are ignored.
        #expect(DaemonConfiguration.defaultSocketPath(uid: 997, environment: ["RUNTIME_DIRECTORY": "/run/ubiquity:/run/other"])
            == "/run/ubiquity/ubiquityd.sock")
        #expect(DaemonConfiguration.defaultSocketPath(uid: 997, environment: ["RUNTIME_DIRECTORY": "run/ubiquity"])
            == "/tmp/ubiquity-997/ubiquityd.sock")
        // Started by hand, outside any unit: the protocol's default, as before.
        #expect(DaemonConfiguration.defaultSocketPath(uid: 1000, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
            == "/run/user/1000/ubiquity/ubiquityd.sock")
    }

    @Test func summaryExplainsEverySetting() throws {
        let configuration = try parse("""
            [[roots]]
            path = "/var/lib/ubiquity/containers"
            packages = { gro = "com.example.grocery.package" }
            [[containers]]
            id = "com.example.grocery"
            owner = 0
            """)
        let summary = configuration.summary()
        #expect(summary.contains("configuration                 ubiquityd.toml\n"))
        #expect(summary.contains("socket                        /run/user/1000/ubiquity/ubiquityd.sock\n"))
        #expect(summary.contains("batching                      50 ms for queries that name no interval\n"))
        #expect(summary.contains("  max_queries_per_connection  64\n"))
        #expect(summary.contains("containers (1, the default)\n  com.example.grocery\n    path                      /var/lib/ubiquity/containers/com.example.grocery\n"))
        #expect(summary.contains("    owner                     root (uid 0)\n"))
        #expect(summary.contains("    packages                  gro = com.example.grocery.package\n"))
    }
}

// MARK: - Every shipped file parses

@Suite("Config files")
struct ShippedConfigurationTests {
    static let configDirectory: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return path + "/Config"
    }()

    static var files: [String] {
        var found: [String] = []
        var pending = [configDirectory]
        while let dir = pending.popLast() {
            guard case .success(let names) = DaemonConfiguration.listDirectory(dir) else { continue }
            for name in names.sorted() {
                if name.hasSuffix(".toml") { found.append(dir + "/" + name) } else { pending.append(dir + "/" + name) }
            }
        }
        return found.sorted()
    }

    @Test func theShippedFilesAreFound() {
        #expect(Self.files.map { String($0.dropFirst(Self.configDirectory.count)) }
            == ["/examples/per-user.toml", "/examples/shared-team.toml", "/ubiquityd.toml"])
    }

    @Test(arguments: files)
    func shippedFileParses(_ path: String) throws {
        var text = String(decoding: try readFile(path, limit: TOML.maxBytes), as: UTF8.self)
        // The examples name people and groups a test machine may not have.
        if Accounts.uid(named: "alice") == nil { text = text.replacing("owner = \"alice\"", with: "owner = \"root\"") }
        if Accounts.gid(named: "grocery") == nil { text = text.replacing("group = \"grocery\"", with: "group = \"root\"") }
        let configuration: DaemonConfiguration
        do {
            configuration = try DaemonConfiguration.parse(text, path: path, uid: 0, environment: [:])
        } catch {
            Issue.record("\(error)")
            return
        }
        #expect(!configuration.roots.isEmpty)
        #expect(!configuration.containers.isEmpty)
        #expect(!configuration.summary().isEmpty)
    }

    @Test func theDefaultFileSpellsOutTheBuiltInDefaults() throws {
        let configuration = try DaemonConfiguration.load(path: Self.configDirectory + "/ubiquityd.toml", uid: 0, environment: [:])
        #expect(configuration.socketPath == "/run/ubiquity/ubiquityd.sock")
        #expect(configuration.batchingInterval == .milliseconds(50))
        #expect(configuration.watchBudget == nil)
        #expect(configuration.rescanInterval == .seconds(10))
        #expect(configuration.history == ChangeHistory.Retention())
        #expect(configuration.logLevel == "info")
        #expect(configuration.limits == ServerLimits())
        #expect(configuration.roots == [RootDeclaration(path: "/var/lib/ubiquity/containers", packageTypes: DaemonConfiguration.defaultPackageTypes)])
        #expect(configuration.containers.map(\.id.rawValue) == ["com.example.grocery"])
    }
}

// MARK: - Resolving containers on disk

@Suite("Container resolution")
struct ContainerResolutionTests {
    let gro = DaemonConfiguration.defaultPackageTypes

    @Test func discoversIdDirectoriesAndIgnoresTheRest() throws {
        let dir = try TemporaryDirectory()
        let root = dir.path + "/root"
        for name in ["com.b.two", "com.a.one", "NotAnID", ".hidden", "com.x..y"] { try makeDirectories(root + "/" + name) }
        try writeFile(root + "/com.plain.file", "not a directory")
        #expect(symlink(root + "/com.a.one", root + "/com.link.three") == 0)

        let resolution = DaemonConfiguration.rootOnly(root, socketPath: "/s").resolveContainers()
        #expect(resolution.containers.map(\.descriptor.id.rawValue) == ["com.a.one", "com.b.two"])
        #expect(resolution.containers.allSatisfy { $0.available && $0.groupGID == nil && $0.ownerUID == geteuid() })
        #expect(resolution.containers[0].descriptor == ContainerDescriptor(id: try ContainerID("com.a.one"), root: root + "/com.a.one", packageTypes: gro))
        #expect(resolution.problems.isEmpty)
        #expect(resolution.notes == [
            "ignored \(root)/NotAnID: not a container id (expected reverse-DNS form such as com.example.app)",
            "ignored \(root)/com.link.three: a symbolic link; a container must be a real directory",
            "ignored \(root)/com.x..y: not a container id (it has an empty label ('..' or a dot at an end))",
        ])
    }

    @Test func declaredContainersComeFirstAndWinOverDiscovery() throws {
        let dir = try TemporaryDirectory()
        try makeDirectories(dir.path + "/r1/com.a.found")
        try makeDirectories(dir.path + "/r1/com.z.declared")
        try makeDirectories(dir.path + "/r1/com.twice.here")
        try makeDirectories(dir.path + "/r2/com.twice.here")
        try makeDirectories(dir.path + "/r2/com.m.declared")
        try makeDirectories(dir.path + "/elsewhere")
        let configuration = DaemonConfiguration(
            socketPath: "/s",
            roots: [RootDeclaration(path: dir.path + "/r1", packageTypes: gro), RootDeclaration(path: dir.path + "/r2", group: 4242)],
            containers: [
                ContainerDeclaration(id: try ContainerID("com.z.declared"), create: false),
                ContainerDeclaration(id: try ContainerID("com.m.declared"), path: dir.path + "/elsewhere", owner: 777, create: false),
            ],
            source: "test")
        let resolution = configuration.resolveContainers()
        #expect(resolution.containers.map(\.descriptor.id.rawValue) == ["com.z.declared", "com.m.declared", "com.a.found", "com.twice.here"])
        #expect(resolution.containers.map(\.descriptor.root) == [
            dir.path + "/r1/com.z.declared", dir.path + "/elsewhere", dir.path + "/r1/com.a.found", dir.path + "/r1/com.twice.here",
        ])
        #expect(resolution.containers[1].ownerUID == 777)
        #expect(resolution.containers[3].groupGID == nil)  // served from r1, which has no group
        #expect(resolution.problems == ["container com.twice.here is in two roots: serving \(dir.path)/r1/com.twice.here, ignoring \(dir.path)/r2/com.twice.here"])
        #expect(resolution.notes == ["ignored \(dir.path)/r2/com.m.declared: container com.m.declared is declared with path \(dir.path)/elsewhere"])
    }

    @Test func aMissingRootOrContainerIsAProblemNotAFailure() throws {
        let dir = try TemporaryDirectory()
        try makeDirectories(dir.path + "/present/com.a.b")
        let configuration = DaemonConfiguration(
            socketPath: "/s",
            roots: [RootDeclaration(path: dir.path + "/missing"), RootDeclaration(path: dir.path + "/present")],
            containers: [ContainerDeclaration(id: try ContainerID("com.not.there"), path: dir.path + "/nothere", owner: 54321, create: false)],
            source: "test")
        let resolution = configuration.resolveContainers()
        #expect(resolution.containers.map(\.descriptor.id.rawValue) == ["com.not.there", "com.a.b"])
        #expect(resolution.containers.map(\.available) == [false, true])
        #expect(resolution.containers[0].ownerUID == 54321)
        #expect(resolution.problems == [
            "container com.not.there: \(dir.path)/nothere does not exist (create = false)",
            "root \(dir.path)/missing does not exist; its containers appear after it exists and the daemon is reloaded (SIGHUP)",
        ])
        #expect(resolution.summary().contains("com.not.there  \(dir.path)/nothere  owner uid 54321  [unavailable]"))
    }

    /// `--check-config` changes nothing: a container it would create is a note, and no directory
    /// appears (as root it would be root's, and the service's user could not open it).
    @Test func checkingCreatesNothing() throws {
        let dir = try TemporaryDirectory()
        let configuration = DaemonConfiguration.embeddedDefault(uid: geteuid(), environment: ["XDG_DATA_HOME": dir.path + "/data"])
        let checked = configuration.resolveContainers(creating: false)
        let container = dir.path + "/data/ubiquity/containers/com.example.grocery"
        #expect(access(dir.path + "/data", F_OK) != 0, "--check-config created \(dir.path)/data")
        #expect(checked.problems.isEmpty)
        #expect(checked.notes == ["container com.example.grocery: \(container) does not exist yet; the daemon creates it when it starts (create = true)",
                                  "root \(dir.path)/data/ubiquity/containers does not exist yet; the daemon creates it with its containers when it starts"])
        #expect(checked.containers.map(\.available) == [false])
        #expect(configuration.resolveContainers().containers.map(\.available) == [true])
    }

    @Test func createsDeclaredContainersWithPrivateDocuments() throws {
        let dir = try TemporaryDirectory()
        let configuration = DaemonConfiguration.embeddedDefault(uid: geteuid(), environment: ["XDG_DATA_HOME": dir.path + "/data"])
        let resolution = configuration.resolveContainers()
        let container = dir.path + "/data/ubiquity/containers/com.example.grocery"
        #expect(resolution.problems.isEmpty)
        #expect(resolution.containers == [ResolvedContainer(
            descriptor: ContainerDescriptor(id: try ContainerID("com.example.grocery"), root: container, packageTypes: gro),
            ownerUID: geteuid(), groupGID: nil, available: true)])
        for path in [container, container + "/Documents"] {
            let info = try status(path)
            #expect(info.st_mode & S_IFMT == S_IFDIR)
            #expect(info.st_mode & 0o077 == 0, "\(path) is private")
        }
        // A second run finds everything in place and changes nothing.
        #expect(configuration.resolveContainers() == resolution)
    }

    @Test func createdContainersGoToTheirOwnerAndGroup() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/team/shared"
        let asRoot = geteuid() == 0
        let configuration = DaemonConfiguration(
            socketPath: "/s",
            containers: [ContainerDeclaration(id: try ContainerID("com.team.shared"), path: path,
                                              owner: asRoot ? 4321 : nil, group: getegid())],
            source: "test")
        let resolution = configuration.resolveContainers()
        #expect(resolution.problems.isEmpty)
        #expect(resolution.containers.first?.ownerUID == (asRoot ? 4321 : geteuid()))
        #expect(resolution.containers.first?.groupGID == getegid())
        for created in [path, path + "/Documents"] {
            let info = try status(created)
            #expect(info.st_mode & 0o007 == 0 && info.st_mode & 0o020 == 0, "group may read, nobody else")
            #expect(info.st_mode & 0o700 == 0o700)
            if asRoot { #expect(info.st_uid == 4321) }
            #expect(info.st_gid == getegid())
        }
    }

    @Test func ownerComesFromTheDirectory() throws {
        guard geteuid() == 0 else { return }  // chown to another uid needs root
        let dir = try TemporaryDirectory()
        try makeDirectories(dir.path + "/root/com.owned.dir")
        #expect(chown(dir.path + "/root/com.owned.dir", 31337, 31338) == 0)
        let resolution = DaemonConfiguration.rootOnly(dir.path + "/root", socketPath: "/s").resolveContainers()
        #expect(resolution.containers.first?.ownerUID == 31337)
        #expect(resolution.containers.first?.groupGID == nil)  // the directory's group grants nothing
    }

    @Test func anExistingFileInTheWayIsAProblem() throws {
        let dir = try TemporaryDirectory()
        try writeFile(dir.path + "/file", "x")
        let configuration = DaemonConfiguration(
            socketPath: "/s", containers: [ContainerDeclaration(id: try ContainerID("com.in.way"), path: dir.path + "/file")], source: "t")
        let resolution = configuration.resolveContainers()
        #expect(resolution.containers.map(\.available) == [false])
        #expect(resolution.problems == ["container com.in.way: \(dir.path)/file exists and is not a directory"])
    }
}

// MARK: - Helpers

func makeDirectories(_ path: String) throws {
    var partial = ""
    for part in path.split(separator: "/") {
        partial += "/" + part
        if mkdir(partial, 0o755) != 0 && errno != EEXIST { throw TestFailure("mkdir \(partial): \(errno)") }
    }
}

func writeFile(_ path: String, _ text: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw TestFailure("open \(path): \(errno)") }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else { throw TestFailure("write \(path)") }
}

func status(_ path: String) throws -> stat {
    var info = stat()
    guard lstat(path, &info) == 0 else { throw TestFailure("lstat \(path): \(errno)") }
    return info
}

/// `rm -rf` without following symbolic links.
func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if info.st_mode & S_IFMT == S_IFDIR, case .success(let names) = DaemonConfiguration.listDirectory(path) {
        for name in names { removeTree(path + "/" + name) }
        rmdir(path)
    } else {
        unlink(path)
    }
}
