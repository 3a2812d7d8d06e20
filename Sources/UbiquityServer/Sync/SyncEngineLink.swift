/// What a connection needs to act through the sync engine (files on demand): the settings to
/// reach it and the monitor that says whether it is connected and which folder is which
/// container. Made once by the daemon when `[sync]` names an engine.
struct SyncEngineLink: Sendable {
    let settings: SyncEngineSettings
    let monitor: SyncEngineMonitor
    /// Shared by every session: one change of a folder's ignore lines at a time.
    let ignoreLines = FolderIgnoreLock()
}
