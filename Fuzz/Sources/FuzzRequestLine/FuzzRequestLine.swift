import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzRequestLine` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzRequestLine_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(RequestLineCheck.self, argc: argc, argv: argv)
}
