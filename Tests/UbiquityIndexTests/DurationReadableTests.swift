import Testing
import UbiquityIndex

/// How messages and `ubiquityd --check-config` write a duration: exactly, never trapping.
@Suite struct DurationReadableTests {
    @Test func wholeSecondsInSecondsElseMilliseconds() {
        #expect(Duration.seconds(10).readable == "10 s")
        #expect(Duration.milliseconds(1500).readable == "1500 ms")
        #expect(Duration.milliseconds(200).readable == "200 ms")
        #expect(Duration.zero.readable == "0 ms")
        #expect(Duration.microseconds(300).readable == "0 ms")
    }

    @Test func aDurationTooLongForMillisecondsIsWrittenInSecondsWithoutTrapping() {
        let longest = Duration(secondsComponent: .max, attosecondsComponent: 5 * 100_000_000_000_000_000)
        #expect(longest.readable == "\(Int64.max) s")
    }
}
