import UbiquityJSON

/// The requests files on demand make of Syncthing for one folder: its ignore patterns, a scan of
/// one path, a priority pull. Every failure is a ``SyncError`` `sync.engineUnavailable` naming
/// the request; nothing is retried (the client asks again).
struct SyncthingFolderRequests: Sendable {
    let client: EngineHTTPClient
    let key: String
    let folder: String
    let engine: String
    /// How long one request may take (`[sync] folder_request_timeout_s`). A Syncthing folder does
    /// one job at a time: a scan, and the scan behind an ignore write, wait for a pull or a scan
    /// in progress. A read waits at least ``readFloor``.
    let timeout: Duration

    /// How long a read that no folder job holds (a file's record, the ignore lines) may take at
    /// least, as the daemon's other reads of the engine do: only a starved engine delays one, and
    /// a short folder timeout, meant for the folder's queue, would refuse an eviction for nothing
    /// or leave its ignore line in place.
    static let readFloor: Duration = .seconds(10)

    /// How long a read may take: the folder's timeout, never below ``readFloor``.
    private var readTimeout: Duration { max(timeout, Self.readFloor) }

    static func open(_ link: SyncEngineLink, folder: String) async throws -> SyncthingFolderRequests {
        do {
            let (client, key) = try await SyncEngineService.endpoint(link.settings)
            return SyncthingFolderRequests(client: client, key: key, folder: folder, engine: link.settings.engine,
                                           timeout: .seconds(link.settings.folderRequestTimeoutSeconds))
        } catch let stop as SyncEngineService.Stop {
            throw SyncError(.engineUnavailable, "the sync engine cannot be reached: \(stop)", details: ["folder": .string(folder)])
        }
    }

    private var folderQuery: String { "folder=" + SyncEngineService.queryEscaped(folder) }

    /// The folder's ignore lines as written (`/rest/db/ignores`: `ignore`, null when none).
    func ignores() async throws -> [String] {
        let answer = try await send(post: false, "/rest/db/ignores?\(folderQuery)", body: nil, timeout: readTimeout)
        guard case .object(let fields) = answer else { throw failed("GET /rest/db/ignores", "the answer is not an object") }
        guard case .array(let lines)? = fields["ignore"] else { return [] }
        return lines.compactMap { if case .string(let line) = $0 { line } else { nil } }
    }

    /// The write alone, answered after Syncthing's scan of the folder: ``writeIgnores(_:)`` says why not to wait for it.
    private func setIgnores(_ lines: [String]) async throws {
        let body = JSONLine.encode(.object(["ignore": .array(lines.map(JSONValue.string))]))
        _ = try await send(post: true, "/rest/db/ignores?\(folderQuery)", body: Array(body.utf8))
    }

    /// Writes the folder's ignore lines and returns once Syncthing has them: its answer, or the
    /// lines read back as written, whichever comes first. Syncthing writes `.stignore` at once but
    /// answers only after scanning the whole folder, and a folder does one job at a time: behind a
    /// pull in progress (another item's download) that answer waits for the pull. Reading back
    /// (`GET`, which reads the file, not the folder's queue) ends the wait; Syncthing's scan goes on.
    /// A write whose request failed (refused, or its scan failed or timed out) counts all the
    /// same when the lines read back as written: Syncthing wrote them before it scanned.
    func writeIgnores(_ lines: [String]) async throws {
        let answer: Result<Void, any Error>? = await withTaskGroup(of: Result<Void, any Error>?.self) { group in
            group.addTask {
                do { return .success(try await setIgnores(lines)) } catch { return .failure(error) }
            }
            group.addTask {
                // A read that fails is tried again: the write's own request ends the group
                // within `timeout`, and with it this loop.
                var pause = Duration.milliseconds(5)
                while !Task.isCancelled {
                    if let now = try? await ignores(), now == lines { return nil }
                    try? await Task.sleep(for: pause)
                    pause = min(pause * 2, .milliseconds(250))
                }
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        guard case .failure(let error)? = answer else { return }
        if let now = try? await ignores(), now == lines { return }
        throw error
    }

    /// Scans one path (`sub`); Syncthing answers once the scan is done.
    func scan(_ relative: String) async throws {
        _ = try await send(post: true, "/rest/db/scan?\(folderQuery)&sub=\(SyncEngineService.queryEscaped(relative))", body: nil)
    }

    /// Moves the file to the front of the pull queue.
    func bringToFront(_ relative: String) async throws {
        _ = try await send(post: true, "/rest/db/prio?\(folderQuery)&file=\(SyncEngineService.queryEscaped(relative))", body: nil)
    }

    /// What the engine records of the file at `relative` (`GET /rest/db/file`, the path
    /// percent-encoded from its bytes); nil when it has no record (HTTP 404: a file it never
    /// indexed — ignored by the folder's patterns, or a name it does not sync). A read of the
    /// engine's database, which no folder job holds (``readFloor``).
    func file(_ relative: String) async throws -> SyncthingFileRecord? {
        let target = "/rest/db/file?\(folderQuery)&file=\(SyncEngineService.queryEscaped(relative))"
        let request = "GET \(EngineHTTPClient.pathOnly(target))"
        let response = try await exchange(post: false, target, body: nil, timeout: readTimeout)
        if response.status == 404 { return nil }
        guard let record = try answer(response, to: request).flatMap(SyncthingFileRecord.init(json:)) else {
            throw failed(request, "the answer is not a JSON object")
        }
        return record
    }

    private func send(post: Bool, _ target: String, body: [UInt8]?, timeout: Duration? = nil) async throws -> JSONValue? {
        try answer(try await exchange(post: post, target, body: body, timeout: timeout),
                   to: "\(post ? "POST" : "GET") \(EngineHTTPClient.pathOnly(target))")
    }

    /// One request and its response, whatever its status; `timeout` instead of the folder's. A
    /// timeout's error names the setting that bounds the wait (and the floor, when that bound
    /// it), so that a user knows what to raise; a refusal or an HTTP error names none: no wait
    /// would have changed it.
    private func exchange(post: Bool, _ target: String, body: [UInt8]?, timeout: Duration? = nil) async throws -> EngineHTTPClient.Response {
        let request = "\(post ? "POST" : "GET") \(EngineHTTPClient.pathOnly(target))"
        let limit = timeout ?? self.timeout
        do {
            return post ? try await client.post(target, json: body, apiKey: key, timeout: limit)
                : try await client.get(target, apiKey: key, timeout: limit)
        } catch EngineHTTPError.timedOut(let reason) {
            let setting = "[sync] folder_request_timeout_s sets how long to wait"
                + (limit == self.timeout ? "" : ", \(limit) at least for a read")
            // A write or a scan waits in the folder's queue; a priority pull and a read do not.
            let queued = post && !target.hasPrefix("/rest/db/prio")
            throw failed(request, reason + (queued ? " (the folder does one job at a time, and a pull or a scan in progress holds it; \(setting))"
                                                   : " (\(setting))"))
        } catch let error as EngineHTTPError {
            throw failed(request, error.reason)
        }
    }

    /// The JSON of a `200` answer (nil when empty); any other status is a failure of `request`.
    private func answer(_ response: EngineHTTPClient.Response, to request: String) throws -> JSONValue? {
        guard response.status == 200 else {
            let text = String(decoding: response.body.prefix(200), as: UTF8.self)
            throw failed(request, "HTTP \(response.status)\(text.isEmpty ? "" : ": \(text)")")
        }
        guard !response.body.isEmpty else { return nil }
        return try? JSONLine.decode(response.body)
    }

    private func failed(_ request: String, _ why: String) -> SyncError {
        SyncError(.engineUnavailable, "\(engine) refused or failed \(request) for folder '\(folder)': \(why)",
                  details: ["folder": .string(folder)])
    }
}
