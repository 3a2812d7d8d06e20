import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzLineSplitter` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzLineSplitter_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(LineSplitterCheck.self, argc: argc, argv: argv)
}
