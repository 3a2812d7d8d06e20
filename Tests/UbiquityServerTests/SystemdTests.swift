import CSystemd
import Glibc
import Logging
import Synchronization
import Testing
import UbiquitySystem
import UbiquityTesting
@testable import UbiquityServer

// The systemd glue against real sockets, pipes and files: a datagram socket stands in for systemd's
// notify socket, real descriptors for socket activation, a pipe for stderr.

// MARK: - Process environment (sd_notify, sd_listen_fds): one serialized suite

/// Everything that reads or writes the process environment lives here, run one test at a time:
/// `sd_notify` and `sd_listen_fds` read `NOTIFY_SOCKET` and `LISTEN_*` from the process itself.
@Suite(.serialized, .ownThreads)
struct SystemdEnvironmentTests {
    @Test func readySendsReadyAndStatusInOneDatagram() throws {
        try withNotifySocket { listener, notifier throws in
            #expect(notifier.isEnabled)
            #expect(try notifier.ready(status: "serving 2 containers, 14 items"))
            #expect(try listener.receive() == "READY=1\nSTATUS=serving 2 containers, 14 items")
            #expect(try notifier.ready())
            #expect(try listener.receive() == "READY=1")
        }
    }

    @Test func statusWatchdogStoppingAndMainPIDPayloads() throws {
        try withNotifySocket { listener, notifier throws in
            try notifier.status("crawling com.example.grocery\n(3 of 5)")
            #expect(try listener.receive() == "STATUS=crawling com.example.grocery (3 of 5)")
            try notifier.watchdog()
            #expect(try listener.receive() == "WATCHDOG=1")
            try notifier.stopping()
            #expect(try listener.receive() == "STOPPING=1")
            try notifier.stopping(status: "draining 2 sessions")
            #expect(try listener.receive() == "STOPPING=1\nSTATUS=draining 2 sessions")
            try notifier.mainPID()
            #expect(try listener.receive() == "MAINPID=\(getpid())")
            try notifier.extendTimeout(by: .seconds(90))
            #expect(try listener.receive() == "EXTEND_TIMEOUT_USEC=90000000")
        }
    }

    @Test func reloadingCarriesTheMonotonicTimeOfTheRequest() throws {
        try withNotifySocket { listener, notifier throws in
            let before = monotonicMicroseconds()
            try notifier.reloading()
            let after = monotonicMicroseconds()
            let lines = try listener.receive().split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines.first == "RELOADING=1")
            let stamp = lines.last.flatMap { $0.hasPrefix("MONOTONIC_USEC=") ? UInt64($0.dropFirst(15)) : nil }
            #expect(stamp.map { (before...after).contains($0) } == true, "MONOTONIC_USEC \(String(describing: stamp)) not in \(before)...\(after)")
        }
    }

    @Test func withoutNotifySocketNothingIsSent() throws {
        try withNotifySocket { listener, notifier throws in
            try withEnvironment(["NOTIFY_SOCKET": nil]) { () throws in
                #expect(!notifier.isEnabled)
                #expect(try notifier.ready(status: "lost") == false)
                #expect(try notifier.watchdog() == false)
            }
            // The next datagram is the one sent after NOTIFY_SOCKET came back: nothing was queued.
            try notifier.status("after")
            #expect(try listener.receive() == "STATUS=after")
        }
    }

    @Test func aMissingNotifySocketIsAnErrorNamingSdNotify() throws {
        let directory = try TemporaryDirectory()
        try withEnvironment(["NOTIFY_SOCKET": directory.path + "/absent.sock"]) { () throws in
            let error = #expect(throws: SystemdError.self) { try SystemdNotifier().watchdog() }
            #expect(error?.code == .systemCall)
            #expect(error?.call == "sd_notify")
            #expect(error?.errno == ENOENT)
            #expect(error?.description.hasPrefix("sd_notify failed: ") == true)
        }
    }

    @Test func nothingPassedWhenListenPIDIsUnsetOrAnotherProcess() throws {
        try withEnvironment(["LISTEN_PID": nil, "LISTEN_FDS": nil, "LISTEN_FDNAMES": nil]) { () throws in
            #expect(try SocketActivation.listeningSockets(unsetEnvironment: false).isEmpty)
            #expect(try SocketActivation.listeningSocket(named: "ubiquityd", unsetEnvironment: false) == nil)
        }
        // Variables inherited from a parent that was socket-activated: not ours, and removed on request.
        try withEnvironment(["LISTEN_PID": "\(getpid() + 1)", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "ubiquityd"]) { () throws in
            #expect(try SocketActivation.listeningSockets(unsetEnvironment: false).isEmpty)
            #expect(getenv("LISTEN_FDS") != nil)
            #expect(try SocketActivation.listeningSockets(unsetEnvironment: true).isEmpty)
            #expect(getenv("LISTEN_PID") == nil)
            #expect(getenv("LISTEN_FDS") == nil)
            #expect(getenv("LISTEN_FDNAMES") == nil)
        }
    }

    @Test func theBoundPathOfAPassedSocketIsWhatGetsocknameSays() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/bound.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        #expect(SocketActivation.boundPath(of: ActivatedSocket(fileDescriptor: fd, name: "ubiquityd")) == path)
        // Unbound (one end of a socketpair) and closed descriptors have no path.
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        #expect(SocketActivation.boundPath(of: ActivatedSocket(fileDescriptor: pair[0], name: "x")) == nil)
        #expect(SocketActivation.boundPath(of: ActivatedSocket(fileDescriptor: 9_999, name: "x")) == nil)
    }

    @Test func malformedListenFDsIsAnErrorNamingTheCall() throws {
        // LISTEN_FDS=0 for us fails before libsystemd touches any descriptor (it would set
        // FD_CLOEXEC on fds 3... of this test process otherwise).
        try withEnvironment(["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "0", "LISTEN_FDNAMES": nil]) { () throws in
            let error = #expect(throws: SystemdError.self) {
                try SocketActivation.listeningSockets(unsetEnvironment: false)
            }
            #expect(error?.call == "sd_listen_fds_with_names")
            #expect(error?.errno == EINVAL)
        }
    }
}

// MARK: - Watchdog interval (pure)

@Suite(.ownThreads) struct WatchdogIntervalTests {
    @Test func halfOfWatchdogUsec() {
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"], pid: 42) == .seconds(15))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "3"], pid: 42) == .nanoseconds(1500))
    }

    @Test func watchdogPIDMustBeOursWhenSet() {
        let ours = ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "42"]
        #expect(SystemdNotifier.watchdogInterval(environment: ours, pid: 42) == .seconds(10))
        #expect(SystemdNotifier.watchdogInterval(environment: ours, pid: 43) == nil)
        let malformed = ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "forty-two"]
        #expect(SystemdNotifier.watchdogInterval(environment: malformed, pid: 42) == nil)
    }

    @Test(arguments: [[:], ["WATCHDOG_USEC": "0"], ["WATCHDOG_USEC": "-5"], ["WATCHDOG_USEC": "30s"], ["WATCHDOG_USEC": ""]])
    func noWatchdogWithoutAPositiveInterval(environment: [String: String]) {
        #expect(SystemdNotifier.watchdogInterval(environment: environment, pid: 42) == nil)
    }
}

// MARK: - Socket activation: what a passed descriptor is

@Suite(.ownThreads) struct SocketActivationCheckTests {
    @Test func aListeningUnixStreamSocketPasses() throws {
        let directory = try TemporaryDirectory()
        let fd = try unixSocket(SOCK_STREAM, boundTo: directory.path + "/s.sock", listening: true)
        defer { close(fd) }
        try SocketActivation.checkUnixStreamListener(ActivatedSocket(fileDescriptor: fd, name: "ubiquityd"))
    }

    @Test func wrongKindsOfDescriptorsAreRejectedSayingWhatTheyAre() throws {
        let directory = try TemporaryDirectory()
        let bound = try unixSocket(SOCK_STREAM, boundTo: directory.path + "/bound.sock", listening: false)
        let datagram = try unixSocket(SOCK_DGRAM, boundTo: directory.path + "/d.sock", listening: false)
        let inet = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var pipeFDs: [Int32] = [-1, -1]
        #expect(pipe(&pipeFDs) == 0)
        let file = open(directory.path + "/file", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        defer { for fd in [bound, datagram, inet, pipeFDs[0], pipeFDs[1], file] { close(fd) } }

        let cases: [(Int32, String)] = [
            (bound, "a non-listening AF_UNIX stream socket"),
            (datagram, "a non-listening AF_UNIX datagram socket"),
            (inet, "a non-listening AF_INET stream socket"),
            (pipeFDs[0], "a pipe"),
            (file, "a regular file"),
        ]
        for (fd, kind) in cases {
            let socket = ActivatedSocket(fileDescriptor: fd, name: "ubiquityd")
            let error = #expect(throws: SystemdError.self) { try SocketActivation.checkUnixStreamListener(socket) }
            #expect(error?.code == .notUnixListener)
            #expect(error?.description == "systemd.notUnixListener: fd \(fd) (ubiquityd) is not a listening "
                + "AF_UNIX stream socket: it is \(kind); use ListenStream=/path in the socket unit")
        }
    }

    @Test func aClosedDescriptorIsEBADFFromSdIsSocketUnix() throws {
        // Above the descriptor limit, so never open: a number closed here could be reused at once
        // by a test running in parallel.
        var limit = rlimit()
        #expect(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let closed = ActivatedSocket(fileDescriptor: Int32(clamping: limit.rlim_cur), name: "ubiquityd")
        let error = #expect(throws: SystemdError.self) { try SocketActivation.checkUnixStreamListener(closed) }
        #expect(error?.code == .systemCall)
        #expect(error?.call == "sd_is_socket_unix")
        #expect(error?.errno == EBADF)
    }

    @Test func firstDescriptorIsThree() {
        #expect(SocketActivation.firstFileDescriptor == 3)
    }
}

// MARK: - Log handlers

@Suite(.ownThreads) struct StderrSyslogLogHandlerTests {
    @Test func oneLineWithPriorityPrefixAndMetadata() {
        let (logger, lines) = collectingLogger()
        logger.info("hello", metadata: ["container": "com.example.x"])
        logger.warning("slow client", metadata: ["peer_uid": "1000", "query": "q1"])
        #expect(lines.value == ["<6>hello container=com.example.x", "<4>slow client peer_uid=1000 query=q1"])
    }

    @Test func everyLevelMapsToItsSyslogPriority() {
        let (logger, lines) = collectingLogger(level: .trace)
        for level in Logger.Level.allCases { logger.log(level: level, "\(level)") }
        #expect(lines.value == ["<7>trace", "<7>debug", "<6>info", "<5>notice", "<4>warning", "<3>error", "<2>critical"])
    }

    @Test func plainTextStaysAsItIsWithoutAmbiguity() {
        let (logger, lines) = collectingLogger()
        logger.info(#"saved C:\x "draft" = 1"#, metadata: ["path": "/srv/c/Documents/a b.gro", "n": "3", "w": #"a\b"#])
        #expect(lines.value == [#"<6>saved C:\x "draft" = 1 n=3 path="/srv/c/Documents/a b.gro" w="a\\b""#])
    }

    @Test func newlinesAndControlCharactersNeverBreakTheLine() {
        let (logger, lines) = collectingLogger()
        logger.error("line one\nline two\r\tC:\\x \u{1B}[0m", metadata: ["query": "name LIKE \"a*\"\nor =", "empty": ""])
        #expect(lines.value == [
            #"<3>"line one\nline two\r\tC:\\x \u001b[0m" empty="" query="name LIKE \"a*\"\nor =""#,
        ])
        #expect(lines.value.allSatisfy { !$0.contains("\n") })
    }

    @Test func handlerProviderAndCallMetadataMergeWithTheCallWinning() {
        let provider = Logger.MetadataProvider { ["request": "7", "container": "from.provider"] }
        let (baseLogger, lines) = collectingLogger(provider: provider)
        var logger = baseLogger
        logger[metadataKey: "container"] = "from.handler"
        logger[metadataKey: "session"] = "3"
        logger.notice("merged", metadata: ["request": "8"])
        #expect(lines.value == ["<5>merged container=from.provider request=8 session=3"])
    }

    @Test func theEventErrorIsAnErrorKey() {
        let lines = Mutex<[String]>([])
        let handler = StderrSyslogLogHandler { line in lines.withLock { $0.append(line) } }
        handler.log(event: LogEvent(level: .error, message: "crawl failed", error: SystemdError(SystemCallError("fstat", errno: EBADF)),
                                    metadata: nil, source: nil, file: "F.swift", function: "f()", line: 1))
        #expect(lines.withLock { $0 } == [#"<3>crawl failed error="fstat failed: Bad file descriptor (EBADF)""#])
    }

    @Test func writeSendsTheLineAndANewlineToTheDescriptor() throws {
        var pipeFDs: [Int32] = [-1, -1]
        #expect(pipe(&pipeFDs) == 0)
        defer { close(pipeFDs[0]) }
        StderrSyslogLogHandler.write("<6>hello container=com.example.x", to: pipeFDs[1])
        close(pipeFDs[1])
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while true {
            let count = read(pipeFDs[0], &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        #expect(String(decoding: bytes, as: UTF8.self) == "<6>hello container=com.example.x\n")
    }
}

@Suite(.ownThreads) struct JournaldLogHandlerTests {
    @Test(arguments: [
        ("container", "CONTAINER"), ("query", "QUERY"), ("peer_uid", "PEER_UID"), ("peerUID", "PEER_UID"),
        ("query-id", "QUERY_ID"), ("items2Go", "ITEMS2_GO"), ("_PID", "PID"), ("__secret", "SECRET"),
        ("2fa", "META_2FA"), ("message", "META_MESSAGE"), ("priority", "META_PRIORITY"), ("", "META_"),
        ("café", "CAF_"),
    ])
    func metadataKeysBecomeJournalFieldNames(key: String, field: String) {
        #expect(JournaldLogHandler.journalFieldName(key) == field)
    }

    @Test func fieldNamesAreAtMost64Bytes() {
        #expect(JournaldLogHandler.journalFieldName(String(repeating: "k", count: 100)) == String(repeating: "K", count: 64))
    }

    @Test func fieldsOfOneEntry() {
        let fields = JournaldLogHandler.fields(
            message: "query started", level: .notice, identifier: "ubiquityd",
            file: "UbiquityServer/Session.swift", function: "start(_:)", line: 42,
            metadata: ["query": "q1", "container": "com.example.grocery", "peerUID": .stringConvertible(1000)])
        #expect(fields.map { "\($0.name)=\($0.value)" } == [
            "MESSAGE=query started", "PRIORITY=5", "SYSLOG_IDENTIFIER=ubiquityd",
            "CODE_FILE=UbiquityServer/Session.swift", "CODE_LINE=42", "CODE_FUNC=start(_:)",
            "CONTAINER=com.example.grocery", "PEER_UID=1000", "QUERY=q1",
        ])
    }

    @Test func encodeBuildsOneBufferWithARangePerField() {
        let (bytes, entries) = JournaldLogHandler.encode([("MESSAGE", "two\nlines"), ("PRIORITY", "6"), ("EMPTY", "")])
        #expect(String(decoding: bytes, as: UTF8.self) == "MESSAGE=two\nlinesPRIORITY=6EMPTY=")
        #expect(entries == [0..<17, 17..<27, 27..<33])
    }

    @Test func theHandlerAddsItsLabelAndSendsWithoutJournald() {
        // Without a journald socket sd_journal_sendv drops the entry and returns 0; a crash or a
        // negative result (which would also print to stderr) fails here.
        let handler = DaemonLogging.makeHandler(label: "ubiquityd.server", identifier: "ubiquityd", level: .debug,
                                                destination: .journald)
        let journald = handler as? JournaldLogHandler
        #expect(journald?.identifier == "ubiquityd")
        #expect(journald?.logLevel == .debug)
        #expect(journald?[metadataKey: "logger"] == "ubiquityd.server")
        let fields = JournaldLogHandler.fields(message: "test entry from SystemdTests", level: .debug, identifier: "ubiquityd-test",
                                               file: #fileID, function: #function, line: #line, metadata: [:])
        #expect(JournaldLogHandler.send(fields) == 0)
    }
}

@Suite(.ownThreads) struct DaemonLoggingTests {
    @Test func journalStreamMustMatchDeviceAndInode() {
        #expect(DaemonLogging.destination(journalStream: "8:1234", device: 8, inode: 1234) == .journald)
        #expect(DaemonLogging.destination(journalStream: "8:1235", device: 8, inode: 1234) == .stderr)
        #expect(DaemonLogging.destination(journalStream: "9:1234", device: 8, inode: 1234) == .stderr)
        #expect(DaemonLogging.destination(journalStream: nil, device: 8, inode: 1234) == .stderr)
        for malformed in ["", "8", "8:", ":1234", "8:1234:5", "x:y"] {
            #expect(DaemonLogging.destination(journalStream: malformed, device: 8, inode: 1234) == .stderr, "\(malformed)")
        }
    }

    @Test func journalStreamIsComparedWithTheRealDescriptor() throws {
        var pipeFDs: [Int32] = [-1, -1]
        #expect(pipe(&pipeFDs) == 0)
        defer { close(pipeFDs[0]); close(pipeFDs[1]) }
        var status = stat()
        #expect(fstat(pipeFDs[1], &status) == 0)
        let stream = "\(status.st_dev):\(status.st_ino)"
        #expect(DaemonLogging.destination(environment: ["JOURNAL_STREAM": stream], standardError: pipeFDs[1]) == .journald)
        #expect(DaemonLogging.destination(environment: [:], standardError: pipeFDs[1]) == .stderr)
        // Another pipe has another inode: a stale JOURNAL_STREAM inherited through a redirection.
        var otherFDs: [Int32] = [-1, -1]
        #expect(pipe(&otherFDs) == 0)
        defer { close(otherFDs[0]); close(otherFDs[1]) }
        #expect(DaemonLogging.destination(environment: ["JOURNAL_STREAM": stream], standardError: otherFDs[1]) == .stderr)
        #expect(DaemonLogging.destination(environment: ["JOURNAL_STREAM": stream], standardError: -1) == .stderr)
    }

    @Test func stderrHandlerFromTheFactory() {
        let handler = DaemonLogging.makeHandler(label: "l", identifier: "ubiquityd", level: .warning, destination: .stderr)
        #expect((handler as? StderrSyslogLogHandler)?.logLevel == .warning)
    }
}

// MARK: - Helpers

/// A logger whose ``StderrSyslogLogHandler`` collects lines instead of writing to fd 2.
private func collectingLogger(
    level: Logger.Level = .info, provider: Logger.MetadataProvider? = nil
) -> (Logger, LineCollector) {
    let collector = LineCollector()
    var logger = Logger(label: "test") { _ in
        StderrSyslogLogHandler(metadataProvider: provider) { line in collector.append(line) }
    }
    logger.logLevel = level
    return (logger, collector)
}

private final class LineCollector: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var value: [String] { lines.withLock { $0 } }
}

/// A `socket(AF_UNIX, type)` bound to `path`, listening when asked.
func unixSocket(_ type: __socket_type, boundTo path: String, listening: Bool) throws -> Int32 {
    try UnixSocket.bound(to: path, type: type, listening: listening)
}

/// The stand-in for systemd's notify socket: a bound datagram socket with a receive timeout, so a
/// missing message fails the test after 5 s instead of hanging it.
final class NotifyListener {
    let directory: TemporaryDirectory
    let path: String
    let fd: Int32

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path + "/n.sock"
        fd = try unixSocket(SOCK_DGRAM, boundTo: path, listening: false)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            close(fd)
            throw TestFailure("SO_RCVTIMEO failed: errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// The next datagram as text.
    func receive() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 0 else { throw TestFailure("no notify datagram within 5 s (errno \(errno))") }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}

/// Runs `body` with a fresh notify socket named by `NOTIFY_SOCKET`, restoring the variable after.
private func withNotifySocket(_ body: (NotifyListener, SystemdNotifier) throws -> Void) throws {
    let listener = try NotifyListener()
    try withEnvironment(["NOTIFY_SOCKET": listener.path]) { try body(listener, SystemdNotifier()) }
}

/// Sets (or, for `nil`, unsets) `changes` for the duration of `body`, then restores the previous values.
private func withEnvironment(_ changes: [String: String?], _ body: () throws -> Void) throws {
    let saved = changes.keys.map { name in (name, getenv(name).map { String(cString: $0) }) }
    func apply(_ name: String, _ value: String?) {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
    for (name, value) in changes { apply(name, value) }
    defer { for (name, value) in saved { apply(name, value) } }
    try body()
}

private func monotonicMicroseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}
