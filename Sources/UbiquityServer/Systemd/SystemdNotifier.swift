import CSystemd
import Glibc
public import UbiquitySystem

/// Tells the service manager how the daemon is doing, through `sd_notify(3)`.
///
/// `Type=notify` makes systemd wait for ``ready(status:)`` before it starts units ordered after
/// `ubiquityd`; `WatchdogSec=` makes it restart the daemon when ``watchdog()`` stops arriving.
/// Every message is one datagram to `$NOTIFY_SOCKET` of newline-separated `KEY=value` lines.
/// Without `NOTIFY_SOCKET` (started by hand, in tests) every call is a no-op that returns `false`.
///
/// `sd_notify` reads `NOTIFY_SOCKET` from the process environment at each call and never unsets it
/// here, so the notifier holds no state and can be copied freely across tasks.
///
/// ```swift
/// let notifier = SystemdNotifier()
/// try notifier.status("crawling 3 containers")
/// try notifier.ready(status: "serving 3 containers, 12840 items")
/// ```
public struct SystemdNotifier: Sendable {
    public init() {}

    /// Whether a service manager listens: `NOTIFY_SOCKET` is set and not empty.
    public var isEnabled: Bool {
        guard let socket = getenv("NOTIFY_SOCKET") else { return false }
        return socket.pointee != 0
    }

    /// Startup is complete: sends `READY=1`, plus `STATUS=` when given.
    ///
    /// Also the way to finish a reload started with ``reloading(status:)``.
    ///
    /// - Parameter status: A one-line status for `systemctl status` (newlines become spaces).
    /// - Returns: `true` when the message was sent, `false` without `NOTIFY_SOCKET`.
    /// - Throws: ``SystemdError`` naming `sd_notify` when the socket refused the message.
    @discardableResult
    public func ready(status: String? = nil) throws(SystemdError) -> Bool {
        try notify([("READY", "1")] + Self.statusField(status))
    }

    /// Updates the one-line status `systemctl status ubiquityd` shows (`STATUS=`).
    @discardableResult
    public func status(_ text: String) throws(SystemdError) -> Bool {
        try notify(Self.statusField(text))
    }

    /// Keeps the watchdog from firing (`WATCHDOG=1`). Send it only while the daemon makes progress,
    /// every ``watchdogInterval(environment:pid:)``.
    @discardableResult
    public func watchdog() throws(SystemdError) -> Bool {
        try notify([("WATCHDOG", "1")])
    }

    /// Graceful shutdown has begun (`STOPPING=1`): systemd stops waiting for watchdog pings.
    @discardableResult
    public func stopping(status: String? = nil) throws(SystemdError) -> Bool {
        try notify([("STOPPING", "1")] + Self.statusField(status))
    }

    /// A configuration reload has begun (`RELOADING=1` with `MONOTONIC_USEC=`).
    ///
    /// `MONOTONIC_USEC` is the `CLOCK_MONOTONIC` time of the reload request, which `sd_notify(3)`
    /// requires for `Type=notify-reload`. The caller sends ``ready(status:)`` when the reload is done.
    @discardableResult
    public func reloading(status: String? = nil) throws(SystemdError) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
        return try notify([("RELOADING", "1"), ("MONOTONIC_USEC", "\(microseconds)")] + Self.statusField(status))
    }

    /// Tells systemd which process is the main one (`MAINPID=`), for a daemon started by a wrapper.
    ///
    /// - Parameter pid: The main process; this process when `nil`.
    @discardableResult
    public func mainPID(_ pid: Int32? = nil) throws(SystemdError) -> Bool {
        try notify([("MAINPID", "\(pid ?? getpid())")])
    }

    /// Asks for more start-up (or stop) time (`EXTEND_TIMEOUT_USEC=`): a first crawl of a large
    /// container can outlast `TimeoutStartSec=`; sending this while making progress keeps the start
    /// from being declared failed.
    @discardableResult
    public func extendTimeout(by duration: Duration) throws(SystemdError) -> Bool {
        let (seconds, attoseconds) = duration.components
        let microseconds = max(0, seconds) * 1_000_000 + max(0, attoseconds) / 1_000_000_000_000
        return try notify([("EXTEND_TIMEOUT_USEC", "\(microseconds)")])
    }

    /// Sends raw `KEY=value` assignments, in order, as one datagram.
    ///
    /// - Parameter fields: Assignments such as `("READY", "1")`. Values lose newlines and NUL bytes
    ///   (they would end the assignment or the message).
    /// - Returns: `true` when sent, `false` when `NOTIFY_SOCKET` is not set.
    /// - Throws: ``SystemdError`` naming `sd_notify` (`ECONNREFUSED`, `ENOENT`, ...).
    @discardableResult
    public func notify(_ fields: [(key: String, value: String)]) throws(SystemdError) -> Bool {
        let state = Self.payload(fields)
        let result = try System.callReturningErrno("sd_notify", as: SystemdError.self) { sd_notify(0, state) }
        return result > 0
    }

    /// The datagram for `fields`: `KEY=value` lines joined by `\n`.
    static func payload(_ fields: [(key: String, value: String)]) -> String {
        fields.map { "\($0.key)=\(oneLine($0.value))" }.joined(separator: "\n")
    }

    private static func statusField(_ status: String?) -> [(key: String, value: String)] {
        status.map { [("STATUS", $0)] } ?? []
    }

    private static func oneLine(_ value: String) -> String {
        String(value.map { $0.isNewline ? " " : $0 }.filter { $0 != "\0" })
    }

    // MARK: - Watchdog

    /// How often to send ``watchdog()``: half of `WATCHDOG_USEC`, or `nil` when no watchdog is armed.
    ///
    /// systemd sets `WATCHDOG_USEC` (and `WATCHDOG_PID`) when the unit has `WatchdogSec=`. The
    /// variables are for another process when `WATCHDOG_PID` names a different pid (they leaked
    /// through a fork/exec); `sd_watchdog_enabled(3)` then also says no. Pinging at half the
    /// interval, as that page recommends, leaves a full half for scheduling delays.
    ///
    /// - Parameters:
    ///   - environment: The variables to read (the process environment in the daemon, a literal in tests).
    ///   - pid: This process's id, compared with `WATCHDOG_PID`.
    /// - Returns: The ping period, or `nil` when `WATCHDOG_USEC` is absent, zero or malformed, or
    ///   `WATCHDOG_PID` is set to anything but `pid`.
    public static func watchdogInterval(environment: [String: String], pid: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else {
            return nil
        }
        if let owner = environment["WATCHDOG_PID"], Int32(owner) != pid { return nil }
        return .microseconds(Int64(clamping: microseconds)) / 2
    }

    /// ``watchdogInterval(environment:pid:)`` for this process's own environment and pid.
    public static func watchdogInterval() -> Duration? {
        watchdogInterval(environment: ProcessEnvironment.values(of: ["WATCHDOG_USEC", "WATCHDOG_PID"]), pid: getpid())
    }
}
