import Glibc
import Testing
import UbiquityTesting
@testable import UbiquityIndex
@testable import UbiquityWatch

/// Each container has its own inotify queue: flooding one overflows only that queue, and only
/// that container is rescanned; another container's changes still arrive as plain events.
@Suite("Overflow isolation")
struct OverflowIsolationTests {
    @Test func anOverflowRescansOnlyTheContainerWhoseQueueOverflowed() async throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        let flooded = try ContainerID("com.example.flooded"), quiet = try ContainerID("com.example.quiet")
        let descriptors = [ContainerDescriptor(id: flooded, root: base + "/flooded"),
                           ContainerDescriptor(id: quiet, root: base + "/quiet")]
        for descriptor in descriptors { try FS.mkdir(descriptor.root) }
        let watcher = try FileWatcher(containers: descriptors)
        let recorder = Recorder(containers: descriptors)
        let batches = watcher.batches
        let consumer = Task {
            for await batch in batches { recorder.apply(batch) }
            recorder.finish()
        }
        try watcher.start()
        defer { consumer.cancel() }
        try await recorder.wait(for: "both initial listings") { recorded in
            descriptors.allSatisfy { d in recorded.notices.contains(.containerAvailable(d.id)) }
        }

        await watcher.holdReader()
        // Each file is CREATE + MODIFY + CLOSE_WRITE: past the kernel's queue limit.
        let limit = readInteger("/proc/sys/fs/inotify/max_queued_events") ?? 16384
        for i in 0..<(limit / 2 + 500) { try FS.write(base + "/flooded/f\(i)", "x") }
        try FS.write(base + "/quiet/note.txt", "written during the flood")
        watcher.releaseReader()

        try await recorder.wait(for: "the flooded container's resync") {
            $0.notices.contains(.resync(flooded, reason: .queueOverflow))
        }
        try await recorder.wait(for: "the quiet container's change as a plain event") { recorded in
            recorded.changes.contains { change in
                if case .stat(quiet, ["note.txt"], _) = change { return true }
                return false
            }
        }
        let sequence = try await watcher.sync()
        try await recorder.wait(for: "batch \(sequence)") { $0.applied >= sequence }
        #expect(!recorder.recorded.notices.contains(.resync(quiet, reason: .queueOverflow)),
                "the quiet container was rescanned for another container's overflow")
        #expect(watcher.status.overflowCount >= 1)
        let counts = recorder.withIndex { $0.itemCountsByContainer() }
        #expect(counts == [flooded: limit / 2 + 500, quiet: 1], "\(counts)")
        #expect(watcher.status.inotifyInstances == 3)       // the shared one, and one per container
        await watcher.stop()
    }

    @Test func containersPastTheInstanceLimitShareOneQueue() async throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        let descriptors = try (0..<3).map { ContainerDescriptor(id: try ContainerID("com.example.c\($0)"), root: base + "/c\($0)") }
        for descriptor in descriptors { try FS.mkdir(descriptor.root) }
        // Two instances: the shared one and one of its own for the first container.
        let watcher = try FileWatcher(containers: descriptors, configuration: FileWatcher.Configuration(maxInotifyInstances: 2))
        let recorder = Recorder(containers: descriptors)
        let batches = watcher.batches
        let consumer = Task { for await batch in batches { recorder.apply(batch) } }
        try watcher.start()
        defer { consumer.cancel() }
        try await recorder.wait(for: "every container available") { recorded in
            descriptors.allSatisfy { d in recorded.notices.contains(.containerAvailable(d.id)) }
        }
        #expect(watcher.status.inotifyInstances == 2)
        for (i, descriptor) in descriptors.enumerated() { try FS.write(descriptor.root + "/f", "\(i)") }
        try await recorder.wait(for: "a change in every container") { recorded in
            descriptors.allSatisfy { d in
                recorded.changes.contains { if case .stat(d.id, ["f"], _) = $0 { true } else { false } }
            }
        }
        await watcher.stop()
    }
}
