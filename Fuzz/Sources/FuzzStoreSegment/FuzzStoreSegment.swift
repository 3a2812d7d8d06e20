import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzStoreSegment` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzStoreSegment_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(StoreSegmentCheck.self, argc: argc, argv: argv)
}
