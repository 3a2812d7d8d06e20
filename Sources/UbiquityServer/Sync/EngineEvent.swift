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
    /// When the engine logged it (`time`), nanoseconds since 1970, exactly (``EngineTime``).
    var time: Int64?
    /// A `DownloadProgress` (this device's downloads, every file in progress in every folder):
    /// per folder, per file, bytes done of `bytesTotal`. nil for any other event.
    var downloads: [String: [String: BlockProgress]]?
    /// A `RemoteDownloadProgress` (``device`` fetching files of ``folder`` from us): per file, the
    /// blocks it holds (`data.state`, every file of that device and folder in progress). nil for
    /// any other event.
    var remoteBlocks: [String: Int64]?

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
        time = text(fields["time"]).flatMap(EngineTime.nanoseconds(parsing:))
        guard case .object(let data)? = fields["data"] else { return }
        device = text(data["id"]) ?? text(data["device"])
        folder = text(data["folder"])
        if case .array(let names)? = data["filenames"] { filenames = names.compactMap(text) }
        func integer(_ value: JSONValue?) -> Int64? {
            switch value {
            case .integer(let number)?: return number
            case .double(let number)? where number.isFinite && abs(number) < 9e18: return Int64(number)
            default: return nil
            }
        }
        if type == "DownloadProgress" {
            var downloads: [String: [String: BlockProgress]] = [:]
            for (folder, files) in data {
                guard case .object(let files) = files else { continue }
                var byFile: [String: BlockProgress] = [:]
                for (file, progress) in files {
                    guard case .object(let fields) = progress else { continue }
                    byFile[file] = BlockProgress(done: integer(fields["bytesDone"]) ?? 0, total: integer(fields["bytesTotal"]) ?? 0)
                }
                downloads[folder] = byFile
            }
            self.downloads = downloads
        }
        if type == "RemoteDownloadProgress" {
            var blocks: [String: Int64] = [:]
            if case .object(let state)? = data["state"] {
                for (file, count) in state { if let count = integer(count) { blocks[file] = count } }
            }
            remoteBlocks = blocks
        }
        if type == "ItemFinished", text(data["type"]) == "file", data["error"] == nil || data["error"] == .null {
            finishedItem = text(data["item"])
        }
    }
}
