import Glibc
import UbiquityProtocol

extension ItemETag {
    /// The etag of the inode `info` describes (from `fstat` of the descriptor that was read, or
    /// `fstatat` without following a link).
    init(of info: stat) {
        self.init(inode: UInt64(info.st_ino), modifiedSeconds: Int64(info.st_mtim.tv_sec),
                  modifiedNanoseconds: Int64(info.st_mtim.tv_nsec), size: Int64(info.st_size))
    }
}
