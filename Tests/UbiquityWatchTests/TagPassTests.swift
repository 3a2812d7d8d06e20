import Testing
@testable import UbiquityWatch

/// The tag pass's bookkeeping, pure: time is passed in.
@Suite("Tag pass bookkeeping")
struct TagPassTests {
    @Test("a pass nobody waits for starts once the queue has been quiet for the period")
    func quietPeriod() {
        var pass = TagPass()
        pass.add(slot: 0, directories: [1, 2])
        #expect(pass.nanosecondsUntilQuiet(at: 5_000, quietPeriod: 0) == 0)
        pass.noteActivity(at: 1_000)
        #expect(pass.nanosecondsUntilQuiet(at: 1_200, quietPeriod: 500) == 300)
        #expect(pass.nanosecondsUntilQuiet(at: 1_500, quietPeriod: 500) == 0)
        #expect(pass.nanosecondsUntilQuiet(at: 9_000, quietPeriod: 500) == 0)
        // Activity only moves forward: a late report of an older read changes nothing.
        pass.noteActivity(at: 800)
        #expect(pass.nanosecondsUntilQuiet(at: 1_200, quietPeriod: 500) == 300)
        pass.noteActivity(at: 2_000)
        #expect(pass.nanosecondsUntilQuiet(at: 2_100, quietPeriod: 500) == 400)
    }

    @Test("times at the ends of the range neither trap nor wait forever")
    func extremes() {
        var pass = TagPass()
        pass.noteActivity(at: Int64.max - 10)
        #expect(pass.nanosecondsUntilQuiet(at: 0, quietPeriod: Int64.max) == 0)
        #expect(pass.nanosecondsUntilQuiet(at: Int64.max - 10, quietPeriod: 5) == 5)
        #expect(pass.nanosecondsUntilQuiet(at: Int64.min, quietPeriod: -1) == 0)
    }
}
