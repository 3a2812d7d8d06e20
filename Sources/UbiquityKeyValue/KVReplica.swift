import UbiquityJSON

/// One device's file of the store (docs/kv-store.md): every key that device wrote, with its value
/// or its removal. A device only ever rewrites its own file, so a sync engine never sees two
/// devices change the same file.
///
/// ```json
/// {"format":"ubiquity.kv","version":1,"device":"3f0c…","entries":{
///   "sortOrder":{"modified":1767225600000000,"value":"name"},
///   "old":{"modified":1767225600000001,"removed":true}}}
/// ```
public struct KVReplica: Sendable, Hashable {
    public static let format = "ubiquity.kv"
    public static let version = 1
    /// Removals a device keeps in its file; past this, the oldest are forgotten (docs/kv-store.md).
    public static let maxRemovals = 1_024
    /// The latest `modified` accepted: 9999-12-31, in microseconds.
    public static let maxModified: Int64 = 253_402_300_799_999_999

    public var device: String
    public var entries: [String: KVEntry]

    public init(device: String, entries: [String: KVEntry] = [:]) {
        self.device = device
        self.entries = entries
    }

    /// Whether `id` can name a device: 1 to 64 of `A-Z a-z 0-9 - _`.
    public static func isDeviceID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy {
            ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95
        }
    }

    /// The file's bytes: one JSON object and a newline, keys in a stable order.
    public var bytes: [UInt8] {
        var object: [String: JSONValue] = [:]
        for (key, entry) in entries {
            var fields: [String: JSONValue] = ["modified": .integer(entry.modified)]
            if let value = entry.value { fields["value"] = value.wire } else { fields["removed"] = .bool(true) }
            object[key] = .object(fields)
        }
        return JSONLine.encodeLine(.object([
            "format": .string(KVReplica.format), "version": .integer(Int64(KVReplica.version)),
            "device": .string(device), "entries": .object(object),
        ]))
    }

    /// Counts a file's JSON values and nesting without parsing it: a scan that skips strings
    /// and counts `[`, `{` and `,`. Stops as soon as either passes `limits`' per-file bound.
    public static func measure(_ bytes: [UInt8], limits: KVReadLimits) -> KVReadLimits.Cost {
        var values = 1, depth = 0, deepest = 0
        var inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case 0x5B, 0x7B:
                depth += 1
                values += 1
                deepest = max(deepest, depth)
            case 0x5D, 0x7D: depth -= 1
            case 0x2C: values += 1
            default: continue
            }
            if values > limits.fileValues || deepest > limits.depth { break }
        }
        return KVReadLimits.Cost(values: values, depth: deepest)
    }

    /// Reads a file within `limits` (its bytes, values and nesting, checked before it is parsed);
    /// the error says what is wrong with it, for the log and `status`.
    public init(bytes: [UInt8], limits: KVReadLimits = KVReadLimits()) throws(KVFileProblem) {
        guard bytes.count <= limits.fileBytes else {
            throw KVFileProblem("it is \(bytes.count) bytes, more than the \(limits.fileBytes) a store file may have")
        }
        guard !bytes.isEmpty else { throw KVFileProblem("it is empty (a store file always holds one JSON object)") }
        let cost = KVReplica.measure(bytes, limits: limits)
        guard cost.depth <= limits.depth else {
            throw KVFileProblem("a value nests deeper than \(KVValue.maxDepth) arrays or dictionaries")
        }
        guard cost.values <= limits.fileValues else {
            throw KVFileProblem("it holds more than the \(limits.fileValues) JSON values a store file may have")
        }
        var body = bytes[...]
        while let last = body.last, last == 0x0A || last == 0x0D || last == 0x20 { body = body.dropLast() }
        let json: JSONValue
        do { json = try JSONLine.parse(body) } catch {
            // JSONLine's sentences start "the request"; a file is "it". (Not String.replacing: that
            // is _StringProcessing's, whose regex engine would add 1 MB to every binary.)
            let request = "the request"
            throw KVFileProblem(error.message.hasPrefix(request) ? "it" + error.message.dropFirst(request.count) : error.message)
        }
        guard case .object(let object) = json else { throw KVFileProblem("it holds \(json.kindNoun), not a JSON object") }
        guard object["format"] == .string(KVReplica.format) else { throw KVFileProblem("its 'format' is not \"\(KVReplica.format)\"") }
        guard case .integer(let version) = object["version"] else { throw KVFileProblem("its 'version' is missing or not a whole number") }
        guard version == Int64(KVReplica.version) else {
            throw KVFileProblem("it is format version \(version); this daemon reads version \(KVReplica.version)")
        }
        guard case .string(let device) = object["device"], KVReplica.isDeviceID(device) else {
            throw KVFileProblem("its 'device' is missing or not 1 to 64 of A-Z a-z 0-9 - _")
        }
        guard case .object(let raw) = object["entries"] else { throw KVFileProblem("its 'entries' is missing or not an object") }
        var entries: [String: KVEntry] = [:]
        entries.reserveCapacity(raw.count)
        for (key, fields) in raw {
            guard !key.isEmpty else { throw KVFileProblem("it has an entry with an empty key") }
            guard case .object(let f) = fields, case .integer(let modified) = f["modified"],
                  (0...KVReplica.maxModified).contains(modified) else {
                throw KVFileProblem("entry '\(key)' has no 'modified' time (whole microseconds since 1970, up to year 9999)")
            }
            if f["removed"] == .bool(true) {
                entries[key] = KVEntry(value: nil, modified: modified, device: device)
            } else {
                guard let wire = f["value"] else { throw KVFileProblem("entry '\(key)' has neither 'value' nor 'removed'") }
                do { entries[key] = KVEntry(value: try KVValue(wire: wire, path: "entries.\(key).value"), modified: modified, device: device) }
                catch { throw KVFileProblem(error.message) }
            }
        }
        self.init(device: device, entries: entries)
    }

    /// Forgets the oldest removals past ``maxRemovals``.
    public mutating func trimRemovals() {
        let removals = entries.filter { $0.value.value == nil }
        guard removals.count > KVReplica.maxRemovals else { return }
        let oldest = removals.sorted { ($0.value.modified, $0.key) < ($1.value.modified, $1.key) }
            .prefix(removals.count - KVReplica.maxRemovals)
        for (key, _) in oldest { entries[key] = nil }
    }
}
