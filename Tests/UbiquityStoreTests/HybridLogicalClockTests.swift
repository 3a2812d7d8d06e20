import Testing
import UbiquityStore

@Suite("The hybrid logical clock: follows the wall clock, never goes back, bounded by a minute past it")
struct HybridLogicalClockTests {
    let laptop = Grocery.laptop, phone = Grocery.phone

    @Test("Readings follow the wall clock and count within a millisecond")
    func follows() {
        var clock = HybridLogicalClock(device: laptop)
        #expect(clock.now(wall: 1_000) == HLC(milliseconds: 1_000, counter: 0, device: laptop))
        #expect(clock.now(wall: 1_000) == HLC(milliseconds: 1_000, counter: 1, device: laptop))
        #expect(clock.now(wall: 1_005) == HLC(milliseconds: 1_005, counter: 0, device: laptop))
    }

    @Test("A wall clock that goes back does not take the readings with it")
    func monotonic() {
        var clock = HybridLogicalClock(device: laptop)
        let before = clock.now(wall: 5_000)
        let after = clock.now(wall: 1_000)
        #expect(after > before)
        #expect(after == HLC(milliseconds: 5_000, counter: 1, device: laptop))
    }

    @Test("A reading received within a minute ahead is adopted: the next reading comes after it")
    func receiveAhead() {
        var clock = HybridLogicalClock(device: laptop)
        let remote = HLC(milliseconds: 30_000, counter: 7, device: phone)
        #expect(clock.receive(remote, wall: 1_000) == nil)
        let next = clock.now(wall: 1_000)
        #expect(next > remote)
        #expect(next == HLC(milliseconds: 30_000, counter: 8, device: laptop))
    }

    @Test("A reading an hour ahead is accepted, reported, and adopted only up to a minute past the wall clock")
    func receiveSkewed() {
        var clock = HybridLogicalClock(device: laptop)
        let hour: Int64 = 3_600_000
        let remote = HLC(milliseconds: 1_000 + hour, device: phone)
        #expect(clock.receive(remote, wall: 1_000) == ClockSkew(device: phone, aheadBy: hour))
        #expect(clock.latest.milliseconds == 1_000 + HybridLogicalClock.maxAhead)
        #expect(clock.now(wall: 1_000) < remote)
    }

    @Test("A reading behind changes nothing and is not reported")
    func receiveBehind() {
        var clock = HybridLogicalClock(device: laptop)
        let mine = clock.now(wall: 10_000)
        #expect(clock.receive(HLC(milliseconds: 10, device: phone), wall: 10_000) == nil)
        #expect(clock.latest == mine)
    }

    @Test("stamp(after:) comes after a floor in the future without moving the clock past a minute ahead")
    func stampAfter() {
        var clock = HybridLogicalClock(device: laptop)
        let future = HLC(milliseconds: 7_200_000, counter: 3, device: phone)
        let stamp = clock.stamp(after: future, wall: 1_000)
        #expect(stamp > future)
        #expect(stamp == HLC(milliseconds: 7_200_000, counter: 4, device: laptop))
        #expect(clock.latest.milliseconds <= 1_000 + HybridLogicalClock.maxAhead)
        let plain = clock.stamp(after: HLC(milliseconds: 5, device: phone), wall: 2_000)
        #expect(plain.milliseconds == 61_000, "the clock had adopted up to wall + 60 s, and goes on from there")
    }

    @Test("Readings order by milliseconds, then counter, then device id")
    func order() {
        let a = HLC(milliseconds: 1, counter: 9, device: phone)
        let b = HLC(milliseconds: 2, counter: 0, device: laptop)
        let c = HLC(milliseconds: 2, counter: 1, device: laptop)
        let d = HLC(milliseconds: 2, counter: 1, device: phone)
        #expect([d, c, b, a].sorted() == [a, b, c, d])
    }

    @Test("Nothing traps at the edges: counters roll into milliseconds, the end of time saturates, any wall clock is clamped")
    func edges() {
        var clock = HybridLogicalClock(device: laptop, latest: HLC(milliseconds: 10, counter: .max, device: laptop))
        #expect(clock.now(wall: 0) == HLC(milliseconds: 11, counter: 0, device: laptop))
        var end = HybridLogicalClock(device: laptop, latest: HLC(milliseconds: HLC.maxMilliseconds, counter: .max, device: laptop))
        #expect(end.now(wall: .max) == HLC(milliseconds: HLC.maxMilliseconds, counter: .max, device: laptop))
        var any = HybridLogicalClock(device: laptop)
        #expect(any.now(wall: .min).milliseconds == 0)
        #expect(any.receive(HLC(milliseconds: .max, counter: .max, device: phone), wall: .max) == nil)
        #expect(any.receive(HLC(milliseconds: HLC.maxMilliseconds, device: phone), wall: .min)?.aheadBy == HLC.maxMilliseconds)
        #expect(any.stamp(after: HLC(milliseconds: .max, counter: .max, device: phone), wall: .min).milliseconds == HLC.maxMilliseconds)
        #expect(HLC(milliseconds: -5, device: phone).milliseconds == 0)
    }
}
