import Foundation
import GroceryStore
import Testing
import UbiquityKit
import UbiquityTesting

/// GroceryList and GroceryLiveList in-process, against the real daemon.
@Suite(.ownThreads) struct GroceryListTests {
    @Test func anItemDeletedBetweenTheQueryAndTheReadIsSkipped() async throws {
        try await withDaemon { daemon in
            let list = try await GroceryList.open(socketPath: daemon.socket, container: "com.example.grocery", format: .files)
            let added = try await list.add(["milk", "eggs", "bread"])
            let query = list.makeQuery(live: false)
            for try await _ in try await query.start() {}
            #expect(query.resultCount == 3)
            try FileManager.default.removeItem(atPath: list.files.path(of: added[1].id))
            let items = try await list.items(for: query.results)
            #expect(Set(items.map(\.name)) == ["milk", "bread"])
            await list.close()
        }
    }

    @Test func theLiveListTurnsNotificationsIntoGroceryEvents() async throws {
        try await withDaemon { daemon in
            try daemon.place("notes.txt", contents: "not an item")
            let live = GroceryLiveList(socketPath: daemon.socket, container: "com.example.grocery", format: .files,
                                       batchingInterval: 0)
            let inbox = Inbox()
            let watching = Task(executorPreference: ThreadPerJobExecutor.shared) { try await live.run { await inbox.put($0) } }
            defer { watching.cancel() }
            #expect(await inbox.next() == .gathered([]))

            let list = try await GroceryList.open(socketPath: daemon.socket, container: "com.example.grocery", format: .files)
            let milk = try #require(try await list.add(["milk"]).first)
            guard case .changed(let added)? = await inbox.next() else { Issue.record("no added event"); return }
            #expect(added.map(\.kind) == [.added])
            #expect(added.map(\.id) == [milk.id])

            try await list.rename(milk.id, to: "oat milk")
            guard case .changed(let renamed)? = await inbox.next() else { Issue.record("no renamed event"); return }
            #expect(renamed.map { [$0.kind.rawValue, $0.oldName ?? "-", $0.name] } == [["renamed", "milk", "oat milk"]])

            try await list.delete([milk.id])
            guard case .changed(let removed)? = await inbox.next() else { Issue.record("no removed event"); return }
            #expect(removed.map { [$0.kind.rawValue, $0.name] } == [["removed", "oat milk"]])
            await list.close()

            watching.cancel()
            try await watching.value  // cancelling ends the watch normally
        }
    }

    /// Package mode, a package without its items.json when watching begins (as while Syncthing
    /// replaces it: the old one removed, the newer one not yet renamed in): a notice says why and
    /// the watch goes on; the list is gathered at the update that brings items.json back.
    @Test func aPackageCaughtWithoutItsListIsGatheredWhenTheListIsBack() async throws {
        try await withDaemon { daemon in
            let package = GroceryPackage(documentsDirectory: daemon.documents("com.example.grocery"))
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let milk = try await package.update(connection: connection) { try $0.add(name: "milk") }
            await connection.close()
            let items = package.path + "/items.json", aside = package.path + "/.items.json.aside"
            try FS.rename(items, aside)
            let live = GroceryLiveList(socketPath: daemon.socket, container: "com.example.grocery", format: .package,
                                       batchingInterval: 0)
            let inbox = Inbox()
            let watching = Task(executorPreference: ThreadPerJobExecutor.shared) { try await live.run { await inbox.put($0) } }
            defer { watching.cancel() }
            guard case .notice(let why)? = await inbox.next() else { Issue.record("no notice first"); return }
            #expect(why.contains("items.json is missing"), "\(why)")
            try FS.rename(aside, items)
            guard case .gathered(let gathered)? = await inbox.next() else { Issue.record("not gathered"); return }
            #expect(gathered.map(\.id) == [milk.id] && gathered.map(\.name) == ["milk"])
            watching.cancel()
            try await watching.value
        }
    }
}

/// Events handed over from the live list's task; `next` waits for one with a deadline.
private actor Inbox {
    private var buffer: [GroceryLiveList.Event] = []
    private var waiter: CheckedContinuation<GroceryLiveList.Event?, Never>?
    private var generation = 0

    func put(_ event: GroceryLiveList.Event) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: event)
        } else {
            buffer.append(event)
        }
    }

    /// The next event, or nil (recorded as an issue) after `seconds`: a deadline, not a wait standing in for one.
    func next(within seconds: Double = 15) async -> GroceryLiveList.Event? {
        if !buffer.isEmpty { return buffer.removeFirst() }
        generation += 1
        let mine = generation
        let event = await withCheckedContinuation { continuation in
            waiter = continuation
            Task(executorPreference: ThreadPerJobExecutor.shared) {
                try? await Task.sleep(for: .seconds(seconds))     // sleep-ok: the deadline; the event resumes the waiter itself
                await self.expire(mine)
            }
        }
        if event == nil { Issue.record("no live-list event within \(seconds) s") }
        return event
    }

    private func expire(_ generation: Int) {
        guard generation == self.generation, let waiter else { return }
        self.waiter = nil
        waiter.resume(returning: nil)
    }
}
