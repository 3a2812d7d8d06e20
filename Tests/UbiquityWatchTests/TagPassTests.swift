import Testing
@testable import UbiquityWatch

/// The tag pass's bookkeeping, pure: time is passed in.
@Suite("Tag pass bookkeeping")
struct TagPassTests {
    @Test("a pass nobody waits for starts once the queue has been quiet for the period")
    func quietPeriod() {
        var pass = TagPass()
        pass.add(slot: 0, directories: [1, 2])
        #expect(pass.nanosecondsUntilQuiet(at: 5_000, quietPeriod: 0, longestDeferral: .max) == 0)
        pass.noteActivity(at: 1_000)
        #expect(pass.nanosecondsUntilQuiet(at: 1_200, quietPeriod: 500, longestDeferral: .max) == 300)
        #expect(pass.nanosecondsUntilQuiet(at: 1_500, quietPeriod: 500, longestDeferral: .max) == 0)
        #expect(pass.nanosecondsUntilQuiet(at: 9_000, quietPeriod: 500, longestDeferral: .max) == 0)
        // Activity only moves forward: a late report of an older read changes nothing.
        pass.noteActivity(at: 800)
        #expect(pass.nanosecondsUntilQuiet(at: 1_200, quietPeriod: 500, longestDeferral: .max) == 300)
        pass.noteActivity(at: 2_000)
        #expect(pass.nanosecondsUntilQuiet(at: 2_100, quietPeriod: 500, longestDeferral: .max) == 400)
    }

    @Test("a drained pass keeps no storage for the directories it read")
    func drainedPassLetsGoOfItsList() {
        var pass = TagPass()
        pass.add(slot: 0, directories: (0..<10_000).map { Int32($0) })
        #expect(pass.storedCapacity >= 10_000)
        var read = 0
        while let job = pass.next() {
            pass.done(job)
            read += 1
            if read == 5_000 { #expect(pass.storedCapacity > 0, "half way, the rest is still queued") }
        }
        #expect(read == 10_000)
        #expect(pass.pending == 0)
        #expect(pass.storedCapacity == 0)
        // A directory put back after the list was drained is read all the same.
        pass.add(slot: 0, directories: [7])
        let job = pass.next()
        #expect(job?.wd == 7)
        if let job { pass.putBack(job) }
        #expect(pass.next()?.wd == 7)
        #expect(pass.storedCapacity == 0)
    }

    @Test("however busy the queue, the pass reads once the longest deferral has passed since it last read")
    func longestDeferral() {
        var pass = TagPass()
        pass.add(slot: 0, directories: [1])
        pass.noteRead(at: 1_000)
        pass.noteActivity(at: 1_000)
        #expect(pass.nanosecondsUntilQuiet(at: 1_100, quietPeriod: 500, longestDeferral: 2_000) == 400)
        // Activity every 100 ns from here on: quiet never comes, the bound does.
        for now in stride(from: Int64(1_100), through: 2_900, by: 100) {
            pass.noteActivity(at: now)
            #expect(pass.nanosecondsUntilQuiet(at: now, quietPeriod: 500, longestDeferral: 2_000) == min(500, 3_000 - now))
        }
        #expect(!pass.isOverdue(at: 2_900, quietPeriod: 500, longestDeferral: 2_000))
        pass.noteActivity(at: 3_000)
        #expect(pass.nanosecondsUntilQuiet(at: 3_000, quietPeriod: 500, longestDeferral: 2_000) == 0)
        #expect(pass.isOverdue(at: 3_000, quietPeriod: 500, longestDeferral: 2_000))
        // Quiet at last: the pass reads as usual, not overdue.
        #expect(!pass.isOverdue(at: 3_600, quietPeriod: 500, longestDeferral: 2_000))
        pass.noteRead(at: 3_000)
        #expect(pass.nanosecondsUntilQuiet(at: 3_000, quietPeriod: 500, longestDeferral: 2_000) == 500)
    }

    @Test("times at the ends of the range neither trap nor wait forever")
    func extremes() {
        var pass = TagPass()
        pass.noteActivity(at: Int64.max - 10)
        #expect(pass.nanosecondsUntilQuiet(at: 0, quietPeriod: Int64.max, longestDeferral: 1_000) == 1_000)
        #expect(pass.nanosecondsUntilQuiet(at: Int64.max - 10, quietPeriod: 5, longestDeferral: Int64.max) == 5)
        #expect(pass.nanosecondsUntilQuiet(at: Int64.min, quietPeriod: -1, longestDeferral: -1) == 0)
    }
}
