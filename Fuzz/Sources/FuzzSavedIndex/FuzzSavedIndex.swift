import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzSavedIndex` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzSavedIndex_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(SavedIndexCheck.self, argc: argc, argv: argv)
}
