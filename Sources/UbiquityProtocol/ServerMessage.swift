public import UbiquityJSON

/// A server line is either a response (it has `id`) or an event (it has `event`).
public enum ServerMessage: Sendable, Hashable {
    case response(Response)
    case event(ServerEvent)
    /// `kv.changed`: keys of a subscribed key-value store changed elsewhere.
    case keyValueChanged(KeyValueChange)
    /// `store.changed`: rows of a store this connection opened changed elsewhere.
    case storeChanged(StoreChange)
    /// `store.gatheringFinished`, `store.update`, `store.watchStopped`: a live fetch's events.
    case storeWatch(StoreWatchEvent)
    /// An event this client does not know (a newer server's): ignored, as the protocol asks.
    case unknownEvent(name: String, json: JSONValue)

    public init(json: JSONValue) throws(ProtocolError) {
        try self.init(json: json, scannedItems: [:])
    }

    /// - Parameter scannedItems: Lists of result items ``JSONScanner`` read straight from the
    ///   line; `json` holds an empty array under each of their keys.
    init(json: JSONValue, scannedItems: [String: [WireItem]]) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "message")
        if let event = reader.object["event"] {
            if event == .string(KeyValueChange.name) { self = .keyValueChanged(try KeyValueChange(json: json)) }
            else if event == .string(StoreChange.name) { self = .storeChanged(try StoreChange(json: json)) }
            else if case .string(let name) = event, StoreWatchEvent.names.contains(name) {
                // A live fetch's rows are not result items: lists read as items would lose columns.
                guard scannedItems.isEmpty else {
                    throw .malformed("\(name): its rows were read as result items", field: scannedItems.keys.sorted().first)
                }
                self = .storeWatch(try StoreWatchEvent(json: json))
            }
            else if case .string(let name) = event, !ServerEvent.names.all.contains(name) {
                var object = reader.object
                for (key, items) in scannedItems { object[key] = .array(items.map(\.json)) }
                self = .unknownEvent(name: name, json: .object(object))
            }
            else { self = .event(try ServerEvent(json: json, scannedItems: scannedItems)) }
        }
        else { self = .response(try Response(json: json)) }
    }

    /// Reads one line from the daemon (without its `\n`) in one pass, without Foundation:
    /// result items go straight into ``WireItem``s (``JSONScanner``). The same messages, and
    /// the same errors for a malformed message, as ``init(json:)`` of the line's JSON. Items
    /// the daemon wrote as it writes them are kept as bytes, in a copy of the line.
    ///
    /// - Throws: `request.malformed` when the line is not JSON (naming the byte) or not a message.
    public init(line: UnsafeBufferPointer<UInt8>) throws(ProtocolError) {
        try self.init(JSONScanner(line))
    }

    /// ``init(line:)-(UnsafeBufferPointer<UInt8>)``, its items kept as ranges of `line` itself
    /// (no copy): they keep the line as long as they live.
    public init(line: ReceivedLine) throws(ProtocolError) {
        try self.init(JSONScanner(line))
    }

    /// The same, for a line without the items of its first list, which arrived apart
    /// (``ListedItems``, UbiquityKit's line reader).
    package init(line: ReceivedLine, listed: ListedItems?) throws(ProtocolError) {
        do {
            try self.init(JSONScanner(line, listed: listed))
        } catch {
            try self.init(wholeLine: line.bytes, listed: listed, failure: error)
        }
    }

    /// The same, for a line that is not kept (its kept items get a copy).
    package init(line: UnsafeBufferPointer<UInt8>, listed: ListedItems?) throws(ProtocolError) {
        do {
            try self.init(JSONScanner(line, listed: listed))
        } catch {
            try self.init(wholeLine: line, listed: listed, failure: error)
        }
    }

    /// A line read without its listed items failed: read it whole, as any other line, for the
    /// same outcome as a line that arrived whole — the same error, at the same byte.
    private init(wholeLine line: UnsafeBufferPointer<UInt8>, listed: ListedItems?, failure: ProtocolError) throws(ProtocolError) {
        guard let listed, listed.count > 0, listed.isComplete else { throw failure }
        let whole = listed.whole(line)
        try self.init(line: whole.withUnsafeBufferPointer { ReceivedLine(copying: $0) })
    }

    private init(_ scanner: JSONScanner) throws(ProtocolError) {
        let original = scanner
        var scanner = scanner
        scanner.skipWhitespace()
        guard scanner.peek(UInt8(ascii: "{")) else {
            try self.init(json: try scanner.document())
            return
        }
        var object: [String: JSONValue] = [:]
        var lists: [String: [WireItem]] = [:]
        try scanner.members { (scanner, key) throws(ProtocolError) in
            guard object[key] == nil else {
                _ = try scanner.value()     // the first of repeated keys counts
                return
            }
            scanner.skipWhitespace()
            if WireItem.listKeys.contains(key), scanner.peek(UInt8(ascii: "[")), let items = try scanner.wireItems() {
                lists[key] = items
                object[key] = .array([])
            } else {
                object[key] = try scanner.value()
            }
        }
        try scanner.end()
        if !lists.isEmpty, case .string(let name)? = object["event"], StoreWatchEvent.names.contains(name) {
            // A live fetch's row with a `path` column looks like a result item (`added`, `changed`,
            // `removed`): its rows are read again as plain JSON, whole. Items taken as the line
            // arrived are not in these bytes: the caller reads the whole line (`wholeLine`).
            if original.lacksListedItems {
                throw .malformed("\(name): its rows were taken as result items as the line arrived", field: "event")
            }
            var whole = original
            try self.init(json: try whole.document())
            return
        }
        try self.init(json: .object(object), scannedItems: lists)
    }

    public var json: JSONValue {
        switch self {
        case .response(let r): r.json
        case .event(let e): e.json
        case .keyValueChanged(let c): c.json
        case .storeChanged(let c): c.json
        case .storeWatch(let e): e.json
        case .unknownEvent(_, let json): json
        }
    }
}
