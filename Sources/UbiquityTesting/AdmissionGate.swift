/// Lets at most `limit` holders in at once; the others wait their turn, first come first served,
/// without blocking a thread. ``OwnThreads`` admits tests through one, so that tests running real
/// processes do not all start at the same moment and measure each other's load against their
/// deadlines (a test's deadlines start only once it is admitted).
public actor AdmissionGate {
    public let limit: Int
    private var inside = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(limit: Int) {
        precondition(limit > 0, "an admission gate must let someone in")
        self.limit = limit
    }

    /// Runs `body` once admitted, and lets the next one in when it ends (however it ends).
    public nonisolated func admitted<T>(_ body: () async throws -> T) async throws -> T {
        await enter()
        do {
            let result = try await body()
            await leave()
            return result
        } catch {
            await leave()
            throw error
        }
    }

    private func enter() async {
        if inside < limit {
            inside += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }    // `leave` hands over its place
    }

    private func leave() {
        if waiting.isEmpty {
            inside -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
