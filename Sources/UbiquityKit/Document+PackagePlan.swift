import FoundationEssentials

extension Document {
    /// A ``PackageUpdate`` checked and ready to write: each path split into its components inside
    /// the package (``Document/packageComponents(_:)``).
    struct PackagePlan: Sendable {
        var commitFile: String
        var commit: Data
        /// In the order of their paths, so directories on the way are made once, in one order.
        var newFiles: [(components: [String], data: Data)]
        var removedFiles: [[String]]
    }

    /// Checks `update`'s paths: each inside the package, and none the commit file (which only
    /// the commit writes).
    func plan(_ update: PackageUpdate, commit: Data, commitFile: String) throws -> PackagePlan {
        if update.newFiles[commitFile] != nil || update.removedFiles.contains(commitFile) {
            throw UbiquityKitError.documentFile(path: path, reason: "the commit file '\(commitFile)' is written by the commit only, not as a new or removed file")
        }
        return PackagePlan(
            commitFile: commitFile, commit: commit,
            newFiles: try update.newFiles.sorted { $0.key < $1.key }.map { (try packageComponents($0.key), $0.value) },
            removedFiles: try update.removedFiles.map(packageComponents))
    }
}
