import UbiquityJSON
import UbiquityPredicate

/// One event of the engine's stream (`/rest/events`), as far as the daemon reads it. Pure.
struct EngineEvent: Sendable {
    var id: Int64
    var type: String
    /// The device the event is about (`data.id` of a connection, `data.device` of a pause).
    var device: String?
    /// The folder and the files of a `LocalIndexUpdated` (`data.folder`, `data.filenames`).
    var folder: String?
    var filenames: [String] = []
    /// The file an `ItemFinished` is about (`data.item`), when it finished without an error.
    var finishedItem: String?
    /// When the engine logged it (`time`), nanoseconds since 1970, to the millisecond.
    var time: Int64?

    init(id: Int64, type: String, device: String? = nil, folder: String? = nil, filenames: [String] = [], time: Int64? = nil) {
        self.id = id
        self.type = type
        self.device = device
        self.folder = folder
        self.filenames = filenames
        self.time = time
    }

    /// nil for what is not an event with an id.
    init?(json: JSONValue) {
        guard case .object(let fields) = json, case .integer(let id)? = fields["id"] else { return nil }
        func text(_ value: JSONValue?) -> String? {
            if case .string(let text)? = value { return text }
            return nil
        }
        self.init(id: id, type: text(fields["type"]) ?? "")
        time = text(fields["time"]).flatMap(ISODate.milliseconds(parsing:)).flatMap { ms in
            let (nanoseconds, overflow) = ms.multipliedReportingOverflow(by: 1_000_000)
            return overflow ? nil : nanoseconds
        }
        guard case .object(let data)? = fields["data"] else { return }
        device = text(data["id"]) ?? text(data["device"])
        folder = text(data["folder"])
        if case .array(let names)? = data["filenames"] { filenames = names.compactMap(text) }
        if type == "ItemFinished", text(data["type"]) == "file", data["error"] == nil || data["error"] == .null {
            finishedItem = text(data["item"])
        }
    }
}
