import CUbiquitySystem
import Glibc

/// The inotify event bits, converted once from Glibc's mixed `Int32`/`UInt32` constants.
struct InotifyMask: OptionSet, Hashable {
    let rawValue: UInt32

    private init(_ value: Int32) { rawValue = UInt32(bitPattern: value) }
    init(rawValue: UInt32) { self.rawValue = rawValue }

    static let modify = InotifyMask(IN_MODIFY)
    static let attrib = InotifyMask(IN_ATTRIB)
    static let closeWrite = InotifyMask(IN_CLOSE_WRITE)
    static let movedFrom = InotifyMask(IN_MOVED_FROM)
    static let movedTo = InotifyMask(IN_MOVED_TO)
    static let create = InotifyMask(IN_CREATE)
    static let delete = InotifyMask(IN_DELETE)
    static let deleteSelf = InotifyMask(IN_DELETE_SELF)
    static let moveSelf = InotifyMask(IN_MOVE_SELF)
    static let unmount = InotifyMask(IN_UNMOUNT)
    static let queueOverflow = InotifyMask(IN_Q_OVERFLOW)
    static let ignored = InotifyMask(IN_IGNORED)
    static let isDirectory = InotifyMask(IN_ISDIR)
    static let onlyDirectory = InotifyMask(IN_ONLYDIR)
    static let dontFollow = InotifyMask(IN_DONT_FOLLOW)
    static let excludeUnlinked = InotifyMask(IN_EXCL_UNLINK)

    /// Everything a directory watch of the watcher asks for.
    static let directoryEvents: InotifyMask = [
        .create, .delete, .modify, .attrib, .closeWrite, .movedFrom, .movedTo, .deleteSelf, .moveSelf,
        .onlyDirectory, .excludeUnlinked,
    ]
}
