public import UbiquityJSON

/// The sync engine connection in `status` (`syncEngine`): which engine the daemon follows, whether
/// it reaches it, and which containers the engine shares.
public struct SyncEngineStatus: Sendable, Hashable {
    /// Where the connection stands.
    public enum State: String, Sendable, Hashable {
        /// Not reached yet since the daemon started.
        case connecting
        /// The engine answers and its events are followed.
        case connected
        /// Nothing answers at the address (not running, wrong address).
        case unreachable
        /// The engine refused the API key.
        case unauthorized
        /// The engine answered with something the daemon cannot read.
        case failed
    }

    /// One container the engine shares, and the engine's name for it (Syncthing's folder id).
    public struct SharedFolder: Sendable, Hashable {
        public var container: String
        public var folder: String

        public init(container: String, folder: String) {
            self.container = container
            self.folder = folder
        }
    }

    /// `syncthing`.
    public var engine: String
    /// Where the daemon reaches it: a Unix socket path or `host:port`.
    public var address: String
    public var state: State
    /// Why the state is not `connected`, in a sentence.
    public var reason: String?
    /// The engine's own device id, once connected.
    public var device: String?
    public var folders: [SharedFolder]
    /// Containers served here that the engine does not share: nothing of them syncs.
    public var unshared: [String]
    /// The newest engine event the daemon has read (Syncthing's event id; it restarts at 1 when
    /// Syncthing restarts).
    public var lastEvent: Int64
    /// How many times the daemon had to read the engine's state again instead of trusting its
    /// event stream (the engine restarted, or more events came than its buffer keeps).
    public var resyncs: Int64

    public init(engine: String, address: String, state: State, reason: String? = nil, device: String? = nil,
                folders: [SharedFolder] = [], unshared: [String] = [], lastEvent: Int64 = 0, resyncs: Int64 = 0) {
        self.engine = engine
        self.address = address
        self.state = state
        self.reason = reason
        self.device = device
        self.folders = folders
        self.unshared = unshared
        self.lastEvent = lastEvent
        self.resyncs = resyncs
    }

    public var json: JSONValue {
        var fields: [String: JSONValue] = [
            "engine": .string(engine), "address": .string(address), "state": .string(state.rawValue),
            "folders": .array(folders.map { .object(["container": .string($0.container), "folder": .string($0.folder)]) }),
            "unshared": .array(unshared.map(JSONValue.string)),
            "lastEvent": .integer(lastEvent), "resyncs": .integer(resyncs),
        ]
        if let reason { fields["reason"] = .string(reason) }
        if let device { fields["device"] = .string(device) }
        return .object(fields)
    }

    public init(json: JSONValue, context: String) throws(ProtocolError) {
        let reader = try FieldReader(json, context: context)
        engine = try reader.string("engine")
        address = try reader.string("address")
        let stateName = try reader.string("state")
        guard let state = State(rawValue: stateName) else {
            throw .malformed("\(context): unknown state '\(stateName)'", field: "state")
        }
        self.state = state
        reason = try reader.optionalString("reason")
        device = try reader.optionalString("device")
        folders = try reader.list("folders") { (value, at) throws(ProtocolError) in
            let folder = try FieldReader(value, context: at)
            return SharedFolder(container: try folder.string("container"), folder: try folder.string("folder"))
        }
        unshared = try reader.optionalStrings("unshared") ?? []
        lastEvent = Int64(try reader.optionalInt("lastEvent") ?? 0)
        resyncs = Int64(try reader.optionalInt("resyncs") ?? 0)
    }

    /// The sentence for `status`'s `degraded`, when the connection is not well.
    public var degradedSentence: String? {
        switch state {
        case .connected:
            return unshared.isEmpty ? nil
                : "\(engine) does not share container\(unshared.count == 1 ? "" : "s") \(unshared.joined(separator: ", ")): nothing of \(unshared.count == 1 ? "it" : "them") syncs"
        case .connecting:
            return nil
        case .unreachable, .unauthorized, .failed:
            return "the sync engine \(engine) at \(address) is \(state.rawValue): \(reason ?? "no reason given"); sync attributes are unknown"
        }
    }
}
