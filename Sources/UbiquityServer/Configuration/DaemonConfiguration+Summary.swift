// What `ubiquityd --check-config` prints: the configuration as the daemon understood it, with
// every default made explicit, so an administrator sees what will happen before it happens.

extension DaemonConfiguration {
    /// A human explanation of this configuration: source, socket, timing, limits, each root and
    /// each declared container with owner, group and package types. No I/O beyond naming
    /// uids and gids; containers discovered in roots are listed by ``ContainerResolution/summary()``.
    public func summary() -> String {
        var out = Table()
        out.row("configuration", source)
        out.row("socket", socketPath)
        out.row("log level", logLevel)
        out.row("batching", batchingInterval.readable + (batchingInterval == .zero ? " (as soon as possible)" : "")
            + " for queries that name no interval")
        out.row("watch budget", watchBudget.map { "\($0) inotify watches" } ?? "90% of /proc/sys/fs/inotify/max_user_watches")
        out.row("rescan", "every " + rescanInterval.readable + " (unwatched subtrees, missing containers)")
        out.row("history", "\(history.maxChanges) changes, at most " + history.maxAge.readable + " old (for since queries)")
        out.row("saved index", savesIndex
                ? "in the state directory: after the first crawl, every " + indexSaveInterval.readable + " when changed, at shutdown"
                : "not saved (save_index = false): since tokens do not survive a restart")
        out.row("publish", publish.listen.map {
            "HTTP listener on \($0): links of at most " + publish.maxExpiry.readable + " (default " + publish.defaultExpiry.readable
                + "), \(publish.maxItemsPerPeer) links and \(publish.maxBytesPerPeer) bytes per user"
        } ?? "off (no [publish] listen)")
        out.row("stores", (storeCompaction.snapshotEvery == 0 ? "no snapshots (segments are never removed)"
                           : "a snapshot every \(storeCompaction.snapshotEvery) own segments")
                + "; a device silent after " + Duration.milliseconds(storeCompaction.silentAfterMilliseconds).readable + " is reported"
                + "; deleted rows shrink to floors " + Duration.milliseconds(storeCompaction.floorAfterMilliseconds).readable + " after the delete")
        out.row("sync engine", sync.map { sync in
            "\(sync.engine) at " + (sync.address?.description ?? "the GUI address in \(sync.configXML ?? "?")")
                + (sync.apiKey == nil ? ", its API key read from \(sync.configXML ?? "?")" : "")
                + "; files on demand wait \(sync.folderRequestTimeoutSeconds) s at most for an answer about a folder"
        } ?? "none (a single machine: sync attributes say current, not uploaded)")
        out.section("limits")
        out.row("max_line_bytes", "\(limits.maxLineBytes) bytes per request line", indent: 1)
        out.row("max_connections", "\(limits.maxConnections)", indent: 1)
        out.row("max_queries_per_connection", "\(limits.maxQueriesPerConnection)", indent: 1)
        out.row("pending_items_per_query", "\(limits.pendingItemsPerQuery) (then the query is reset)", indent: 1)
        out.row("max_queries_per_peer", "\(limits.maxQueriesPerPeer) across a user's connections", indent: 1)
        out.row("max_result_items_per_peer", "\(limits.maxResultItemsPerPeer) across a user's queries", indent: 1)

        out.section("roots (\(roots.count))" + (roots.isEmpty ? ": none" : ""))
        for root in roots {
            out.line(root.path, indent: 1)
            out.row("owner", root.owner.map(Self.describeUser) ?? "each directory's owner", indent: 2)
            out.row("group", root.group.map(Self.describeGroup) ?? "none (owner and root only)", indent: 2)
            out.row("packages", Self.describe(root.packageTypes), indent: 2)
        }

        let heading = containers.isEmpty ? ": none declared" : (containers.count == 1 ? ", the default" : ", the first is the default")
        out.section("containers (\(containers.count)\(heading))")
        for container in containers {
            out.line(container.id.rawValue, indent: 1)
            out.row("path", path(of: container) ?? "(no path)", indent: 2)
            out.row("owner", container.owner.map(Self.describeUser) ?? "the directory's owner", indent: 2)
            out.row("group", container.group.map(Self.describeGroup) ?? "none (owner and root only)", indent: 2)
            out.row("packages", Self.describe(container.packageTypes), indent: 2)
            out.row("create", container.create
                ? "yes, with Documents/ (mode \(container.group == nil ? "0700" : "0750"))" : "no", indent: 2)
        }
        return out.text
    }

    static func describe(_ packages: [String: String]) -> String {
        packages.isEmpty ? "none" : packages.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: ", ")
    }

    static func describeUser(_ uid: UInt32) -> String {
        Accounts.userName(uid).map { "\($0) (uid \(uid))" } ?? "uid \(uid)"
    }

    static func describeGroup(_ gid: UInt32) -> String {
        Accounts.groupName(gid).map { "\($0) (gid \(gid))" } ?? "gid \(gid)"
    }
}

extension ContainerResolution {
    /// The containers found on disk, one line each, then problems and notes.
    public func summary() -> String {
        var out = Table()
        out.section("served containers (\(containers.count))" + (containers.isEmpty ? ": none" : ""))
        for container in containers {
            let state = container.available ? "" : "  [unavailable]"
            out.row(container.descriptor.id.rawValue,
                    container.descriptor.root + "  owner " + DaemonConfiguration.describeUser(container.ownerUID)
                    + (container.groupGID.map { ", group " + DaemonConfiguration.describeGroup($0) } ?? "") + state,
                    indent: 1)
        }
        if !problems.isEmpty {
            out.section("problems (\(problems.count))")
            for problem in problems { out.line(problem, indent: 1) }
        }
        if !notes.isEmpty {
            out.section("notes (\(notes.count))")
            for note in notes { out.line(note, indent: 1) }
        }
        return out.text
    }
}

/// Two-column text whose values line up across the whole output.
private struct Table {
    private enum Line { case text(String, indent: Int), row(String, String, indent: Int) }
    private var lines: [Line] = []

    mutating func line(_ text: String, indent: Int = 0) { lines.append(.text(text, indent: indent)) }
    mutating func section(_ title: String) {
        if !lines.isEmpty { lines.append(.text("", indent: 0)) }
        lines.append(.text(title, indent: 0))
    }
    mutating func row(_ label: String, _ value: String, indent: Int = 0) { lines.append(.row(label, value, indent: indent)) }

    var text: String {
        let width = lines.reduce(0) { width, line in
            if case .row(let label, _, let indent) = line { max(width, indent * 2 + label.count) } else { width }
        }
        return lines.map { line in
            switch line {
            case .text(let text, let indent):
                return String(repeating: "  ", count: indent) + text
            case .row(let label, let value, let indent):
                let left = String(repeating: "  ", count: indent) + label
                return left + String(repeating: " ", count: width - left.count + 2) + value
            }
        }.joined(separator: "\n") + "\n"
    }
}
