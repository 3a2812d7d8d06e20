import UbiquityIndex
import UbiquityJSON

/// What Syncthing records of one file (`GET /rest/db/file?folder=ID&file=PATH`), as far as an
/// eviction reads it, and whether another device holds exactly this file's current version. Pure.
///
/// The need lists cannot say so: they name what is out of sync, and a file the engine never
/// indexed is in none of them — one the folder's ignore patterns leave out, or a name it does not
/// sync (Syncthing 1.19 keeps one spelling of canonically equal names, NFC, and skips the other
/// with a folder error, "item has UTF8 encoding conflict with another item"). So the eviction asks
/// the engine about the file itself. Syncthing answers the canonically equal spelling it holds
/// for a path it does not (it normalizes the name asked), so the names must match byte for byte.
///
/// Syncthing 1.19's answer (fields read; `availability` is `null` when no device has it):
///
/// ```json
/// {"availability": [{"id": "FK37RYN-…", "fromTemporary": false}],
///  "global": {"name": "Documents/café", "deleted": false, "ignored": false, "invalid": false,
///             "modified": "2026-11-28T18:19:58.56818897Z", "size": 11, "version": ["HZ37V6W:1795889998"], …},
///  "local":  {…the same fields…}, "mtime": {…}}
/// ```
struct SyncthingFileRecord: Sendable, Equatable {
    /// One of the engine's records of the file: this device's (`local`) or the current version (`global`).
    struct Entry: Sendable, Equatable {
        var name: String
        var version: [String]
        var deleted: Bool
        var ignored: Bool
        var invalid: Bool
        var size: Int64?
        /// Its modification time, nanoseconds since 1970 (``EngineTime``).
        var modified: Int64?

        init?(json: JSONValue?) {
            guard case .object(let fields)? = json, case .string(let name)? = fields["name"] else { return nil }
            func flag(_ key: String) -> Bool { if case .bool(let value)? = fields[key] { value } else { false } }
            self.name = name
            if case .array(let counters)? = fields["version"] {
                version = counters.compactMap { if case .string(let counter) = $0 { counter } else { nil } }
            } else {
                version = []
            }
            deleted = flag("deleted")
            ignored = flag("ignored")
            invalid = flag("invalid")
            if case .integer(let bytes)? = fields["size"] { size = bytes }
            if case .string(let time)? = fields["modified"] { modified = EngineTime.nanoseconds(parsing: time) }
        }
    }

    var local: Entry?
    var global: Entry?
    /// The devices that hold the current version whole (connected, `fromTemporary` false).
    var holders: [String]

    /// nil when `json` is not an object.
    init?(json: JSONValue) {
        guard case .object(let fields) = json else { return nil }
        var holders: [String] = []
        if case .array(let devices)? = fields["availability"] {
            for case .object(let device) in devices {
                guard case .string(let id)? = device["id"] else { continue }
                if case .bool(true)? = device["fromTemporary"] { continue }
                holders.append(id)
            }
        }
        self.init(local: Entry(json: fields["local"]), global: Entry(json: fields["global"]), holders: holders)
    }

    init(local: Entry?, global: Entry?, holders: [String]) {
        self.local = local
        self.global = global
        self.holders = holders
    }

    /// nil when a device other than `ownDevice` holds the current version of exactly the file at
    /// `relative` (its bytes), and this device's record of it is that version, taken from the
    /// file as it is on disk now (`size`, `modified` in nanoseconds); otherwise why not, for
    /// the refusal's message.
    func whyNotHeldElsewhere(_ relative: String, size: Int64, modified: Int64, ownDevice: String?) -> String? {
        guard let global else { return "the sync engine has no record of it" }
        guard let local else { return "the sync engine has no record of this device's copy" }
        guard ExactName.sameBytes(local.name, relative), ExactName.sameBytes(global.name, relative) else {
            return "the sync engine knows only another spelling of its name, '\(global.name)' (equal as text, not byte for byte): it does not sync this one"
        }
        // Also what an eviction that stopped after writing its own ignore line leaves (a crash):
        // downloading the item takes that line back.
        if local.ignored { return "the sync engine ignores it here (the folder's ignore patterns, or an eviction of it that did not finish: downloading it takes that line back)" }
        if local.invalid || global.invalid { return "the sync engine does not sync it (its record is invalid)" }
        if local.deleted || global.deleted { return "the sync engine records it as deleted" }
        guard local.version == global.version else { return "this copy is not the sync engine's current version" }
        guard local.size == size, local.modified == modified else {
            return "its size or modification time differs from the sync engine's record (changed since its last scan)"
        }
        guard holders.contains(where: { $0 != ownDevice }) else { return "no connected device holds its current version (the sync engine's availability)" }
        return nil
    }
}
