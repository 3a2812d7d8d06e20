public import UbiquityIndex
import Testing

/// The next event of a query, or nil (and a recorded test failure) when none comes within
/// `seconds`: a missing event fails a test instead of hanging it. Never a sleep standing in for
/// synchronisation — it returns as soon as the event is there.
public func nextEvent(_ iterator: inout QueryEvents.AsyncIterator, within seconds: Double = 10) async throws -> QueryEvent? {
    let start = iterator
    let result = try await firstWithin(seconds) {
        var copy = start
        let event = await copy.next()
        return (event, copy)
    }
    guard let (event, advanced) = result else {
        Issue.record("no event within \(seconds) s")
        return nil
    }
    iterator = advanced
    return event
}

/// The next update, passing over notices such as `containerAvailable` that may come first.
public func nextUpdate(_ iterator: inout QueryEvents.AsyncIterator, within seconds: Double = 10) async throws -> QueryDelta? {
    while let event = try await nextEvent(&iterator, within: seconds) {
        if case .update(let delta) = event { return delta }
    }
    return nil
}
