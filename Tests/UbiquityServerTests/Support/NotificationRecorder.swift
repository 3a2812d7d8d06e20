import Foundation
import UbiquityTesting
import Testing
import UbiquityKit

/// Collects a query's notifications so a test can wait for the next one with a deadline.
actor NotificationRecorder {
    private var received: [MetadataQuery.Notification] = []
    private var cursor = 0
    private var end: Result<Void, any Error>?
    private var waiter: CheckedContinuation<Void, Never>?

    /// Starts draining `stream` in the background.
    static func recording(_ stream: AsyncThrowingStream<MetadataQuery.Notification, any Error>) -> NotificationRecorder {
        let recorder = NotificationRecorder()
        Task {
            do {
                for try await notification in stream { await recorder.append(notification) }
                await recorder.finish(.success(()))
            } catch {
                await recorder.finish(.failure(error))
            }
        }
        return recorder
    }

    private func append(_ n: MetadataQuery.Notification) {
        received.append(n)
        wake()
    }

    private func finish(_ result: Result<Void, any Error>) {
        end = result
        wake()
    }

    private func wake() {
        waiter?.resume()
        waiter = nil
    }

    /// Notifications received but not yet taken by `next`.
    var unread: [MetadataQuery.Notification] { Array(received[cursor...]) }

    /// The next notification; nil when the stream ended normally. Throws the stream's error, or
    /// ``DaemonError`` when nothing comes within `seconds`.
    func next(within seconds: Double = 10) async throws -> MetadataQuery.Notification? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            if cursor < received.count {
                cursor += 1
                return received[cursor - 1]
            }
            if let end {
                try end.get()
                return nil
            }
            guard ContinuousClock.now < deadline else { throw TestDaemonError("no notification within \(seconds) s") }
            let timer = Task { [weak self] in
                try? await Task.sleep(until: deadline)     // sleep-ok: the deadline; a notification wakes the waiter itself
                await self?.wake()
            }
            await withCheckedContinuation { waiter = $0 }
            timer.cancel()
        }
    }

    /// The next update, skipping progress and other notices.
    func nextUpdate(within seconds: Double = 10) async throws -> (added: [MetadataItem], changed: [MetadataItem], removed: [MetadataItem]) {
        while let n = try await next(within: seconds) {
            if case .didUpdate(let a, let c, let r) = n { return (a, c, r) }
        }
        throw TestDaemonError("the stream ended before an update")
    }

    /// Waits for didFinishGathering and returns its results.
    func gathered(within seconds: Double = 10) async throws -> [MetadataItem] {
        while let n = try await next(within: seconds) {
            if case .didFinishGathering(let results) = n { return results }
        }
        throw TestDaemonError("the stream ended before gathering finished")
    }
}
