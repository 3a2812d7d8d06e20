import CUbiquitySystem
import Glibc
import UbiquityIndex

/// Hears about each directory of a walk before its entries are read.
protocol CrawlVisitor {
    /// - Parameters:
    ///   - directory: The directory's open descriptor (valid only during the call).
    ///   - path: Its components below the container root.
    /// - Returns: Whether to call again for the directories below this one.
    mutating func willRead(directory: Int32, path: [String]) -> Bool
}
