import CUbiquitySystem
import Glibc
import UbiquityIndex

/// A plain crawl: nobody listens.
struct NoVisitor: CrawlVisitor {
    var statHelper = false
    func willRead(directory: Int32, path: [String], inode: UInt64) -> Bool { false }
    var partSize: Int { 0 }
    var readAhead: FileWatcher.Configuration.ReadAhead { .never }
    func sendAhead(_ part: CrawlListing.Part) {}
}
