import CSystemd
import Glibc
public import Logging

/// A swift-log handler that sends each entry to journald as structured fields (`sd_journal_sendv`).
///
/// Why not plain stderr: structured fields are searchable. Every metadata key becomes a field of its
/// own, so `journalctl -u ubiquityd CONTAINER=com.example.grocery` shows one container's story. Each
/// entry carries `MESSAGE`, `PRIORITY` (``Logging/Logger/Level/syslogPriority``),
/// `SYSLOG_IDENTIFIER`, `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`, then the metadata sorted by field
/// name (see ``journalFieldName(_:)``). Values may contain newlines: the native protocol carries them.
///
/// Without a journald socket `sd_journal_sendv` drops the entry and returns 0 (measured here); when
/// it reports an error, the entry goes to stderr in the ``StderrSyslogLogHandler`` format instead, so
/// nothing is lost silently while journald restarts. Choose this handler with ``DaemonLogging``.
public struct JournaldLogHandler: DaemonLogHandler {
    /// `SYSLOG_IDENTIFIER=`: the name `journalctl -t` filters on (`ubiquityd`).
    public let identifier: String
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// - Parameters:
    ///   - identifier: The `SYSLOG_IDENTIFIER` of every entry.
    ///   - logLevel: The lowest level sent.
    ///   - metadataProvider: Contextual metadata (task-locals) added to each entry.
    public init(identifier: String, logLevel: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil) {
        self.identifier = identifier
        self.logLevel = logLevel
        self.metadataProvider = metadataProvider
    }

    public func log(event: LogEvent) {
        let merged = metadata(of: event)
        let entry = Self.fields(
            message: event.message.description, level: event.level, identifier: identifier,
            file: event.file, function: event.function, line: event.line, metadata: merged)
        if Self.send(entry) < 0 {
            StderrSyslogLogHandler.write(
                StderrSyslogLogHandler.line(level: event.level, message: event.message.description, metadata: merged),
                to: STDERR_FILENO)
        }
    }

    // MARK: - Building an entry (pure)

    /// The fields handed to the journal whose own names these are; metadata keys that map to one of
    /// them are prefixed (`META_MESSAGE`) instead of adding a second `MESSAGE`.
    static let ownFields: Set<String> = ["MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC"]

    /// The `(name, value)` fields of one entry, in the order they are sent.
    static func fields(
        message: String, level: Logger.Level, identifier: String,
        file: String, function: String, line: UInt, metadata: Logger.Metadata
    ) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("MESSAGE", message), ("PRIORITY", "\(level.syslogPriority)"), ("SYSLOG_IDENTIFIER", identifier),
            ("CODE_FILE", file), ("CODE_LINE", "\(line)"), ("CODE_FUNC", function),
        ]
        let named = metadata.map { (name: journalFieldName($0.key), value: LogEventRendering.text($0.value)) }
        // Sorted by name, then value, so that equal entries produce equal bytes whatever the
        // dictionary's order (two keys may map to one name: `peerUID` and `peer_uid`).
        fields += named.sorted { ($0.name, $0.value) < ($1.name, $1.value) }
        return fields
    }

    /// A metadata key as a journal field name: `container` → `CONTAINER`, `peerUID` and `peer_uid`
    /// → `PEER_UID`, `query-id` → `QUERY_ID`.
    ///
    /// Journal field names are `[A-Z0-9_]`, at most 64 bytes, and must not start with a digit or
    /// `_` (a leading `_` marks the fields journald itself vouches for, such as `_PID`, and clients
    /// may not send them). So: a lower-to-upper case change becomes `_`, every other character
    /// outside `[A-Za-z0-9]` becomes `_`, leading `_` are dropped, and a name that is then empty,
    /// starts with a digit or is one of ``ownFields`` gets the prefix `META_`.
    static func journalFieldName(_ key: String) -> String {
        var name = ""
        var previous: Character?
        for character in key {
            if character.isASCII, character.isLetter || character.isNumber {
                if character.isUppercase, let previous, previous.isLowercase || previous.isNumber {
                    name.append("_")
                }
                name += character.uppercased()
            } else {
                name.append("_")
            }
            previous = character
        }
        name = String(name.drop(while: { $0 == "_" }))
        if name.isEmpty || name.first?.isNumber == true || ownFields.contains(name) { name = "META_" + name }
        return String(name.prefix(64))
    }

    /// One contiguous buffer of `NAME=value` entries and the byte range of each entry in it.
    ///
    /// One buffer keeps the iovec array valid for exactly one `withUnsafeBytes` scope in ``send(_:)``:
    /// no pointer outlives the call.
    static func encode(_ fields: [(name: String, value: String)]) -> (bytes: [UInt8], entries: [Range<Int>]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 1 })
        var entries: [Range<Int>] = []
        entries.reserveCapacity(fields.count)
        for field in fields {
            let start = bytes.count
            bytes += field.name.utf8
            bytes.append(UInt8(ascii: "="))
            bytes += field.value.utf8
            entries.append(start..<bytes.count)
        }
        return (bytes, entries)
    }

    /// Sends one entry; returns `sd_journal_sendv`'s result (0, or `-errno`).
    @discardableResult
    static func send(_ fields: [(name: String, value: String)]) -> Int32 {
        let (bytes, entries) = encode(fields)
        return bytes.withUnsafeBytes { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -EINVAL }
            // sd_journal_sendv only reads through iov_base; the mutable pointer is the C signature's.
            let vectors = entries.map {
                iovec(iov_base: UnsafeMutableRawPointer(mutating: base + $0.lowerBound), iov_len: $0.count)
            }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
    }
}
