public import Logging
import NIOPosix

extension Daemon {
    /// Makes the daemon on NIO's thread pool: reading the saved index and the device id, and
    /// writing a new device id durably (the door's replace, `fsync`), wait for the disk — never
    /// on the cooperative pool the caller's task runs on (docs/architecture.md, "One door to the system").
    public static func open(settings: DaemonSettings, logger: Logger) async throws -> Daemon {
        try await NIOThreadPool.singleton.runIfActive { try Daemon(settings: settings, logger: logger) }
    }
}
