public import FoundationEssentials

extension Document {
    /// One change of a package — a directory of files the daemon reports as one item — built by
    /// the closure of ``Document/updatePackage(commitFile:limit:listing:lockTimeout:_:)`` from what
    /// the package holds, read under the document's lock.
    ///
    /// A package changes in three steps, so that a reader who reads the commit file and then the
    /// files it names never sees a part of a save:
    ///
    /// ```
    ///   newFiles ──▶ commit file replaced (the commit point) ──▶ removedFiles
    ///   (fresh names nothing refers to yet)                      (what nothing refers to any more)
    /// ```
    ///
    /// Leave ``commit`` nil to write nothing (the change turned out to change nothing).
    public struct PackageUpdate: Sendable {
        /// Whether the package's directory exists. When it does not, the save builds the whole
        /// package under a hidden name and moves it into place.
        public let exists: Bool
        /// The commit file's bytes as the package holds them now; nil when the package, or the
        /// file inside it, is missing.
        public let current: Data?
        /// The names in each directory the save was asked to list, by its path inside the package
        /// (an empty list when the directory is missing; names that are not UTF-8 are left out).
        public let listing: [String: [String]]

        /// The new commit file; nil writes nothing.
        public var commit: Data?
        /// New files by their path inside the package (`images/5f1e.png`), written and `fsync`ed
        /// before the commit. None may exist yet: give each version of a file a new name. Missing
        /// directories on the way are made.
        public var newFiles: [String: Data] = [:]
        /// Files to remove after the commit, by their path inside the package; one that is already
        /// gone is no failure.
        public var removedFiles: [String] = []

        public init(exists: Bool, current: Data?, listing: [String: [String]] = [:]) {
            self.exists = exists
            self.current = current
            self.listing = listing
        }
    }
}
