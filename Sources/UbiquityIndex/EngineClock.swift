/// The engine's view of a clock: instants as `Duration` offsets from when the engine was made.
///
/// Why a box and not a generic `QueryEngine<C: Clock>`: the server stores and passes the engine
/// around, and a type parameter would ripple through all of its types for the sake of tests.
/// Boxing any `Clock<Duration>` keeps `QueryEngine` non-generic, and the offsets keep
/// ``QueryLifecycle`` non-generic too.
struct EngineClock: Sendable {
    let now: @Sendable () -> Duration
    let sleep: @Sendable (_ until: Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }
}
