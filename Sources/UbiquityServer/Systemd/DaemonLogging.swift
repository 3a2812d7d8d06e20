import Glibc
public import Logging

/// Chooses where the daemon's logs go: journald's native protocol when stderr is already a journal
/// stream, `<N>`-prefixed lines on stderr otherwise.
///
/// systemd sets `JOURNAL_STREAM=dev:ino` for a service whose stderr is connected to the journal; the
/// pair must match `fstat(2)` of fd 2, because the variable is inherited by children whose stderr may
/// have been redirected since (`ubiquityd 2>file` run from a service's shell). See systemd.exec(5).
///
/// ```swift
/// DaemonLogging.bootstrap(identifier: "ubiquityd", level: .info)
/// ```
public enum DaemonLogging {
    /// Where entries go.
    public enum Destination: String, Sendable, Hashable {
        /// ``JournaldLogHandler``: structured fields through `sd_journal_sendv`.
        case journald
        /// ``StderrSyslogLogHandler``: one `<N>message key=value` line per entry on fd 2.
        case stderr
    }

    /// Installs the daemon's handler as the process-wide swift-log backend. Call once, early in
    /// `main`: swift-log allows one bootstrap per process (tests use ``makeHandler(label:identifier:level:destination:)``).
    ///
    /// - Parameters:
    ///   - identifier: `SYSLOG_IDENTIFIER` for journald entries (`ubiquityd`).
    ///   - level: The lowest level logged.
    ///   - environment: Where `JOURNAL_STREAM` is read; the process environment by default.
    /// - Returns: The destination chosen, so the daemon can log it.
    @discardableResult
    public static func bootstrap(
        identifier: String, level: Logger.Level,
        environment: [String: String] = ProcessEnvironment.values(of: ["JOURNAL_STREAM"])
    ) -> Destination {
        let destination = destination(environment: environment)
        LoggingSystem.bootstrap { label in
            makeHandler(label: label, identifier: identifier, level: level, destination: destination)
        }
        return destination
    }

    /// A handler for `destination`, without touching the process-wide logging system.
    ///
    /// - Parameters:
    ///   - label: The logger's label. Journald entries carry it as `LOGGER=` so one subsystem's
    ///     entries can be selected; stderr lines leave it out to stay short.
    ///   - identifier: `SYSLOG_IDENTIFIER` for journald entries.
    ///   - level: The lowest level logged.
    ///   - destination: From ``destination(environment:standardError:)``.
    public static func makeHandler(
        label: String, identifier: String, level: Logger.Level, destination: Destination
    ) -> any LogHandler {
        switch destination {
        case .journald:
            var handler = JournaldLogHandler(identifier: identifier, logLevel: level)
            handler[metadataKey: "logger"] = .string(label)
            return handler
        case .stderr:
            return StderrSyslogLogHandler(logLevel: level)
        }
    }

    /// ``Destination/journald`` when `environment["JOURNAL_STREAM"]` names the device and inode of
    /// `standardError`, ``Destination/stderr`` otherwise (unset, malformed, or fd 2 not open).
    public static func destination(environment: [String: String], standardError: Int32 = 2) -> Destination {
        var status = stat()
        guard fstat(standardError, &status) == 0 else { return .stderr }
        return destination(journalStream: environment["JOURNAL_STREAM"],
                           device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// The pure half of ``destination(environment:standardError:)``: compares `dev:ino` (decimal).
    static func destination(journalStream: String?, device: UInt64, inode: UInt64) -> Destination {
        guard let journalStream else { return .stderr }
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let streamDevice = UInt64(parts[0]), let streamInode = UInt64(parts[1]) else {
            return .stderr
        }
        return streamDevice == device && streamInode == inode ? .journald : .stderr
    }
}
