/// One change of a folder's ignore lines at a time, across every session: reading them, changing
/// them and writing them back is not one request, so two evictions or downloads of items of one
/// folder would each write the lines they read, and the later would undo the earlier. Held for
/// the read and the write only (``SyncthingFolderRequests/writeIgnores(_:)`` returns once the
/// lines read back), never while a scan is awaited.
actor FolderIgnoreLock {
    private var held: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `body` while no other change of `folder`'s lines runs.
    nonisolated func changing<T>(_ folder: String, _ body: () async throws -> T) async throws -> T {
        await take(folder)
        do {
            let result = try await body()
            await give(folder)
            return result
        } catch {
            await give(folder)
            throw error
        }
    }

    private func take(_ folder: String) async {
        guard held.contains(folder) else {
            held.insert(folder)
            return
        }
        await withCheckedContinuation { waiting[folder, default: []].append($0) }
    }

    /// Hands the folder to the next in line, in the order they came.
    private func give(_ folder: String) {
        guard var queue = waiting[folder], !queue.isEmpty else {
            held.remove(folder)
            return
        }
        let next = queue.removeFirst()
        waiting[folder] = queue.isEmpty ? nil : queue
        next.resume()
    }
}
