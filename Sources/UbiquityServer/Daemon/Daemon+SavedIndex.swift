import Glibc
import Logging
import Synchronization
import UbiquityIndex

/// The saved index (docs/architecture.md, "The saved index"): loaded at start, saved after the
/// first crawl, periodically while it changes, and at shutdown.
extension Daemon {
    static func openIndexStore(_ directory: String, logger: Logger) -> Result<IndexStore, FileProblem> {
        let opened = IndexStore.open(stateDirectory: directory)
        if case .failure(let problem) = opened {
            logger.warning("the index will not be saved: since tokens will not survive a restart",
                           metadata: ["error": "\(problem.message)"])
        }
        return opened
    }

    /// The saved index's files; nil (and the files removed) when there are none or they cannot
    /// be read: the daemon then crawls from nothing under a new epoch.
    static func readSavedIndex(from store: IndexStore, stepAside: StepAside = .never, logger: Logger) -> SavedIndexFiles? {
        let files = store.read(betweenPieces: { stepAside() })
        let snapshot: [UInt8]
        switch files.snapshot {
        case nil:
            logger.info("no saved index: crawling every container", metadata: ["directory": "\(store.path)"])
            store.discard()
            return nil
        case .failure(let problem)?:
            logger.warning("saved index discarded: crawling every container", metadata: ["reason": "\(problem.message)"])
            store.discard()
            return nil
        case .success(let bytes)?:
            snapshot = bytes
        }
        var journal: [UInt8]?
        switch files.journal {
        case .success(let bytes)?: journal = bytes
        case .failure(let problem)?:
            // Without its journal the snapshot may be behind clocks already handed out.
            logger.warning("saved index discarded: crawling every container", metadata: ["reason": "\(problem.message)"])
            store.discard()
            return nil
        case nil: journal = nil
        }
        return SavedIndexFiles(snapshot: snapshot, journal: journal)
    }

    /// What the last clean shutdown remembered of its live queries' answers, when its journal is
    /// as it left it (the snapshot is read later, by ``loadSavedIndex()``; one that is not the
    /// answers' gets them replaced); the file is taken either way (read once, then removed).
    static func rememberedAnswers(in store: IndexStore, logger: Logger) -> [RememberedAnswer] {
        let journal = store.cleanShutdownJournal()
        switch store.takeAnswers() {
        case nil: return []
        case .failure(let problem)?:
            logger.warning("remembered answers not read", metadata: ["reason": "\(problem.message)"])
            return []
        case .success(let bytes)?:
            do {
                guard let journal else {
                    logger.info("remembered answers not used: records follow the saved index")
                    return []
                }
                let answers = try RememberedAnswers.decode(bytes, journal: journal)
                logger.info("remembered answers read", metadata: [
                    "answers": "\(answers.count)", "results": "\(answers.reduce(0) { $0 + $1.results.count })", "bytes": "\(bytes.count)"])
                return answers
            } catch {
                logger.warning("remembered answers not used", metadata: ["reason": "\(error)"])
                return []
            }
        }
    }

    /// Loads the saved index found at start, on the index store's thread (``IndexStore/runBlocking(_:)``:
    /// scheduled as batch work, so that an answer from memory written meanwhile wins a contended
    /// core), while the watcher, started by `run()`, crawls (the load overlaps the check's crawl:
    /// at 1M entries 0.4 s alone, beside a crawl of about 1.7 s); then hands the index to the engine (which everything
    /// reading the index waited for); when its journal could not be continued, saves it before the
    /// watcher's first batch is applied (the engine takes batches only after this returns,
    /// ``IndexService``), so that a journal follows it before any later clock is handed out.
    func loadSavedIndex() async {
        // Nothing to load: the engine was not made to wait for an index.
        guard savedIndexFound, let store = indexStore else { return }
        let loaded = Mutex<RestoredIndex?>(nil)
        let containers = settings.containers.map(\.descriptor), retention = settings.history, logger = self.logger
        // The restore steps aside while an answer given meanwhile (a remembered one) is written, as
        // the crawl does: the answer holds both through the crawl's pause.
        let pause = watcher.crawlPause
        let stepAside = StepAside { pause.waitWhileHeld() }
        do {
            try await store.runBlocking {
                guard let files = Daemon.readSavedIndex(from: store, stepAside: stepAside, logger: logger) else { return }
                // Made inside the lock (nothing else takes it before this returns): a value made
                // outside could not be sent into it.
                loaded.withLock { $0 = Daemon.restoreIndex(files, from: store, containers: containers, retention: retention,
                                                                          stepAside: stepAside, logger: logger) }
            }
        } catch {
            logger.warning("saved index discarded: crawling every container", metadata: ["reason": "\(error)"])
            store.discard()
        }
        let restored = loaded.withLock { $0.take() }
        let continued = restored?.isJournalContinued ?? true
        await engine.adopt(restored)
        if !continued { await saveIndex(reason: "restored") }
    }

    /// The saved index, checked and replayed, its journal continued (``RestoredIndex/continueJournal(in:)``:
    /// no snapshot is written before the first batch); nil (and the files removed) when it cannot
    /// be used: the daemon then crawls from nothing under a new epoch.
    static func restoreIndex(_ files: SavedIndexFiles, from store: IndexStore, containers: [ContainerDescriptor],
                             retention: ChangeHistory.Retention, stepAside: StepAside = .never,
                             logger: Logger) -> sending RestoredIndex? {
        let snapshot = files.snapshot, journal = files.journal
        let started = ContinuousClock.now
        do {
            var restored = try RestoredIndex.restore(snapshot: snapshot, journal: journal, containers: containers,
                                                     retention: retention, now: Int64(Glibc.time(nil)), bootID: store.bootID,
                                                     stepAside: stepAside)
            let continued: String
            do {
                try restored.continueJournal(in: store)
                if case .append? = restored.journalContinuation { continued = "appended" } else { continued = "new" }
            } catch {
                // The store removed the files: a snapshot is written before the first batch (loadSavedIndex).
                continued = "not continued"
                logger.warning("the saved index's journal could not be continued: a snapshot is written before the first batch",
                               metadata: ["error": "\(error)"])
            }
            let history = restored.history
            logger.info("index restored; checking it against the file system", metadata: [
                "entries": "\(restored.entryCount)", "clock": "\(history.clock)", "journal_records": "\(restored.journalRecords)",
                "snapshot_bytes": "\(snapshot.count)", "journal_bytes": "\(journal?.count ?? 0)",
                "torn_bytes": "\(restored.journalBytesIgnored)", "journal": "\(continued)",
                "removed_containers": "\(restored.removedContainers.map(\.rawValue).joined(separator: ","))",
                "name_index": "\(restored.nameIndexSource.rawValue)",
                "ms": "\((ContinuousClock.now - started).milliseconds)"])
            return restored
        } catch {
            logger.warning("saved index discarded: crawling every container; since tokens from before get clock.otherEpoch",
                           metadata: ["reason": "\(error)", "directory": "\(store.path)"])
            store.discard()
            return nil
        }
    }

    /// Writes a snapshot now; a failure is logged (the store has removed the stale files).
    func saveIndex(reason: String, final: Bool = false) async {
        guard indexStore != nil else { return }
        let started = ContinuousClock.now
        do {
            let bytes = try await engine.saveIndex(final: final)
            indexProblem.withLock { $0 = nil }
            logger.info("index saved", metadata: ["reason": "\(reason)", "bytes": "\(bytes)", "ms": "\((ContinuousClock.now - started).milliseconds)"])
        } catch {
            indexProblem.withLock { $0 = "\(error)" }
            logger.error("the index could not be saved: since tokens will not survive a restart until it can",
                         metadata: ["reason": "\(reason)", "error": "\(error)"])
        }
    }

    /// Saves the index every ``DaemonSettings/indexSaveInterval`` while it changes, and sooner
    /// when the journal grows past ``IndexStore/journalBytesBeforeSnapshot``; an interval of zero
    /// saves back to back while it changes (looking every 10 ms). Ends when cancelled.
    func saveIndexPeriodically() async {
        let check = settings.indexSaveInterval == .zero ? .milliseconds(10) : min(settings.indexSaveInterval, .seconds(10))
        var lastSave = ContinuousClock.now
        while !Task.isCancelled {
            do { try await Task.sleep(for: check) } catch { return }
            let (records, bytes) = await (engine.journalRecords, engine.journalBytes)
            let due = ContinuousClock.now - lastSave >= settings.indexSaveInterval && records > 0
            guard due || bytes > IndexStore.journalBytesBeforeSnapshot else { continue }
            await saveIndex(reason: due ? "interval" : "journal size")
            lastSave = ContinuousClock.now
        }
    }
}
