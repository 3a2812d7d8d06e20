import Foundation
import Glibc
import Synchronization

/// Two "devices" of one user on this machine: each has its own container root (holding
/// `com.example.grocery`), its own `ubiquityd` on its own socket, and its own Syncthing instance
/// replicating the container directory with the other's. Both Syncthing instances run in one
/// private network namespace (`unshare --net`, loopback only) with discovery, relays, NAT,
/// usage and crash reporting off; their REST APIs listen on Unix sockets, so the test reaches
/// them and nothing else can. Everything is started here and stopped by PID.
///
/// More devices may join later (`joiningLater`, then ``join(_:within:)``): each has its own
/// container root, daemon and Syncthing instance, started only when it joins, in the same
/// network namespace, sharing the container with every other device — a device that comes late
/// to a container the others have used for a while. Up to four devices in all.
///
/// ```swift
/// let devices = try await TwoDevices.start(joiningLater: ["c"])
/// defer { devices.stop() }
/// try devices.a.place("Item_1", contents: "milk")        // appears on b through Syncthing
/// try devices.waitUntilInSync()
/// let c = try devices.join("c")                           // starts with an empty container
/// try devices.waitUntilInSync()                           // now holds Item_1 too
/// ```
public final class TwoDevices: @unchecked Sendable {
    // @unchecked: every stored property is set in `init` and only read afterwards, but for
    // `joinedDevices`, behind its Mutex; `supervisor` (Foundation's Process) is safe to signal and
    // wait on from any thread.

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

    /// The most devices one rig runs: `a`, `b` and two that join later (each takes a port).
    public static let maxDevices = 4

    public let directory: String
    public let a: Device
    public let b: Device
    /// The devices that may join later, in the order they must join.
    public let joiningLater: [String]
    private let followingSyncthing: Bool
    private let supervisor: Process
    private let supervisorExit: ProcessExit
    private let joinedDevices = Mutex<[Device]>([])

    private init(directory: String, a: Device, b: Device, joiningLater: [String], followingSyncthing: Bool,
                 supervisor: Process, supervisorExit: ProcessExit) {
        self.directory = directory
        self.a = a
        self.b = b
        self.joiningLater = joiningLater
        self.followingSyncthing = followingSyncthing
        self.supervisor = supervisor
        self.supervisorExit = supervisorExit
    }

    /// The devices that have joined (``join(_:within:)``), in order.
    public var joined: [Device] { joinedDevices.withLock { $0 } }

    /// Every running device: `a`, `b`, then those that joined.
    public var devices: [Device] { [a, b] + joined }

    /// Creates both devices and returns once both daemons listen and the Syncthing instances are
    /// connected to each other. With `followingSyncthing`, each daemon follows its device's
    /// Syncthing (`[sync]` with its `config.xml`), so items carry real sync attributes (`make
    /// demo-sync`, the benchmarks); otherwise the daemons know nothing of the engine, as the tests
    /// that start their own follower want.
    ///
    /// - Parameter joiningLater: names of devices that will join with ``join(_:within:)``, in that
    ///   order (at most two; not `a` nor `b`). Their Syncthing identities are made now, so that
    ///   `a` and `b` share the container with them from the start and accept them when they come;
    ///   nothing of theirs runs until they join.
    public static func start(within seconds: Double = 60, followingSyncthing: Bool = false,
                             joiningLater: [String] = []) async throws -> TwoDevices {
        let names = ["a", "b"] + joiningLater
        guard names.count <= maxDevices, Set(names).count == names.count,
              names.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x61...0x7A).contains($0) } }) else {
            throw TestDaemonError("devices joining later must be at most \(maxDevices - 2) distinct lowercase names other than a and b; found \(joiningLater)")
        }
        var template = Array("/tmp/ubq2-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp: \(String(cString: strerror(errno)))") }
        let directory = String(cString: made)
        do {
            var ids: [String] = []
            for name in names {
                let home = directory + "/" + name + "/syncthing"
                try run("/usr/bin/syncthing", ["generate", "--home=" + home, "--no-default-folder"])
                let config = try String(contentsOfFile: home + "/config.xml", encoding: .utf8)
                guard let id = config.firstMatch(of: /<device id="([A-Z0-9-]+)"/)?.1 else { throw TestDaemonError("no device id in \(home)") }
                ids.append(String(id))
                let container = directory + "/" + name + "/root/" + containerID
                try FileManager.default.createDirectory(atPath: container + "/Documents", withIntermediateDirectories: true)
                try (ignoredNames.joined(separator: "\n") + "\n").write(toFile: container + "/.stignore", atomically: true, encoding: .utf8)
                guard mkfifo(home + "/control", 0o600) == 0 else { throw TestDaemonError("mkfifo \(home)/control: \(String(cString: strerror(errno)))") }
            }
            guard mkfifo(directory + "/control", 0o600) == 0 else { throw TestDaemonError("mkfifo \(directory)/control: \(String(cString: strerror(errno)))") }
            // Four ports per rig, one a device, apart from other test processes' rigs.
            let ports = names.indices.map { 22101 + Int(getpid() % 300) * maxDevices + $0 }
            for (index, name) in names.enumerated() {
                let home = directory + "/" + name + "/syncthing"
                let config = try String(contentsOfFile: home + "/config.xml", encoding: .utf8)
                let peers = names.indices.filter { $0 != index }.map { other in
                    Peer(id: ids[other], name: names[other], port: dials(index, other) ? ports[other] : nil)
                }
                let written = configured(config, listen: ports[index], gui: home + "/rest.sock", folder: directory + "/" + name + "/root/" + containerID,
                                         ids: ids, peers: peers)
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
            // A daemon that fails to start must not leave the other one, or the namespace and its
            // Syncthing instances, running after the test (one did: b's daemon exited at start).
            var started: [Device] = []
            let devices: TwoDevices
            do {
                started.append(try device("a", id: ids[0], directory: directory, followingSyncthing: followingSyncthing))
                started.append(try device("b", id: ids[1], directory: directory, followingSyncthing: followingSyncthing))
                devices = TwoDevices(directory: directory, a: started[0], b: started[1],
                                     joiningLater: joiningLater, followingSyncthing: followingSyncthing,
                                     supervisor: supervisor, supervisorExit: supervisorExit)
            } catch {
                for device in started {
                    _ = device.daemon.stop()
                    device.daemon.cleanUp()
                }
                supervisor.terminate()      // the script stops its instances by PID, then exits
                if !supervisorExit.wait(within: 20) { kill(supervisor.processIdentifier, SIGKILL) }
                throw error
            }
            do {
                try devices.dialOnceListening(from: devices.a, to: [devices.b], within: seconds)
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

    /// Whether the device at `index` (in `a`, `b`, then the order of joining) dials the one at
    /// `other`: `a` dials `b`, and a device that joins dials every device before it, which listens
    /// already. One side of each pair only
    /// (``configured(_:listen:gui:folder:ids:peers:)``).
    static func dials(_ index: Int, _ other: Int) -> Bool {
        index < 2 ? (index == 0 && other == 1) : other < index
    }

    /// Device `name`'s daemon started, with its container root (following its Syncthing when asked).
    private static func device(_ name: String, id: String, directory: String, followingSyncthing: Bool) throws -> Device {
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
                      deviceID: id)
    }

    /// Starts device `name` (the next of ``joiningLater``): its Syncthing instance in the rig's
    /// network namespace, with an empty container that every running device shares, and its
    /// daemon. Returns once its daemon listens and its Syncthing instance is connected to every
    /// other running device; what it receives then arrives as sync delivers it
    /// (``waitUntilInSync(within:)``).
    ///
    /// - Throws: ``TestDaemonError`` when `name` is not the next device to join, or it was not
    ///   started or connected within `seconds`.
    @discardableResult
    public func join(_ name: String, within seconds: Double = 60) throws -> Device {
        OwnThreads.checkMayBlock("TwoDevices.join")
        let count = joined.count
        guard count < joiningLater.count, joiningLater[count] == name else {
            throw TestDaemonError("device \(name) cannot join now: the devices join in the order \(joiningLater), and \(joined.map(\.name)) have joined")
        }
        let home = directory + "/" + name + "/syncthing"
        let changes = try FileEvents(watching: home, mask: UInt32(IN_MOVED_TO | IN_CREATE))
        let deadline = Date().addingTimeInterval(seconds)
        // The supervisor's joiner holds the FIFO open for reading: opening it to write never blocks.
        try Self.start(through: directory + "/control", "join \(name)", home: home, changes: changes, what: "Syncthing on \(name) was not started", within: seconds)
        let config = try String(contentsOfFile: home + "/config.xml", encoding: .utf8)
        guard let id = config.firstMatch(of: /<device id="([A-Z0-9-]+)"/)?.1 else { throw TestDaemonError("no device id in \(home)") }
        let device = try Self.device(name, id: String(id), directory: directory, followingSyncthing: followingSyncthing)
        joinedDevices.withLock { $0.append(device) }
        try dialOnceListening(from: device, to: devices.filter { $0.name != name }, within: deadline.timeIntervalSinceNow)
        try waitUntilConnected(within: max(1, deadline.timeIntervalSinceNow))
        return device
    }

    /// Only `dialer` dials `peers` (``dials(_:_:)``), and a first dial made before a peer listens
    /// is tried again only after Syncthing's connection loop has slept, 5 s at least. So once
    /// every REST API answers (a listener starts before its API), a pause and a resume of each
    /// peer not connected yet on the dialer make a dial at once.
    func dialOnceListening(from dialer: Device, to peers: [Device], within seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        for device in [dialer] + peers {
            while (try? device.syncthing.call("GET", "/rest/system/status", timeout: 5)) == nil {
                guard supervisor.isRunning else { throw TestDaemonError("the Syncthing instances exited:\n\(logs)") }
                guard Date() < deadline else { throw TestDaemonError("Syncthing on \(device.name) did not answer within \(seconds) s:\n\(logs)") }
                // While the instance does not answer, this waits for its REST socket to change (a second at most).
                _ = device.syncthing.nextEvent(of: "Starting", since: 0, within: min(1, deadline.timeIntervalSinceNow))
            }
        }
        for peer in peers where !Self.connected(dialer, to: peer) {
            try dialer.syncthing.call("POST", "/rest/system/pause?device=\(peer.deviceID)")
            try dialer.syncthing.call("POST", "/rest/system/resume?device=\(peer.deviceID)")
        }
    }

    /// Whether `device`'s Syncthing reports `peer` connected now.
    static func connected(_ device: Device, to peer: Device) -> Bool {
        guard let answer = try? device.syncthing.call("GET", "/rest/system/connections") as? [String: Any],
              let connections = answer["connections"] as? [String: Any],
              let peerState = connections[peer.deviceID] as? [String: Any] else { return false }
        return peerState["connected"] as? Bool == true
    }

    /// Every running device paired with every other, each pair both ways.
    private var pairs: [(Device, Device)] {
        let running = devices
        return running.flatMap { device in running.filter { $0.name != device.name }.map { (device, $0) } }
    }

    /// Waits until each running device's Syncthing instance reports every other connected (asked
    /// through REST, with a deadline).
    public func waitUntilConnected(within seconds: Double = 60) throws {
        OwnThreads.checkMayBlock("TwoDevices.waitUntilConnected")
        let deadline = Date().addingTimeInterval(seconds)
        for (device, peer) in pairs {
            var seen = 0
            while !Self.connected(device, to: peer) {
                guard supervisor.isRunning else { throw TestDaemonError("the Syncthing instances exited:\n\(logs)") }
                guard Date() < deadline else { throw TestDaemonError("Syncthing on \(device.name) did not connect to \(peer.name) within \(seconds) s:\n\(logs)") }
                // At most 5 s, then the state is asked again: a change no event of these types announces still counts.
                seen = device.syncthing.nextEvent(of: "DeviceConnected", since: seen, within: min(5, deadline.timeIntervalSinceNow))
            }
        }
    }

    /// Waits until each running device has everything every other has (`/rest/db/completion` at
    /// 100% and nothing needed on any side), after asking all to scan now.
    public func waitUntilInSync(within seconds: Double = 60) throws {
        OwnThreads.checkMayBlock("TwoDevices.waitUntilInSync")
        for device in devices { try device.syncthing.call("POST", "/rest/db/scan?folder=\(Self.containerID)") }
        let deadline = Date().addingTimeInterval(seconds)
        for (device, peer) in pairs {
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
        try Self.start(through: home + "/control", "start", home: home, changes: changes, what: "Syncthing on \(device.name) was not started again",
                       within: seconds)
    }

    /// Writes `line` to the supervisor's control FIFO `control`, then waits until a Syncthing
    /// writes its `pid` file in `home` (`changes` watches `home`).
    private static func start(through control: String, _ line: String, home: String, changes: FileEvents, what: String, within seconds: Double) throws {
        let fd = open(control, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw TestDaemonError("open \(control): \(String(cString: strerror(errno))) (has the supervisor exited?)") }
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw TestDaemonError("write to \(control) failed") }
        let deadline = Date().addingTimeInterval(seconds)
        while !FileManager.default.fileExists(atPath: home + "/pid") {
            guard Date() < deadline else { throw TestDaemonError("\(what) within \(seconds) s") }
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

    /// What the running devices' Syncthing instances logged.
    public var logs: String {
        devices.map { (try? String(contentsOfFile: directory + "/" + $0.name + "/syncthing/log", encoding: .utf8)) ?? "" }
            .joined(separator: "\n---\n")
    }

    /// Stops every daemon and every Syncthing instance (by PID) and removes everything.
    public func stop() {
        OwnThreads.checkMayBlock("TwoDevices.stop")
        let running = devices
        for device in running { device.daemon.stop() }
        if supervisor.isRunning {
            supervisor.terminate()          // the script stops its instances by PID, then exits
            if !supervisorExit.wait(within: 20) {
                kill(supervisor.processIdentifier, SIGKILL)
                // Its Syncthing instances (and their children) outlive it: each names this rig's
                // directory on its command line, and is killed by its PID.
                for pid in Self.processes(naming: directory) { kill(pid, SIGKILL) }
            }
        }
        for device in running { device.daemon.cleanUp() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: - Configuration

    static let apiKey = "ubiquity-test-rig"

    /// Another device as one device's configuration names it: `port` when this device dials it,
    /// nil when it only accepts its connection.
    struct Peer {
        let id: String
        let name: String
        let port: Int?
    }

    /// The generated `config.xml`, with everything that faces outside turned off, the peers and
    /// the shared folder (shared with every device of `ids`) added.
    ///
    /// Only one side of each pair dials (a peer's `port` given; the other side gets `nil`, the
    /// peer's address `dynamic`, which with discovery off is no address, and only accepts). When
    /// both dialed at once, Syncthing 1.19 now and then left one TLS connection without its Hello
    /// until the 20 s Hello timeout, once twice in a row: 20-41 s to connect instead of 1.5, about
    /// one start in thirty here.
    static func configured(_ config: String, listen: Int, gui: String, folder: String, ids: [String], peers: [Peer]) -> String {
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
        let peerDevices = peers.map { peer in
            """
                <device id="\(peer.id)" name="\(peer.name)" compression="metadata" introducer="false" skipIntroductionRemovals="false" introducedBy="">
                    <address>\(peer.port.map { "tcp://127.0.0.1:\($0)" } ?? "dynamic")</address>
                    <paused>false</paused>
                    <autoAcceptFolders>false</autoAcceptFolders>
                </device>

            """
        }.joined()
        // maxConflicts must be written: without it Syncthing keeps no conflict copies at all.
        let additions = """
            <folder id="\(containerID)" label="" path="\(folder)" type="sendreceive" rescanIntervalS="3600" fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true">
        \(devices)
                <maxConflicts>10</maxConflicts>
            </folder>

        """ + peerDevices
        if let gui = text.range(of: "    <gui ") { text.insert(contentsOf: additions, at: gui.lowerBound) }
        return text
    }

    /// Runs inside the new network namespace: loopback up, `a`'s and `b`'s instances started,
    /// every instance stopped by PID on SIGTERM. Each instance runs under a loop of its own that
    /// writes the PID of Syncthing's monitor process to `HOME/pid` while it runs and removes it
    /// once it has exited; the loop then waits for a line on `HOME/control` (a FIFO it holds open
    /// for reading and writing, so a line written by the rig is kept until read): `start` starts
    /// the instance again with the same home, anything else ends the loop
    /// (``killSyncthing(of:within:)``, ``restartSyncthing(of:within:)``). A device that joins
    /// later is started by a line `join NAME` on the rig's own FIFO, `DIRECTORY/control`
    /// (``join(_:within:)``); `HOME/supervised` marks the instances a loop runs, the ones the stop
    /// tells to end.
    static func supervisorScript(directory: String) -> String {
        """
        #!/bin/sh
        ip link set lo up
        export STNODEFAULTFOLDER=1 STNOUPGRADE=1 STNORESTART=1
        run() {
            home=\(directory)/$1/syncthing
            exec 3<>"$home/control"
            : > "$home/supervised"
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
        joiner() {
            exec 4<>"\(directory)/control"
            while read -r request name <&4; do
                [ "$request" = join ] || break
                run "$name" &
            done
            wait
        }
        run a &
        run b &
        joiner &
        stop() {
            for home in \(directory)/*/syncthing; do
                [ -f "$home/supervised" ] || continue
                if [ -f "$home/pid" ]; then kill "$(cat "$home/pid")"; fi
                echo stop > "$home/control"
            done
            echo stop > "\(directory)/control"
            wait
            exit 0
        }
        trap stop TERM INT
        wait

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
