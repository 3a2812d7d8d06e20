import CUbiquitySystem
import Glibc
import UbiquityIndex

/// Hears about each directory of a walk before its entries are read, and about its entries in parts while it goes on.
protocol CrawlVisitor {
    /// - Parameters:
    ///   - directory: The directory's open descriptor (valid only during the call).
    ///   - path: Its components below the container root.
    ///   - inode: Its inode (0 when unknown).
    /// - Returns: Whether to call again for the directories below this one. The entries of a
    ///   directory it returned true for are listed without their tags (the tag pass reads them).
    mutating func willRead(directory: Int32, path: [String], inode: UInt64) -> Bool
    /// Entries per part sent ahead of the listing (``sendAhead(_:)``); 0: none, the listing goes whole.
    var partSize: Int { get }
    /// Whether a second walker reads ahead of this walk (``ReadAhead``).
    var readAhead: FileWatcher.Configuration.ReadAhead { get }
    /// Whether a second thread takes part of the statuses (``StatHelper``).
    var statHelper: Bool { get }
    /// What a second walker that walks whole subtrees of this walk (``SubtreeHelper``) needs to
    /// watch them as this visitor would; nil: there is none. Asked once, before the walk's root
    /// is read.
    mutating func subtreeWatching() -> SubtreeWatching?
    /// A directory the second walker went into (and watched, or not), in the walk's order: what
    /// ``willRead(directory:path:inode:)`` does, with the watch already added.
    /// - Parameter path: Its components below the container root.
    /// - Returns: Whether to call again for the directories below it (the walker already did).
    mutating func adopt(_ directory: WalkedDirectory, path: [String]) -> Bool
    /// Takes the entries read since the last part while the walk goes on (the listing still
    /// holds them).
    mutating func sendAhead(_ part: CrawlListing.Part)
    /// Where the walk steps aside, before each stretch of a directory's entries, while it is held
    /// (``CrawlPause``); nil: never.
    var pause: CrawlPause? { get }
}

extension CrawlVisitor {
    /// A walk nobody holds.
    var pause: CrawlPause? { nil }
}
