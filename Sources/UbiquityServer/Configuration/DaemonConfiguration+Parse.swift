import UbiquitySystem
import UbiquityKeyValue
import Glibc
import UbiquityIndex
import UbiquityPredicate
import UbiquityProtocol
import UbiquityStoreFiles
import UbiquityTOML

// The ubiquityd.toml schema: which keys exist, their types, defaults and ranges
// (docs/configuration.md documents the same table; keep the two in step).

extension DaemonConfiguration {
    /// The ranges every numeric key must fall in; the documentation quotes them.
    enum Range {
        static let batchingIntervalMilliseconds: ClosedRange<Int64> = 0...60_000
        static let watchBudget: ClosedRange<Int64> = 0...Int64(Int32.max)
        static let rescanIntervalSeconds: ClosedRange<Int64> = 1...86_400
        static let historyMaxChanges: ClosedRange<Int64> = 1...10_000_000
        static let historyMaxAgeSeconds: ClosedRange<Int64> = 1...2_592_000
        static let indexSaveIntervalSeconds: ClosedRange<Int64> = 10...86_400
        static let maxLineBytes: ClosedRange<Int64> = 1024...(64 << 20)
        static let maxConnections: ClosedRange<Int64> = 1...65_536
        static let maxQueriesPerConnection: ClosedRange<Int64> = 1...4096
        static let pendingItemsPerQuery: ClosedRange<Int64> = 100...10_000_000
        static let maxQueriesPerPeer: ClosedRange<Int64> = 1...1_000_000
        static let maxResultItemsPerPeer: ClosedRange<Int64> = 1...1_000_000_000
        /// uid_t / gid_t, without (uid_t)-1, which chown reads as "leave unchanged".
        static let keyValueMaxKeys: ClosedRange<Int64> = 1...1_000_000
        /// At most 8 MiB: the read limits (``KVReadLimits``, twice this per file) stay bounded.
        static let keyValueMaxBytes: ClosedRange<Int64> = 1...(8 << 20)
        static let keyValueMaxKeyBytes: ClosedRange<Int64> = 1...4096
        static let accountID: ClosedRange<Int64> = 0...Int64(UInt32.max - 1)
        static let publishExpirySeconds: ClosedRange<Int64> = 1...31_536_000
        static let publishItemsPerPeer: ClosedRange<Int64> = 1...Int64(PublishSettings.maxSnapshots)
        static let publishBytesPerPeer: ClosedRange<Int64> = 1...(1 << 30)
        /// 0: never; at most a million segments between two snapshots.
        static let storeSnapshotEvery: ClosedRange<Int64> = 0...1_000_000
        /// One minute to ten years.
        static let storeSilentAfterSeconds: ClosedRange<Int64> = 60...315_360_000
        static let storeFloorAfterSeconds: ClosedRange<Int64> = 0...315_360_000
        static let syncFolderRequestTimeoutSeconds: ClosedRange<Int64> = 1...3600
    }

    static let topLevelKeys = [
        "socket", "batching_interval_ms", "watch_budget", "rescan_interval_s", "history_max_changes", "history_max_age_s",
        "save_index", "index_save_interval_s", "log_level",
        "limits", "key_value", "stores", "roots", "containers", "publish", "sync",
    ]
    static let syncKeys = ["engine", "address", "api_key", "config_xml", "folder_request_timeout_s"]
    static let keyValueKeys = ["max_keys", "max_bytes", "max_key_bytes"]
    static let storeKeys = ["snapshot_every", "silent_after_s", "floor_after_s"]
    static let publishKeys = ["listen", "allow_non_loopback", "default_expiry_s", "max_expiry_s", "max_items_per_peer", "max_bytes_per_peer"]
    static let limitKeys = ["max_line_bytes", "max_connections", "max_queries_per_connection", "pending_items_per_query",
                            "max_queries_per_peer", "max_result_items_per_peer"]
    static let rootKeys = ["path", "packages", "owner", "group"]
    static let containerKeys = ["id", "path", "owner", "group", "packages", "create"]

    /// Reads and validates a configuration file.
    ///
    /// - Parameters:
    ///   - path: The file; messages name it as given.
    ///   - uid: The daemon's effective uid (picks the default socket path).
    ///   - environment: For the default socket path (`RUNTIME_DIRECTORY`, `XDG_RUNTIME_DIR`).
    /// - Throws: ``ConfigurationError``: `config.unreadable` if the file cannot be read or is over
    ///   1 MiB; otherwise as ``parse(_:path:uid:environment:)``.
    public static func load(path: String, uid: UInt32, environment: [String: String]) throws(ConfigurationError) -> DaemonConfiguration {
        let bytes: [UInt8]
        do { bytes = try readFile(path, limit: TOML.maxBytes) } catch {
            throw ConfigurationError(code: .unreadable, path: path, message: error.message)
        }
        return try parse(bytes: bytes, path: path, uid: uid, environment: environment)
    }

    /// Validates configuration text.
    ///
    /// - Parameter path: Only names the text in messages and becomes ``source``.
    /// - Throws: ``ConfigurationError`` with one `config.syntax` diagnostic for text outside the
    ///   TOML subset, or every semantic problem of the file, in file order.
    public static func parse(_ text: String, path: String, uid: UInt32, environment: [String: String]) throws(ConfigurationError) -> DaemonConfiguration {
        try parse(bytes: Array(text.utf8), path: path, uid: uid, environment: environment)
    }

    static func parse(bytes: [UInt8], path: String, uid: UInt32, environment: [String: String]) throws(ConfigurationError) -> DaemonConfiguration {
        let document: TOMLTable
        do { document = try TOML.parse(bytes) } catch {
            throw ConfigurationError(code: .syntax, path: path, line: error.position.line,
                                     column: error.position.column, message: error.message)
        }
        var reader = SchemaReader(path: path)
        let configuration = reader.configuration(document, uid: uid, environment: environment)
        guard reader.diagnostics.isEmpty, let configuration else {
            throw ConfigurationError(reader.diagnostics.sorted { ($0.line, $0.column) < ($1.line, $1.column) })
        }
        return configuration
    }
}

/// Walks a parsed document, collecting every problem instead of stopping at the first.
private struct SchemaReader {
    let path: String
    var diagnostics: [ConfigurationError.Diagnostic] = []

    init(path: String) { self.path = path }

    mutating func report(_ code: ConfigurationError.Code, _ position: TOMLPosition, _ message: String) {
        diagnostics.append(.init(code: code, path: path, line: position.line, column: position.column, message: message))
    }

    // MARK: - The document

    mutating func configuration(_ document: TOMLTable, uid: UInt32, environment: [String: String]) -> DaemonConfiguration? {
        checkKeys(document, allowed: DaemonConfiguration.topLevelKeys, in: nil)
        var configuration = DaemonConfiguration(
            socketPath: DaemonConfiguration.defaultSocketPath(uid: uid, environment: environment), source: path)

        if let (socket, position) = string(document, "socket") {
            if let path = absolutePath(socket, key: "socket", at: position) {
                // sun_path holds 108 bytes including the terminating NUL.
                if path.utf8.count > 107 {
                    report(.invalidValue, position, "'socket' is \(path.utf8.count) bytes long; a Unix socket path holds at most 107")
                } else {
                    configuration.socketPath = path
                }
            }
        }
        if let ms = integer(document, "batching_interval_ms", DaemonConfiguration.Range.batchingIntervalMilliseconds, unit: "milliseconds") {
            configuration.batchingInterval = .milliseconds(ms)
            configuration.limits.defaultBatchingInterval = configuration.batchingInterval.seconds
        }
        if let budget = integer(document, "watch_budget", DaemonConfiguration.Range.watchBudget, unit: "watches; 0 means the default") {
            configuration.watchBudget = budget == 0 ? nil : Int(budget)
        }
        if let seconds = integer(document, "rescan_interval_s", DaemonConfiguration.Range.rescanIntervalSeconds, unit: "seconds") {
            configuration.rescanInterval = .seconds(seconds)
        }
        if let count = integer(document, "history_max_changes", DaemonConfiguration.Range.historyMaxChanges, unit: "changes") {
            configuration.history.maxChanges = Int(count)
        }
        if let seconds = integer(document, "history_max_age_s", DaemonConfiguration.Range.historyMaxAgeSeconds, unit: "seconds") {
            configuration.history.maxAge = .seconds(seconds)
        }
        if let save = boolean(document, "save_index") {
            configuration.savesIndex = save
        }
        // 0: back to back (what `make bench-load` measures a save's cost to live queries with).
        if case .integer(0)? = document["index_save_interval_s"]?.kind {
            configuration.indexSaveInterval = .zero
        } else if let seconds = integer(document, "index_save_interval_s", DaemonConfiguration.Range.indexSaveIntervalSeconds, unit: "seconds") {
            configuration.indexSaveInterval = .seconds(seconds)
        }
        if let (level, position) = string(document, "log_level") {
            if DaemonConfiguration.logLevels.contains(level) {
                configuration.logLevel = level
            } else {
                let hint = NameSuggestion.nearest(to: level, in: DaemonConfiguration.logLevels).map { "; did you mean '\($0)'?" } ?? ""
                report(.invalidValue, position,
                       "'log_level' must be one of \(DaemonConfiguration.logLevels.joined(separator: ", ")); found '\(level)'\(hint)")
            }
        }
        if let limits = table(document, "limits", as: "a table ([limits])") {
            readLimits(limits, into: &configuration.limits)
        }
        if let quota = table(document, "key_value", as: "a table ([key_value])") {
            readKeyValueQuota(quota, into: &configuration.keyValueQuota)
        }
        if let stores = table(document, "stores", as: "a table ([stores])") {
            readStores(stores, into: &configuration.storeCompaction)
        }
        if let publish = table(document, "publish", as: "a table ([publish])") {
            readPublish(publish, into: &configuration.publish)
        }
        if let value = document["sync"], let sync = table(document, "sync", as: "a table ([sync])") {
            configuration.sync = readSync(sync, at: value.position)
        }
        var rootPaths: [String: TOMLPosition] = [:]
        for (root, position) in arrayOfTables(document, "roots") {
            guard let declaration = readRoot(root, at: position),
                  claim(declaration.path, in: &rootPaths, at: position, "root '\(declaration.path)'") else { continue }
            configuration.roots.append(declaration)
        }
        var ids: [ContainerID: TOMLPosition] = [:]
        var containerPaths: [String: (ContainerID, TOMLPosition)] = [:]
        for (container, position) in arrayOfTables(document, "containers") {
            guard var declaration = readContainer(container, at: position),
                  claim(declaration.id, in: &ids, at: position, "container '\(declaration.id)'") else { continue }
            guard let path = configuration.path(of: declaration) else {
                report(.missingKey, position,
                       "container '\(declaration.id)' has no 'path' and there is no [[roots]] to put it in")
                continue
            }
            if let (other, first) = containerPaths[path] {
                report(.conflict, position,
                       "containers '\(other)' (line \(first.line)) and '\(declaration.id)' have the same path '\(path)'")
                continue
            }
            containerPaths[path] = (declaration.id, position)
            inherit(&declaration, at: path, from: configuration.roots)
            configuration.containers.append(declaration)
        }
        return diagnostics.isEmpty ? configuration : nil
    }

    /// Records the first declaration of `key`; a second one is a conflict naming the first line.
    mutating func claim<Key: Hashable>(_ key: Key, in seen: inout [Key: TOMLPosition], at position: TOMLPosition, _ what: String) -> Bool {
        if let first = seen[key] {
            report(.conflict, position, "\(what) is declared twice (first at line \(first.line))")
            return false
        }
        seen[key] = position
        return true
    }

    /// A declared container directly inside a root takes the root's settings it does not override.
    func inherit(_ declaration: inout ContainerDeclaration, at path: String, from roots: [RootDeclaration]) {
        guard let root = roots.first(where: { DaemonConfiguration.join($0.path, declaration.id.rawValue) == path }) else { return }
        declaration.packageTypes = root.packageTypes.merging(declaration.packageTypes) { _, own in own }
        declaration.owner = declaration.owner ?? root.owner
        declaration.group = declaration.group ?? root.group
    }

    mutating func readLimits(_ table: TOMLTable, into limits: inout ServerLimits) {
        checkKeys(table, allowed: DaemonConfiguration.limitKeys, in: "[limits]")
        typealias R = DaemonConfiguration.Range
        if let v = integer(table, "max_line_bytes", R.maxLineBytes, unit: "bytes") { limits.maxLineBytes = Int(v) }
        if let v = integer(table, "max_connections", R.maxConnections, unit: "connections") { limits.maxConnections = Int(v) }
        if let v = integer(table, "max_queries_per_connection", R.maxQueriesPerConnection, unit: "queries") {
            limits.maxQueriesPerConnection = Int(v)
        }
        if let v = integer(table, "pending_items_per_query", R.pendingItemsPerQuery, unit: "items") { limits.pendingItemsPerQuery = Int(v) }
        if let v = integer(table, "max_queries_per_peer", R.maxQueriesPerPeer, unit: "queries") { limits.maxQueriesPerPeer = Int(v) }
        if let v = integer(table, "max_result_items_per_peer", R.maxResultItemsPerPeer, unit: "items") {
            limits.maxResultItemsPerPeer = Int(v)
        }
    }

    mutating func readKeyValueQuota(_ table: TOMLTable, into quota: inout KVQuota) {
        checkKeys(table, allowed: DaemonConfiguration.keyValueKeys, in: "[key_value]")
        typealias R = DaemonConfiguration.Range
        if let v = integer(table, "max_keys", R.keyValueMaxKeys, unit: "keys") { quota.maxKeys = Int(v) }
        if let v = integer(table, "max_bytes", R.keyValueMaxBytes, unit: "bytes") { quota.maxBytes = Int(v) }
        if let v = integer(table, "max_key_bytes", R.keyValueMaxKeyBytes, unit: "bytes") { quota.maxKeyBytes = Int(v) }
    }

    /// `[stores]`: when relational stores write snapshots, call a device silent and shrink deleted rows.
    mutating func readStores(_ table: TOMLTable, into policy: inout CompactionPolicy) {
        checkKeys(table, allowed: DaemonConfiguration.storeKeys, in: "[stores]")
        typealias R = DaemonConfiguration.Range
        if let v = integer(table, "snapshot_every", R.storeSnapshotEvery, unit: "segments; 0 means never") { policy.snapshotEvery = UInt64(v) }
        if let v = integer(table, "silent_after_s", R.storeSilentAfterSeconds, unit: "seconds") { policy.silentAfterMilliseconds = v * 1000 }
        if let v = integer(table, "floor_after_s", R.storeFloorAfterSeconds, unit: "seconds") { policy.floorAfterMilliseconds = v * 1000 }
    }

    /// `[sync]`: the engine, and where its address and key come from; nil when refused.
    mutating func readSync(_ table: TOMLTable, at position: TOMLPosition) -> SyncEngineSettings? {
        checkKeys(table, allowed: DaemonConfiguration.syncKeys, in: "[sync]")
        var settings = SyncEngineSettings()
        var valid = true
        if let (engine, enginePosition) = string(table, "engine", required: position, in: "[sync]") {
            if SyncEngineSettings.engines.contains(engine) {
                settings.engine = engine
            } else {
                report(.invalidValue, enginePosition, "'engine' in [sync] must be one of \(SyncEngineSettings.engines.joined(separator: ", ")); found '\(engine)'")
                valid = false
            }
        } else {
            valid = false
        }
        if let (text, addressPosition) = string(table, "address") {
            switch EngineAddress.parse(text) {
            case .success(let address): settings.address = address
            case .failure(let problem):
                report(.invalidValue, addressPosition, "'address' in [sync]: \(problem.description)")
                valid = false
            }
        }
        if let (key, keyPosition) = string(table, "api_key") {
            if key.isEmpty || key.utf8.contains(where: { $0 < 0x21 || $0 > 0x7E }) {
                report(.invalidValue, keyPosition, "'api_key' in [sync] must be printable ASCII without spaces")
                valid = false
            } else {
                settings.apiKey = key
            }
        }
        if let (file, filePosition) = string(table, "config_xml") {
            if file.hasPrefix("/") {
                settings.configXML = file
            } else {
                report(.invalidValue, filePosition, "'config_xml' in [sync] must be an absolute path, found '\(file)'")
                valid = false
            }
        }
        if let seconds = integer(table, "folder_request_timeout_s", DaemonConfiguration.Range.syncFolderRequestTimeoutSeconds, unit: "seconds") {
            settings.folderRequestTimeoutSeconds = seconds
        }
        if valid && settings.configXML == nil && (settings.address == nil || settings.apiKey == nil) {
            report(.missingKey, position,
                   "[sync] needs 'config_xml' (Syncthing's config.xml, for its address and API key), or both 'address' and 'api_key'")
            valid = false
        }
        return valid ? settings : nil
    }

    mutating func readPublish(_ table: TOMLTable, into publish: inout PublishSettings) {
        checkKeys(table, allowed: DaemonConfiguration.publishKeys, in: "[publish]")
        typealias R = DaemonConfiguration.Range
        publish.allowNonLoopback = boolean(table, "allow_non_loopback") ?? false
        if let (text, position) = string(table, "listen") {
            switch ListenAddress.parse(text) {
            case .failure(let problem):
                report(.invalidValue, position, "'listen' in [publish]: \(problem)")
            case .success(let address) where !address.isLoopback && !publish.allowNonLoopback:
                report(.invalidValue, position,
                       "'listen' in [publish] is \(address), which other machines can reach: anyone who learns a link could fetch it, in clear text; listen on 127.0.0.1 or [::1] (behind a proxy that adds TLS), or set allow_non_loopback = true")
            case .success(let address):
                publish.listen = address
            }
        }
        if let v = integer(table, "max_expiry_s", R.publishExpirySeconds, unit: "seconds") {
            publish.maxExpiry = .seconds(v)
            publish.defaultExpiry = min(publish.defaultExpiry, publish.maxExpiry)    // unless given below
        }
        if let value = table["default_expiry_s"], let v = integer(table, "default_expiry_s", R.publishExpirySeconds, unit: "seconds") {
            if v > publish.maxExpiry.components.seconds {
                report(.conflict, value.position, "'default_expiry_s' (\(v)) is longer than 'max_expiry_s' (\(publish.maxExpiry.components.seconds))")
            } else {
                publish.defaultExpiry = .seconds(v)
            }
        }
        if let v = integer(table, "max_items_per_peer", R.publishItemsPerPeer, unit: "snapshots") { publish.maxItemsPerPeer = Int(v) }
        if let v = integer(table, "max_bytes_per_peer", R.publishBytesPerPeer, unit: "bytes") { publish.maxBytesPerPeer = Int(v) }
    }

    mutating func readRoot(_ table: TOMLTable, at position: TOMLPosition) -> RootDeclaration? {
        checkKeys(table, allowed: DaemonConfiguration.rootKeys, in: "[[roots]]")
        let packages = packageTypes(table)
        let owner = account(table, "owner", user: true)
        let group = account(table, "group", user: false)
        guard let (raw, valuePosition) = string(table, "path", required: position, in: "[[roots]]"),
              let path = absolutePath(raw, key: "path", at: valuePosition) else { return nil }
        return RootDeclaration(path: path, packageTypes: packages, owner: owner, group: group)
    }

    mutating func readContainer(_ table: TOMLTable, at position: TOMLPosition) -> ContainerDeclaration? {
        checkKeys(table, allowed: DaemonConfiguration.containerKeys, in: "[[containers]]")
        let packages = packageTypes(table)
        let owner = account(table, "owner", user: true)
        let group = account(table, "group", user: false)
        let create = boolean(table, "create") ?? true
        var path: String?
        var pathIsValid = true
        if let (raw, valuePosition) = string(table, "path") {
            path = absolutePath(raw, key: "path", at: valuePosition)
            pathIsValid = path != nil
        }
        var id: ContainerID?
        if let (raw, idPosition) = string(table, "id", required: position, in: "[[containers]]") {
            do { id = try ContainerID(raw) } catch { report(.invalidValue, idPosition, error.description) }
        }
        guard let id, pathIsValid else { return nil }
        return ContainerDeclaration(id: id, path: path, owner: owner, group: group, packageTypes: packages, create: create)
    }

    // MARK: - Typed reads; each reports what it refuses and returns nil

    mutating func checkKeys(_ table: TOMLTable, allowed: [String], in context: String?) {
        for entry in table.entries where !allowed.contains(entry.key) {
            let place = context.map { " in \($0)" } ?? ""
            let hint = NameSuggestion.nearest(to: entry.key, in: allowed).map { "; did you mean '\($0)'?" }
                ?? "; expected one of \(allowed.joined(separator: ", "))"
            report(.unknownKey, entry.keyPosition, "unknown key '\(entry.key)'\(place)\(hint)")
        }
    }

    mutating func wrongType(_ key: String, _ value: TOMLValue, expected: String) {
        report(.wrongType, value.position, "'\(key)' must be \(expected), found \(value.typeName)")
    }

    /// A string; when `required` is given, its absence is reported at that position.
    mutating func string(_ table: TOMLTable, _ key: String, required: TOMLPosition? = nil, in context: String = "") -> (String, TOMLPosition)? {
        guard let value = table[key] else {
            if let required { report(.missingKey, required, "\(context) needs '\(key)'") }
            return nil
        }
        guard case .string(let text) = value.kind else { wrongType(key, value, expected: "a string"); return nil }
        return (text, value.position)
    }

    mutating func integer(_ table: TOMLTable, _ key: String, _ range: ClosedRange<Int64>, unit: String) -> Int64? {
        guard let value = table[key] else { return nil }
        guard case .integer(let number) = value.kind else {
            wrongType(key, value, expected: "an integer (\(unit))")
            return nil
        }
        guard range.contains(number) else {
            report(.outOfRange, value.position,
                   "'\(key)' must be between \(range.lowerBound) and \(range.upperBound) (\(unit)); found \(number)")
            return nil
        }
        return number
    }

    mutating func boolean(_ table: TOMLTable, _ key: String) -> Bool? {
        guard let value = table[key] else { return nil }
        guard case .boolean(let flag) = value.kind else { wrongType(key, value, expected: "true or false"); return nil }
        return flag
    }

    mutating func table(_ table: TOMLTable, _ key: String, as expected: String) -> TOMLTable? {
        guard let value = table[key] else { return nil }
        guard case .table(let inner) = value.kind else { wrongType(key, value, expected: expected); return nil }
        return inner
    }

    /// `[[key]]` sections (or an array of inline tables), each with its position.
    mutating func arrayOfTables(_ table: TOMLTable, _ key: String) -> [(TOMLTable, TOMLPosition)] {
        guard let value = table[key] else { return [] }
        guard case .array(let items) = value.kind else {
            wrongType(key, value, expected: "an array of tables, written [[\(key)]]")
            return []
        }
        var tables: [(TOMLTable, TOMLPosition)] = []
        for item in items {
            guard case .table(let inner) = item.kind else {
                report(.wrongType, item.position, "each element of '\(key)' must be a table, found \(item.typeName)")
                continue
            }
            tables.append((inner, item.position))
        }
        return tables
    }

    /// `packages = { ext = "type.identifier", ... }`.
    mutating func packageTypes(_ table: TOMLTable) -> [String: String] {
        guard let packages = self.table(table, "packages", as: "an inline table such as { gro = \"com.example.grocery.package\" }") else {
            return [:]
        }
        var result: [String: String] = [:]
        for entry in packages.entries {
            let ext = entry.key
            if ext.hasPrefix(".") {
                report(.invalidValue, entry.keyPosition, "package extension '\(ext)' must be written without the dot: '\(ext.dropFirst())'")
                continue
            }
            guard !ext.isEmpty, ext.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x2F && $0 != 0x2E && $0 != 0x7F }) else {
                report(.invalidValue, entry.keyPosition,
                       "package extension '\(ext)' must be a non-empty file extension without '.', '/' or spaces")
                continue
            }
            guard case .string(let type) = entry.value.kind else {
                report(.wrongType, entry.value.position,
                       "package type of '\(ext)' must be a string such as \"com.example.grocery.package\", found \(entry.value.typeName)")
                continue
            }
            guard !type.isEmpty, !type.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
                report(.invalidValue, entry.value.position, "package type of '\(ext)' must be a type identifier without spaces, found '\(type)'")
                continue
            }
            if result[ext.lowercased()] != nil {
                report(.conflict, entry.keyPosition, "package extension '\(ext)' is declared twice (extensions ignore case)")
                continue
            }
            result[ext.lowercased()] = type
        }
        return result
    }

    /// `owner` / `group`: a name (resolved now, so a typo fails at load time) or a numeric id.
    mutating func account(_ table: TOMLTable, _ key: String, user: Bool) -> UInt32? {
        guard let value = table[key] else { return nil }
        let kind = user ? "user" : "group"
        switch value.kind {
        case .integer(let number):
            guard DaemonConfiguration.Range.accountID.contains(number) else {
                report(.outOfRange, value.position,
                       "'\(key)' must be a \(kind) name or a numeric id between 0 and \(UInt32.max - 1); found \(number)")
                return nil
            }
            return UInt32(number)
        case .string(let name):
            if let number = UInt32(name), number != UInt32.max { return number }
            let id = user ? Accounts.uid(named: name) : Accounts.gid(named: name)
            guard let id else {
                report(.unknownAccount, value.position,
                       "unknown \(kind) '\(name)' for '\(key)' (not in the \(user ? "passwd" : "group") database; a numeric id is accepted too)")
                return nil
            }
            return id
        default:
            wrongType(key, value, expected: "a \(kind) name (string) or a numeric id (integer)")
            return nil
        }
    }

    /// An absolute, normalised path, or nil after reporting why not.
    mutating func absolutePath(_ raw: String, key: String, at position: TOMLPosition) -> String? {
        let problem: String? =
            if raw.isEmpty { "'\(key)' is empty" }
            else if raw.utf8.contains(0) { "'\(key)' must not contain a NUL character" }
            else if raw.hasPrefix("~") { "'\(key)' starts with '~', which is not expanded; write the absolute path (e.g. /home/alice/...)" }
            else if raw.contains("$") { "'\(key)' contains '$': environment variables such as $HOME are not expanded; write the absolute path" }
            else if !raw.hasPrefix("/") { "'\(key)' must be an absolute path starting with '/', found '\(raw)'" }
            else if PathBytes.components(of: raw).contains(where: { $0 == "." || $0 == ".." }) {
                "'\(key)' must not contain '.' or '..' components, found '\(raw)'"
            } else { nil }
        if let problem {
            report(.invalidValue, position, problem)
            return nil
        }
        return DaemonConfiguration.normalize(raw)
    }
}

/// The whole file, refusing more than `limit` bytes without reading them.
func readFile(_ path: String, limit: Int) throws(FileProblem) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw FileProblem("cannot open: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw FileProblem("cannot stat: \(String(cString: strerror(errno)))") }
    guard info.st_mode & S_IFMT == S_IFREG else { throw FileProblem("not a regular file") }
    guard info.st_size <= limit else {
        throw FileProblem("the file is \(info.st_size) bytes; at most \(limit) bytes (1 MiB) are accepted")
    }
    let bytes: [UInt8]
    do {
        bytes = try Directory.readAll(fd, limit: limit, sizeHint: Int(clamping: info.st_size))
    } catch {
        throw FileProblem("cannot read: \(error.message)")
    }
    // The file may have grown since fstat.
    if bytes.count > limit { throw FileProblem("the file is larger than \(limit) bytes (1 MiB)") }
    return bytes
}
