import Foundation
import Glibc

/// Two "devices" of one user on this machine: each has its own container root (holding
/// `com.example.grocery`), its own `ubiquityd` on its own socket, and its own Syncthing instance
/// replicating the container directory with the other's. Both Syncthing instances run in one
/// private network namespace (`unshare --net`, loopback only) with discovery, relays, NAT,
/// usage and crash reporting off; their REST APIs listen on Unix sockets, so the test reaches
/// them and nothing else can. Everything is started here and stopped by PID.
///
/// ```swift
/// let devices = try await TwoDevices.start()
/// defer { devices.stop() }
/// try devices.a.place("Item_1", contents: "milk")        // appears on b through Syncthing
/// try devices.waitUntilInSync()
/// ```
public final class TwoDevices: @unchecked Sendable {
    // @unchecked: every stored property is set in `init` and only read afterwards; `supervisor`
    // (Foundation's Process) is safe to signal and wait on from any thread.

    /// One device: its container root, daemon and Syncthing instance.
    public struct Device: Sendable {
        public let name: String
        /// The container root (`root/com.example.grocery` is the replicated container).
        public let root: String
        public let container: String
        public let daemon: TestDaemon
        public let syncthing: SyncthingREST
        public let deviceID: String
        public var socket: String { daemon.socket }
        public var documents: String { container + "/Documents" }

        /// Makes a file appear at once in `Documents/` (written beside it, then renamed).
        @discardableResult
        public func place(_ name: String, contents: String) throws -> String {
            try placeAtomically(documents + "/" + name, contents: contents, staging: root)
        }
    }

    public static let containerID = "com.example.grocery"
    /// Lines for `.stignore` of every container: ubiquityd's sync cookies, coordinated saves,
    /// key-value files and store segments being written are never replicated.
    public static let ignoredNames = ["(?d).ubiquity-sync-*", "(?d).ubiquity-save-*", "(?d).ubiquity-kv/.*.writing",
                                      "(?d).ubiquity-stores/**/.*.writing"]

    public let directory: String
    public let a: Device
    public let b: Device
    private let supervisor: Process
    private let supervisorExit: ProcessExit

    private init(directory: String, a: Device, b: Device, supervisor: Process, supervisorExit: ProcessExit) {
        self.directory = directory
        self.a = a
        self.b = b
        self.supervisor = supervisor
        self.supervisorExit = supervisorExit
    }

    /// Creates both devices and returns once both daemons listen and the Syncthing instances are
    /// connected to each other. With `followingSyncthing`, each daemon follows its device's
    /// Syncthing (`[sync]` with its `config.xml`), so items carry real sync attributes (`make
    /// demo-sync`, the benchmarks); otherwise the daemons know nothing of the engine, as the tests
    /// that start their own follower want.
    public static func start(within seconds: Double = 60, followingSyncthing: Bool = false) async throws -> TwoDevices {
        var template = Array("/tmp/ubq2-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp: \(String(cString: strerror(errno)))") }
        let directory = String(cString: made)
        do {
            let names = ["a", "b"]
            var ids: [String: String] = [:]
            for name in names {
                let home = directory + "/" + name + "/syncthing"
                try run("/usr/bin/syncthing", ["generate", "--home=" + home, "--no-default-folder"])
                let config = try String(contentsOfFile: home + "/config.xml", encoding: .utf8)
                guard let id = config.firstMatch(of: /<device id="([A-Z0-9-]+)"/)?.1 else { throw TestDaemonError("no device id in \(home)") }
                ids[name] = String(id)
                let container = directory + "/" + name + "/root/" + containerID
                try FileManager.default.createDirectory(atPath: container + "/Documents", withIntermediateDirectories: true)
                try (ignoredNames.joined(separator: "\n") + "\n").write(toFile: container + "/.stignore", atomically: true, encoding: .utf8)
                guard mkfifo(home + "/control", 0o600) == 0 else { throw TestDaemonError("mkfifo \(home)/control: \(String(cString: strerror(errno)))") }
            }
            let ports = ["a": 22101 + Int(getpid() % 400) * 2, "b": 22102 + Int(getpid() % 400) * 2]
            for name in names {
                let peer = name == "a" ? "b" : "a"
                let home = directory + "/" + name + "/syncthing"
                let config = try String(contentsOfFile: home + "/config.xml", encoding: .utf8)
                let written = configured(config, listen: ports[name]!, gui: home + "/rest.sock", folder: directory + "/" + name + "/root/" + containerID,
                                         ids: [ids["a"]!, ids["b"]!], peer: ids[peer]!, peerName: peer,
                                         peerPort: name == "a" ? ports[peer]! : nil)
                try written.write(toFile: home + "/config.xml", atomically: true, encoding: .utf8)
            }
            let script = directory + "/network-namespace.sh"
            try supervisorScript(directory: directory).write(toFile: script, atomically: true, encoding: .utf8)
            let supervisor = Process()
            supervisor.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            supervisor.arguments = ["--net", "--", "/bin/sh", script]
            supervisor.standardInput = FileHandle.nullDevice
            supervisor.standardOutput = FileHandle.nullDevice
            supervisor.standardError = FileHandle.nullDevice
            let supervisorExit = ProcessExit.of(supervisor)
            try supervisor.run()
            func device(_ name: String) throws -> Device {
                let root = directory + "/" + name + "/root"
                var arguments = ["--root", root, "--socket", "{socket}"]
                if followingSyncthing {
                    let config = directory + "/" + name + "/ubiquityd.toml"
                    try """
                        [[roots]]
                        path = "\(root)"

                        [sync]
                        engine = "syncthing"
                        config_xml = "\(directory)/\(name)/syncthing/config.xml"

                        """.write(toFile: config, atomically: true, encoding: .utf8)
                    arguments = ["--config", config, "--socket", "{socket}"]
                }
                let daemon = try TestDaemon(containers: [], arguments: arguments)
                return Device(name: name, root: root, container: root + "/" + containerID, daemon: daemon,
                              syncthing: SyncthingREST(socket: directory + "/" + name + "/syncthing/rest.sock", apiKey: apiKey),
                              deviceID: ids[name]!)
            }
            let devices = TwoDevices(directory: directory, a: try device("a"), b: try device("b"), supervisor: supervisor,
                                     supervisorExit: supervisorExit)
            do {
                try devices.dialOnceListening(within: seconds)
                try devices.waitUntilConnected(within: seconds)
            } catch {
                devices.stop()
                throw error
            }
            return devices
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Only a dials (``configured(_:listen:gui:folder:ids:peer:peerName:peerPort:)``), and a first
    /// dial made before b listens is tried again only after Syncthing's connection loop has slept,
    /// 5 s at least. So once both REST APIs answer (b's listener starts before its API), a pause
    /// and a resume of b on a make a dial at once, unless they are connected already.
    func dialOnceListening(within seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        for device in [a, b] {
            while (try? device.syncthing.call("GET", "/rest/system/status", timeout: 5)) == nil {
                guard supervisor.isRunning else { throw TestDaemonError("the Syncthing instances exited:\n\(logs)") }
                guard Date() < deadline else { throw TestDaemonError("Syncthing on \(device.name) did not answer within \(seconds) s:\n\(logs)") }
                // While the instance does not answer, this waits for its REST socket to change (a second at most).
                _ = device.syncthing.nextEvent(of: "Starting", since: 0, within: min(1, deadline.timeIntervalSinceNow))
            }
        }
        if let answer = try? a.syncthing.call("GET", "/rest/system/connections") as? [String: Any],
           let connections = answer["connections"] as? [String: Any],
           let peerState = connections[b.deviceID] as? [String: Any], peerState["connected"] as? Bool == true {
            return
        }
        try a.syncthing.call("POST", "/rest/system/pause?device=\(b.deviceID)")
        try a.syncthing.call("POST", "/rest/system/resume?device=\(b.deviceID)")
    }

    /// Waits until each Syncthing instance reports the other connected (asked through REST,
    /// with a deadline).
    public func waitUntilConnected(within seconds: Double = 60) throws {
        OwnThreads.checkMayBlock("TwoDevices.waitUntilConnected")
        let deadline = Date().addingTimeInterval(seconds)
        for (device, peer) in [(a, b), (b, a)] {
            var seen = 0
            while true {
                if let answer = try? device.syncthing.call("GET", "/rest/system/connections") as? [String: Any],
                   let connections = answer["connections"] as? [String: Any],
                   let peerState = connections[peer.deviceID] as? [String: Any], peerState["connected"] as? Bool == true {
                    break
                }
                guard supervisor.isRunning else { throw TestDaemonError("the Syncthing instances exited:\n\(logs)") }
                guard Date() < deadline else { throw TestDaemonError("Syncthing on \(device.name) did not connect within \(seconds) s:\n\(logs)") }
                // At most 5 s, then the state is asked again: a change no event of these types announces still counts.
                seen = device.syncthing.nextEvent(of: "DeviceConnected", since: seen, within: min(5, deadline.timeIntervalSinceNow))
            }
        }
    }

    /// Waits until each device has everything the other has (`/rest/db/completion` at 100% and
    /// nothing needed on both sides), after asking both to scan now.
    public func waitUntilInSync(within seconds: Double = 60) throws {
        OwnThreads.checkMayBlock("TwoDevices.waitUntilInSync")
        for device in [a, b] { try device.syncthing.call("POST", "/rest/db/scan?folder=\(Self.containerID)") }
        let deadline = Date().addingTimeInterval(seconds)
        for (device, peer) in [(a, b), (b, a)] {
            var seen = 0
            while true {
                let completion = try device.syncthing.call("GET", "/rest/db/completion?folder=\(Self.containerID)&device=\(peer.deviceID)") as? [String: Any]
                let status = try device.syncthing.call("GET", "/rest/db/status?folder=\(Self.containerID)") as? [String: Any]
                if (completion?["completion"] as? Double) == 100, (status?["needTotalItems"] as? Int) == 0,
                   (status?["state"] as? String) == "idle" {
                    break
                }
                guard Date() < deadline else { throw TestDaemonError("\(device.name) and \(peer.name) did not get in sync within \(seconds) s") }
                seen = device.syncthing.nextEvent(of: "FolderCompletion,StateChanged,FolderSummary,RemoteIndexUpdated,LocalIndexUpdated",
                                                  since: seen, within: min(5, deadline.timeIntervalSinceNow))
            }
        }
    }

    /// Where `device`'s Syncthing instance keeps its configuration, keys and database.
    public func syncthingHome(of device: Device) -> String { directory + "/" + device.name + "/syncthing" }

    /// Kills `device`'s Syncthing instance as a crash would: SIGKILL, by PID, to the process that
    /// serves its REST API and syncs (the child of Syncthing's monitor process), then to the
    /// monitor. Returns once the instance has exited (its loop in the supervisor script removes
    /// `HOME/pid`, seen through inotify). Its home is kept: ``restartSyncthing(of:within:)``.
    ///
    /// - Throws: ``TestDaemonError`` when the instance is not running, or has not exited within `seconds`.
    public func killSyncthing(of device: Device, within seconds: Double = 30) throws {
        OwnThreads.checkMayBlock("TwoDevices.killSyncthing")
        let home = syncthingHome(of: device)
        let changes = try FileEvents(watching: home, mask: UInt32(IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE))
        guard let text = try? String(contentsOfFile: home + "/pid", encoding: .utf8),
              let monitor = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestDaemonError("Syncthing on \(device.name) is not running (no \(home)/pid)")
        }
        for child in Self.children(of: monitor) { kill(child, SIGKILL) }
        kill(monitor, SIGKILL)
        let deadline = Date().addingTimeInterval(seconds)
        while FileManager.default.fileExists(atPath: home + "/pid") {
            guard Date() < deadline else { throw TestDaemonError("Syncthing on \(device.name) (PID \(monitor)) did not exit within \(seconds) s") }
            changes.wait(within: deadline.timeIntervalSinceNow)
        }
    }

    /// Starts `device`'s Syncthing instance again after ``killSyncthing(of:within:)``, with the
    /// same home — configuration, device id, API key, folder ids and database — in the rig's
    /// network namespace. Returns once it is started (its PID written), before its REST API
    /// answers: ``waitUntilConnected(within:)`` waits for it to reach the other device.
    ///
    /// - Throws: ``TestDaemonError`` when it is still running, or was not started within `seconds`.
    public func restartSyncthing(of device: Device, within seconds: Double = 30) throws {
        OwnThreads.checkMayBlock("TwoDevices.restartSyncthing")
        let home = syncthingHome(of: device)
        let changes = try FileEvents(watching: home, mask: UInt32(IN_MOVED_TO | IN_CREATE))
        guard !FileManager.default.fileExists(atPath: home + "/pid") else { throw TestDaemonError("Syncthing on \(device.name) is still running") }
        // The loop holds the FIFO open for reading: opening it to write never blocks, and the line waits there until read.
        let control = open(home + "/control", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard control >= 0 else { throw TestDaemonError("open \(home)/control: \(String(cString: strerror(errno))) (has the supervisor exited?)") }
        let line = Array("start\n".utf8)
        let written = line.withUnsafeBytes { write(control, $0.baseAddress, $0.count) }
        close(control)
        guard written == line.count else { throw TestDaemonError("write to \(home)/control failed") }
        let deadline = Date().addingTimeInterval(seconds)
        while !FileManager.default.fileExists(atPath: home + "/pid") {
            guard Date() < deadline else { throw TestDaemonError("Syncthing on \(device.name) was not started again within \(seconds) s") }
            changes.wait(within: deadline.timeIntervalSinceNow)
        }
    }

    /// The PIDs of `parent`'s children (read from /proc: every thread's `children` list).
    static func children(of parent: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(parent)/task")) ?? []
        return tasks.flatMap { task -> [pid_t] in
            let list = (try? String(contentsOfFile: "/proc/\(parent)/task/\(task)/children", encoding: .utf8)) ?? ""
            return list.split(separator: " ").compactMap { pid_t($0) }
        }
    }

    /// What both Syncthing instances logged.
    public var logs: String {
        ["a", "b"].map { (try? String(contentsOfFile: directory + "/" + $0 + "/syncthing/log", encoding: .utf8)) ?? "" }
            .joined(separator: "\n---\n")
    }

    /// Stops both daemons and both Syncthing instances (by PID) and removes everything.
    public func stop() {
        OwnThreads.checkMayBlock("TwoDevices.stop")
        a.daemon.stop()
        b.daemon.stop()
        if supervisor.isRunning {
            supervisor.terminate()          // the script stops its instances by PID, then exits
            if !supervisorExit.wait(within: 20) {
                kill(supervisor.processIdentifier, SIGKILL)
                // Its Syncthing instances (and their children) outlive it: each names this rig's
                // directory on its command line, and is killed by its PID.
                for pid in Self.processes(naming: directory) { kill(pid, SIGKILL) }
            }
        }
        a.daemon.cleanUp()
        b.daemon.cleanUp()
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: - Configuration

    static let apiKey = "ubiquity-test-rig"

    /// The generated `config.xml`, with everything that faces outside turned off, the peer and
    /// the shared folder added.
    ///
    /// Only one side dials (`peerPort` given: a; b gets `nil`, the peer's address `dynamic`, which
    /// with discovery off is no address, and only accepts). When both dialed at once, Syncthing
    /// 1.19 now and then left one TLS connection without its Hello until the 20 s Hello timeout,
    /// once twice in a row: 20-41 s to connect instead of 1.5, about one start in thirty here.
    static func configured(_ config: String, listen: Int, gui: String, folder: String, ids: [String], peer: String,
                           peerName: String, peerPort: Int?) -> String {
        var text = config
        // `syncthing generate` writes `default`, or a random port when 22000 looked taken on the
        // host (another rig generating at the same moment): whatever it wrote, one address of ours.
        text = text.replacing(/\s*<listenAddress>[^<]*<\/listenAddress>/, with: "")
        if let options = text.range(of: "<options>") {
            text.insert(contentsOf: "\n        <listenAddress>tcp://127.0.0.1:\(listen)</listenAddress>", at: options.upperBound)
        }
        text = text.replacing(/\s*<globalAnnounceServer>[^<]*<\/globalAnnounceServer>/, with: "")
        text = text.replacing(/\s*<stunServer>[^<]*<\/stunServer>/, with: "")
        let options = ["globalAnnounceEnabled": "false", "localAnnounceEnabled": "false", "relaysEnabled": "false",
                       "natEnabled": "false", "crashReportingEnabled": "false", "startBrowser": "false",
                       "announceLANAddresses": "false", "urAccepted": "-1", "autoUpgradeIntervalH": "0",
                       "stunKeepaliveStartS": "0", "stunKeepaliveMinS": "0", "apikey": apiKey,
                       // A first dial before the peer listens (a loaded machine starts them apart)
                       // is retried after this; Syncthing's 60 s outlasted waitUntilConnected.
                       "reconnectionIntervalS": "1"]
        for (tag, value) in options {
            text = text.replacing(try! Regex("<\(tag)>[^<]*</\(tag)>"), with: "<\(tag)>\(value)</\(tag)>")
        }
        // A path as the GUI address: Syncthing listens on a Unix socket there (8384, or the random
        // port generate chose when 8384 looked taken).
        text = text.replacing(/<address>127\.0\.0\.1:[0-9]+<\/address>/, with: "<address>\(gui)</address>")
        let devices = ids.map { "            <device id=\"\($0)\"></device>" }.joined(separator: "\n")
        // maxConflicts must be written: without it Syncthing keeps no conflict copies at all.
        let additions = """
            <folder id="\(containerID)" label="" path="\(folder)" type="sendreceive" rescanIntervalS="3600" fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true">
        \(devices)
                <maxConflicts>10</maxConflicts>
            </folder>
            <device id="\(peer)" name="\(peerName)" compression="metadata" introducer="false" skipIntroductionRemovals="false" introducedBy="">
                <address>\(peerPort.map { "tcp://127.0.0.1:\($0)" } ?? "dynamic")</address>
                <paused>false</paused>
                <autoAcceptFolders>false</autoAcceptFolders>
            </device>

        """
        if let gui = text.range(of: "    <gui ") { text.insert(contentsOf: additions, at: gui.lowerBound) }
        return text
    }

    /// Runs inside the new network namespace: loopback up, both instances started, both stopped
    /// by PID on SIGTERM. Each instance runs under a loop of its own that writes the PID of
    /// Syncthing's monitor process to `HOME/pid` while it runs and removes it once it has exited;
    /// the loop then waits for a line on `HOME/control` (a FIFO it holds open for reading and
    /// writing, so a line written by the rig is kept until read): `start` starts the instance again
    /// with the same home, anything else ends the loop (``killSyncthing(of:within:)``,
    /// ``restartSyncthing(of:within:)``).
    static func supervisorScript(directory: String) -> String {
        """
        #!/bin/sh
        ip link set lo up
        export STNODEFAULTFOLDER=1 STNOUPGRADE=1 STNORESTART=1
        run() {
            home=\(directory)/$1/syncthing
            exec 3<>"$home/control"
            while :; do
                /usr/bin/syncthing serve --home="$home" --no-browser --no-restart --logfile="$home/log" >/dev/null 2>&1 &
                echo $! > "$home/pid.new"
                mv "$home/pid.new" "$home/pid"
                wait $!
                rm -f "$home/pid"
                read -r request <&3 || exit 0
                [ "$request" = start ] || exit 0
            done
        }
        run a &
        A=$!
        run b &
        B=$!
        stop() {
            for home in \(directory)/a/syncthing \(directory)/b/syncthing; do
                if [ -f "$home/pid" ]; then kill "$(cat "$home/pid")"; fi
                echo stop > "$home/control"
            done
            wait $A $B
            exit 0
        }
        trap stop TERM INT
        wait $A $B

        """
    }

    /// The PIDs of running processes whose command line contains `word` (read from /proc).
    static func processes(naming word: String) -> [pid_t] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
        return pids.filter { pid in
            guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: raw.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self).contains(word)
        }
    }

    private static func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestDaemonError("\(program) \(arguments.joined(separator: " ")) failed") }
    }
}
