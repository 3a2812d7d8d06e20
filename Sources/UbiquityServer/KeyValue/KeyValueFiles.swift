import Glibc
import UbiquityKeyValue
import UbiquitySystem

/// The store's files on disk (docs/kv-store.md): `<container>/.ubiquity-kv/<device>.json`, read and
/// written through the directory's descriptor, never following a link.
///
/// A write is durable before it returns (the door's ``Directory/replace(_:with:mode:temporary:)``):
/// after a crash the file is either the old one or the new one, whole.
enum KeyValueFiles {
    /// The folder in every container (one of ``SyncEngineFiles``' names: never an item).
    static let directory = ".ubiquity-kv"

    /// Opens the store's folder below the container's held root (never the root by path again),
    /// creating it (as root, for the container's owner) when missing and `create`; nil when it
    /// is missing and not `create`, or the root is not held. The caller closes the descriptor.
    static func openDirectory(root held: HeldRoot?, create: Bool, owner: UInt32?, group: UInt32?) -> Result<Directory, FileProblem>? {
        guard let held else { return create ? .failure(FileProblem("the container's directory cannot be opened")) : nil }
        let fd = held.fd, root = held.path
        if create {
            let asRoot = geteuid() == 0
            if case .failure(let problem) = ContainerDirectory.ensure(directory, in: fd, parentPath: root, mode: 0o755,
                                                                      owner: asRoot ? owner : nil, group: asRoot ? group : nil) {
                return .failure(problem)
            }
        }
        do {
            return .success(try Directory(borrowing: fd, path: root).openDirectory(directory))
        } catch where error.errno == ENOENT && !create {
            return nil
        } catch {
            return .failure(FileProblem("cannot open \(root)/\(directory): \(error.message)"))
        }
    }

    /// The store files in the folder: `*.json` not starting with a dot (a sync engine's temporary
    /// files and our own `.writing` files start with one). Conflict copies a sync engine may make
    /// (`X.sync-conflict-….json`) are read too: merging them is harmless.
    static func names(in entries: [String]) -> [String] {
        entries.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
    }

    /// Replaces `name` durably (the door's ``Directory/replace(_:with:mode:temporary:)``); waits
    /// for the disk, so the store runs it on its `io` threads.
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    static func write(_ bytes: [UInt8], to name: String, in directory: Directory) throws(SystemCallError) {
        try directory.replace(name, with: bytes)
    }

    /// What one file costs against ``KVReadLimits``.
    struct Cost: Sendable, Hashable {
        var bytes = 0
        var values = 0
    }

    /// One reading of a store's folder (``read(root:own:skippingOwn:retained:limits:)``).
    struct Reading: Sendable {
        /// Files to record: read well (a replica), or dropped (nil: kept while absent, then past the bounds).
        var changes: [String: KVReplica?] = [:]
        /// What every file kept now costs, by name (the caller's `retained` updated).
        var costs: [String: Cost] = [:]
        /// Why each present file that was not read was not (damaged, or past a bound).
        var problems: [String: String] = [:]
        /// Every store file name in the folder.
        var present: Set<String> = []
    }

    /// Reads the store's folder of the container at `root` within `limits` — blocking file I/O
    /// and JSON parsing of files anyone who can write the container controls, so the caller runs
    /// it on a thread of its own, never on Swift's cooperative pool.
    ///
    /// This device's file `own` comes first (unless `skippingOwn`, when its `retained` cost
    /// counts), then the others in name order while the store's bounds last; a file that is gone
    /// keeps what was last read of it (`retained`) while that still fits, and is dropped otherwise.
    /// A file that does not read keeps its last content too. nil: the folder does not exist.
    static func read(root: HeldRoot?, own: String, skippingOwn: Bool, cleaning: Bool, retained: [String: Cost],
                     limits: KVReadLimits) -> Result<Reading, FileProblem>? {
        let fd: Directory
        switch openDirectory(root: root, create: false, owner: nil, group: nil) {
        case nil: return nil
        case .failure(let problem)?: return .failure(problem)
        case .success(let value)?: fd = value
        }
        let entries = fd.textNames()
        if cleaning { DurableFiles.removeTemporaries(of: own, in: fd, among: entries) }
        var reading = Reading()
        let names = Self.names(in: entries)
        reading.present = Set(names)
        var used = Cost(), files = 0
        /// Files counted in `files` this pass: one gone or unreadable now, and kept from before,
        /// is not counted a second time.
        var looked = Set<String>()
        func keep(_ name: String, _ cost: Cost) {
            used.bytes = used.bytes.addingReportingOverflow(cost.bytes).overflow ? .max : used.bytes + cost.bytes
            used.values = used.values.addingReportingOverflow(cost.values).overflow ? .max : used.values + cost.values
            reading.costs[name] = cost
        }
        if skippingOwn, let cost = retained[own] { keep(own, cost); files += 1 }
        let order = (reading.present.contains(own) && !skippingOwn ? [own] : []) + names.filter { $0 != own }
        for name in order {
            if files >= limits.files {
                reading.problems[name] = "the store already has \(limits.files) files, the most read in one store; this one is not read"
                continue
            }
            files += 1      // every file looked at counts, read well or not: each may cost a read
            looked.insert(name)
            switch DurableFiles.read(name, in: fd, limit: limits.fileBytes) {
            case nil:
                reading.present.remove(name)
            case .failure(let problem)?:
                reading.problems[name] = problem.message
            case .success(let bytes)?:
                let cost = Cost(bytes: bytes.count, values: KVReplica.measure(bytes, limits: limits).values)
                if cost.bytes <= limits.fileBytes && used.bytes > limits.storeBytes - cost.bytes {
                    reading.problems[name] = "the store's files would pass \(limits.storeBytes) bytes together, the most read in one store; this one is not read"
                    continue
                }
                if cost.values <= limits.fileValues && used.values > limits.storeValues - cost.values {
                    reading.problems[name] = "the store's files would hold more than \(limits.storeValues) JSON values together, the most read in one store; this one is not read"
                    continue
                }
                do {
                    reading.changes[name] = try KVReplica(bytes: bytes, limits: limits)
                    keep(name, cost)
                } catch {
                    reading.problems[name] = error.reason
                }
            }
        }
        // Files kept from before and not read now (gone: a sync engine replacing them; or
        // unreadable this time): their last content stays while it fits the bounds.
        for (name, cost) in retained.sorted(by: { $0.key < $1.key })
        where reading.costs[name] == nil && !(skippingOwn && name == own) {
            let counted = looked.contains(name)
            let fits = (counted || files < limits.files) && cost.bytes <= limits.storeBytes && used.bytes <= limits.storeBytes - cost.bytes
                && cost.values <= limits.storeValues && used.values <= limits.storeValues - cost.values
            if fits {
                keep(name, cost)
                if !counted { files += 1 }
            } else {
                reading.changes[name] = .some(nil)
            }
        }
        return .success(reading)
    }
}
