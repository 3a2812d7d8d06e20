import CSystemd
import Glibc
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
public import UbiquityIndex
public import UbiquityKeyValue
public import UbiquityProtocol
public import UbiquityStoreFiles
public import UbiquityWatch
import UnixSignals

/// Everything the daemon needs to run, already resolved (containers listed, socket chosen).
public struct DaemonSettings: Sendable {
    public var containers: [ResolvedContainer]
    public var endpoint: SocketServer.Endpoint
    public var limits: ServerLimits
    public var watcher: FileWatcher.Configuration
    /// How much change history `since` queries are answered from.
    public var history = ChangeHistory.Retention()
    /// How often to tell systemd we are alive (half of `WatchdogSec=`); nil: no watchdog.
    public var watchdogPeriod: Duration?
    /// How often `STATUS=` is refreshed.
    public var statusPeriod: Duration = .seconds(5)
    /// Re-reads the configuration on SIGHUP: the containers to serve now. nil: SIGHUP only re-lists.
    public var reload: (@Sendable () throws -> [ResolvedContainer])?
    /// False when the daemon runs inside another program (tests): SIGTERM, SIGINT and SIGHUP are
    /// then left alone, and ``Daemon/shutDownGracefully()`` stops it.
    public var trapsSignals = true
    /// Where the key-value store's device id is kept (docs/kv-store.md).
    public var stateDirectory: String = DeviceIdentity.stateDirectory(
        environment: ProcessEnvironment.values(of: ["STATE_DIRECTORY", "XDG_STATE_HOME", "HOME"]))
    /// The key-value store's quotas (`[key_value]`, docs/configuration.md).
    public var keyValueQuota = KVQuota()
    /// When relational stores write snapshots and call a device silent (`[stores]`).
    public var storeCompaction = CompactionPolicy()
    /// Where the index is saved (``IndexStore``); nil: it is not (daemons inside tests, unless
    /// they ask). `ubiquityd` saves it in ``stateDirectory`` unless `save_index = false`.
    public var indexDirectory: String?
    /// How often a changed index is saved, besides after the first crawl and at shutdown.
    public var indexSaveInterval: Duration = .seconds(300)
    /// The publish listener and its bounds (`[publish]`); no listener unless `listen` is set.
    public var publish = PublishSettings()
    /// The sync engine to follow (`[sync]`); nil: none, a single machine.
    public var sync: SyncEngineSettings?

    public init(containers: [ResolvedContainer], endpoint: SocketServer.Endpoint, limits: ServerLimits = ServerLimits(),
                watcher: FileWatcher.Configuration = FileWatcher.Configuration(), watchdogPeriod: Duration? = nil,
                reload: (@Sendable () throws -> [ResolvedContainer])? = nil) {
        self.containers = containers
        self.endpoint = endpoint
        self.limits = limits
        self.watcher = watcher
        self.watchdogPeriod = watchdogPeriod
        self.reload = reload
    }
}
