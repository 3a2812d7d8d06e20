import CUbiquitySystem
import Glibc
import UbiquityIndex

/// Hears about each directory of a walk before its entries are read.
protocol CrawlVisitor {
    /// - Parameters:
    ///   - directory: The directory's open descriptor (valid only during the call).
    ///   - path: Its components below the container root.
    ///   - inode: Its inode (0 when unknown).
    /// - Returns: Whether to call again for the directories below this one. The entries of a
    ///   directory it returned true for are listed without their tags (the tag pass reads them).
    mutating func willRead(directory: Int32, path: [String], inode: UInt64) -> Bool
}
