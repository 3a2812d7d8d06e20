import CUbiquitySystem
import Glibc

/// One raw inotify event, its name decoded. `name` is nil for events about the watched directory
/// itself, and for a name that is not UTF-8: such an entry cannot be indexed (the crawler skips
/// it too), so the event carries the name's bytes in `undecodableName` for the watcher to report.
struct InotifyEvent {
    var wd: Int32
    var mask: InotifyMask
    var cookie: UInt32
    var name: String?
    var undecodableName: [UInt8]? = nil
}
